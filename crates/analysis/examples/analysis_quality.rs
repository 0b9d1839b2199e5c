//! Analysis quality on the scripted calls' text, for the rules engine and, when an endpoint is
//! given, the LLM engine over it (`--label local` when the endpoint is our own `callscope-llm`,
//! which `scripts/bench-analysis --local` starts). One row per engine, language and split:
//! `own` (`corpus/calls.json`, the project's own calls), `tune` and `heldout`
//! (`corpus/heldout.json`), `heldout2` (`corpus/heldout-2.json`), `tune2`
//! (`corpus/tune-2.json`) and `tune3` (`corpus/tune-3.json`), first as a compact table,
//! then each figure with its 95 % interval. `--mistakes` lists what went wrong, except on
//! held-out calls.
//!
//! ```text
//! cargo run --release -p callscope-analysis --example analysis_quality -- LEXICON_DIR \
//!     [--openai BASE_URL MODEL [--label NAME] [--context-chars N] [--max-tokens N] [--open] [--keep-wide-below P] [--drop-sure-from P]] [--split own|tune|tune2|tune3|heldout|heldout2] [--language en|pl] [--mistakes]
//! ```

use std::sync::Arc;
use std::time::Duration;

use callscope_analysis::engine::{Analyzer, RulesEngine};
use callscope_analysis::guided::{GuidedEngine, TaskThresholds};
use callscope_analysis::llm_engine::LlmEngine;
use callscope_analysis::quality::{evaluate_parts_where, in_order, report_lines, table_header, table_row, Part};
use callscope_analysis::{OpenAiClient, OpenAiSettings};

/// The calls asked for: one split, one language, or all.
struct Only {
    split: Option<String>,
    language: Option<String>,
}

impl Only {
    fn takes(&self, part: &Part) -> bool {
        self.split.as_ref().is_none_or(|s| *s == part.split) && self.language.as_ref().is_none_or(|l| *l == part.language)
    }
}

/// Every corpus, a row per language and split.
async fn report(engine: &dyn Analyzer, name: &str, mistakes: bool, only: &Only) -> Result<(), Box<dyn std::error::Error>> {
    let mut parts = Vec::new();
    for corpus in [
        include_str!("../corpus/calls.json"),
        include_str!("../corpus/heldout.json"),
        include_str!("../corpus/heldout-2.json"),
        include_str!("../corpus/tune-2.json"),
        include_str!("../corpus/tune-3.json"),
    ] {
        parts.extend(in_order(evaluate_parts_where(engine, corpus, |part, _| only.takes(part)).await?));
    }
    // The compact table first, then every figure with its interval.
    println!("{}", table_header("engine"));
    for (part, r) in &parts {
        println!("{}", table_row(name, part, r));
    }
    println!();
    for (part, r) in &parts {
        println!("{}", report_lines(name, part, r, mistakes));
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `RUST_LOG=callscope_analysis=debug` logs each call's closed choices with their probabilities.
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().ok_or("usage: analysis_quality LEXICON_DIR [--openai BASE_URL MODEL [--label NAME] [--context-chars N] [--max-tokens N] [--open] [--keep-wide-below P] [--drop-sure-from P]] [--split own|tune|tune2|tune3|heldout|heldout2] [--language en|pl] [--mistakes]")?;
    let option = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let mistakes = args.iter().any(|a| a == "--mistakes");
    let only = Only { split: option("--split"), language: option("--language") };
    let rules = RulesEngine::load(std::path::Path::new(dir))?;
    report(&rules, "rules", mistakes, &only).await?;
    if let Some(i) = args.iter().position(|a| a == "--openai") {
        let (url, model) = (args.get(i + 1).ok_or("--openai BASE_URL MODEL")?, args.get(i + 2).ok_or("--openai BASE_URL MODEL")?);
        let settings = OpenAiSettings {
            base_url: url.clone(),
            model: model.clone(),
            api_key: std::env::var("CALLSCOPE_LLM_API_KEY").ok(),
            timeout: Duration::from_secs(1800),
            max_retries: 1,
            retry_base: Duration::from_secs(1),
            max_tokens: option("--max-tokens").map(|n| n.parse()).transpose()?.unwrap_or(2048),
        };
        let label: &'static str = if option("--label").as_deref() == Some("local") { "local" } else { "openai" };
        let chars = option("--context-chars").map(|n| n.parse()).transpose()?.unwrap_or(24_000);
        let client = OpenAiClient::new(settings, None)?;
        // The default engine is guided; `--open` measures open extraction by the model.
        let engine: Arc<dyn Analyzer> = if args.iter().any(|a| a == "--open") {
            Arc::new(LlmEngine::new(client, rules, chars).named(label))
        } else {
            // `--keep-wide-below P` and `--drop-sure-from P` try other thresholds on the model's
            // probability of "none" (see `TaskThresholds`).
            let mut thresholds = TaskThresholds::default();
            if let Some(p) = option("--keep-wide-below") {
                thresholds.keep_wide_below = p.parse()?;
            }
            if let Some(p) = option("--drop-sure-from") {
                thresholds.drop_sure_from = p.parse()?;
            }
            Arc::new(GuidedEngine::new(client, rules, chars).named(label).with_task_thresholds(thresholds))
        };
        report(engine.as_ref(), &engine.model_used(), mistakes, &only).await?;
    }
    Ok(())
}
