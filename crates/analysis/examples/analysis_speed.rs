//! How long the guided engine takes on calls of a given length, against an OpenAI-compatible
//! endpoint (`scripts/bench-analysis --speed` starts `callscope-llm` with the packaged model).
//! A call of about `minutes` minutes is made by joining the English tuning calls' turns in
//! order (at 150 spoken words a minute, a phone call's pace); each length is analysed twice,
//! after one warm-up call, so that the fixed part of the prompt is cached as it is in `serve`.
//!
//! ```text
//! cargo run --release -p callscope-analysis --example analysis_speed -- LEXICON_DIR BASE_URL MODEL [MINUTES...]
//! ```

use std::time::{Duration, Instant};

use callscope_analysis::engine::{AnalysisInput, Analyzer, Lang, RulesEngine};
use callscope_analysis::guided::GuidedEngine;
use callscope_analysis::quality::corpus_category;
use callscope_analysis::{OpenAiClient, OpenAiSettings};
use chrono::{TimeZone, Utc};
use serde_json::Value;

/// Spoken words per minute on a phone call.
const WORDS_PER_MINUTE: usize = 150;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, url, model, minutes @ ..] = args.as_slice() else {
        return Err("usage: analysis_speed LEXICON_DIR BASE_URL MODEL [MINUTES...]".into());
    };
    let minutes: Vec<f64> = if minutes.is_empty() { vec![1.33, 5.0] } else { minutes.iter().map(|m| m.parse()).collect::<Result<_, _>>()? };
    let corpus: Value = serde_json::from_str(include_str!("../corpus/heldout.json"))?;
    let categories = corpus["categories"]
        .as_array()
        .ok_or("categories")?
        .iter()
        .map(|c| callscope_analysis::classify::CategoryInfo {
            id: corpus_category(c["id"].as_str().unwrap_or_default()),
            parent: c["parent"].as_str().map(corpus_category),
            name: c["name"].as_str().unwrap_or_default().to_owned(),
            description: c["description"].as_str().map(str::to_owned),
        })
        .collect::<Vec<_>>();
    // Only the tuning half: the held-out calls are for measuring quality, not for anything else.
    let turns: Vec<(String, String)> = corpus["calls"]
        .as_array()
        .ok_or("calls")?
        .iter()
        .filter(|c| c["split"] == "tune" && c["language"] == "en")
        .flat_map(|c| c["turns"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| Some((t[0].as_str()?.to_owned(), t[1].as_str()?.to_owned())))
        .collect();
    let call_of = |minutes: f64| {
        let wanted = (minutes * WORDS_PER_MINUTE as f64) as usize;
        let mut words = 0;
        let taken: Vec<(String, String)> = turns
            .iter()
            .take_while(|t| {
                let before = words;
                words += t.1.split_whitespace().count();
                before < wanted
            })
            .cloned()
            .collect();
        let count = taken.iter().map(|t| t.1.split_whitespace().count()).sum::<usize>();
        let input = AnalysisInput {
            turns: taken,
            language: Lang::En,
            call_date: Utc.with_ymd_and_hms(2026, 11, 18, 10, 0, 0).unwrap(),
            time_zone: chrono_tz::UTC,
            categories: categories.clone(),
            template: None,
        };
        (input, count)
    };
    let settings = OpenAiSettings {
        base_url: url.clone(),
        model: model.clone(),
        api_key: None,
        timeout: Duration::from_secs(600),
        max_retries: 0,
        retry_base: Duration::from_secs(1),
        max_tokens: 2048,
    };
    let engine = GuidedEngine::new(OpenAiClient::new(settings, None)?, RulesEngine::load(std::path::Path::new(dir))?, 12_800).named("local");
    // The warm-up: the instructions and category tree enter the cache, as after a server's first call.
    engine.analyze(&call_of(0.5).0).await?;
    println!("{:>8} {:>6} {:>6} {:>10} {:>10}", "minutes", "words", "turns", "run 1 (s)", "run 2 (s)");
    for m in minutes {
        let (input, words) = call_of(m);
        let mut times = Vec::new();
        for _ in 0..2 {
            let started = Instant::now();
            let analysis = engine.analyze(&input).await?;
            if analysis.model_used != engine.model_used() {
                return Err(format!("the engine fell back to {}", analysis.model_used).into());
            }
            times.push(started.elapsed().as_secs_f64());
            // Another call in between, so that the second run does not reuse the first's transcript.
            engine.analyze(&call_of(0.5).0).await?;
        }
        println!("{:>8.2} {:>6} {:>6} {:>10.1} {:>10.1}", words as f64 / WORDS_PER_MINUTE as f64, words, input.turns.len(), times[0], times[1]);
    }
    Ok(())
}
