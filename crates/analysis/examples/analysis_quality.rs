//! Analysis quality on the scripted calls (`corpus/calls.json`), for the rules engine and, when
//! an endpoint is given, the LLM engine over it (`--label local` when the endpoint is our own
//! `callscope-llm`, which `scripts/bench-analysis --local` starts).
//!
//! ```text
//! cargo run --release -p callscope-analysis --example analysis_quality -- LEXICON_DIR \
//!     [--openai BASE_URL MODEL [--label NAME] [--context-chars N] [--max-tokens N]] [--mistakes]
//! ```

use std::sync::Arc;
use std::time::Duration;

use callscope_analysis::engine::{Analyzer, RulesEngine};
use callscope_analysis::llm_engine::LlmEngine;
use callscope_analysis::quality::{evaluate, Report};
use callscope_analysis::{OpenAiClient, OpenAiSettings};

fn print(name: &str, r: &Report, mistakes: bool) {
    println!(
        "{name:<28} {:>6.2} {:>9.2} {:>8.2} {:>9.2} {:>9.2} {:>9.1} {:>9}",
        r.classification_accuracy(),
        r.action_precision(),
        r.action_recall(),
        r.deadline_accuracy(),
        r.sentiment_agreement(),
        r.seconds_per_call() * 1000.0,
        r.fallbacks
    );
    if mistakes {
        for m in &r.mistakes {
            println!("    {m}");
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().ok_or("usage: analysis_quality LEXICON_DIR [--openai BASE_URL MODEL [--label NAME] [--context-chars N] [--max-tokens N]] [--mistakes]")?;
    let option = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let mistakes = args.iter().any(|a| a == "--mistakes");
    let corpus = include_str!("../corpus/calls.json");
    let rules = RulesEngine::load(std::path::Path::new(dir))?;
    println!(
        "{:<28} {:>6} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "engine", "class.", "items P", "items R", "deadline", "sentiment", "ms/call", "fallbacks"
    );
    let report = evaluate(&rules, corpus).await?;
    println!("(14 calls, {} action items, {} with a deadline)", report.actions_expected, report.deadlines_expected);
    print("rules", &report, mistakes);
    if let Some(i) = args.iter().position(|a| a == "--openai") {
        let (url, model) = (args.get(i + 1).ok_or("--openai BASE_URL MODEL")?, args.get(i + 2).ok_or("--openai BASE_URL MODEL")?);
        let settings = OpenAiSettings {
            base_url: url.clone(),
            model: model.clone(),
            api_key: std::env::var("CALLSCOPE_LLM_API_KEY").ok(),
            timeout: Duration::from_secs(1800),
            max_retries: 1,
            retry_base: Duration::from_secs(1),
            max_tokens: option("--max-tokens").map(|n| n.parse()).transpose()?,
        };
        let label: &'static str = if option("--label").as_deref() == Some("local") { "local" } else { "openai" };
        let chars = option("--context-chars").map(|n| n.parse()).transpose()?.unwrap_or(24_000);
        let engine: Arc<dyn Analyzer> = Arc::new(LlmEngine::new(OpenAiClient::new(settings, None)?, rules, chars).named(label));
        let report = evaluate(engine.as_ref(), corpus).await?;
        print(&engine.model_used(), &report, mistakes);
    }
    Ok(())
}
