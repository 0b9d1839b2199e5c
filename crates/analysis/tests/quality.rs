//! The rules engine on the scripted calls with the real lexicons: its measured figures (README)
//! do not regress.

use std::path::PathBuf;

use callscope_analysis::engine::RulesEngine;
use callscope_analysis::quality::evaluate;

#[tokio::test]
async fn the_rules_engine_keeps_its_figures_on_the_scripted_calls() {
    let dir = std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, PathBuf::from).join("sentiment-lexicons");
    assert!(dir.join(".installed").is_file(), "{} is missing: run `callscope models install --profile test`", dir.display());
    let report = evaluate(&RulesEngine::load(&dir).unwrap(), include_str!("../corpus/calls.json")).await.unwrap();
    assert_eq!((report.calls, report.item_recall.of), (14, 14));
    let figures = (
        report.classification_accuracy(),
        report.action_precision(),
        report.action_recall(),
        report.deadline_accuracy(),
        report.sentiment_agreement(),
    );
    assert!(
        figures.0 >= 0.9 && figures.1 >= 0.8 && figures.2 >= 0.8 && figures.3 >= 0.8 && figures.4 >= 0.5,
        "classification, item precision, item recall, deadlines, sentiment: {figures:?}\n{:#?}",
        report.mistakes
    );
}

/// Hears nothing in any call: the analysis of an empty transcript, so every call has mistakes.
struct Deaf(RulesEngine);

#[async_trait::async_trait]
impl callscope_analysis::engine::Analyzer for Deaf {
    fn model_used(&self) -> String {
        "rules".into()
    }

    async fn analyze(
        &self,
        input: &callscope_analysis::engine::AnalysisInput,
    ) -> Result<callscope_analysis::engine::CallAnalysis, callscope_analysis::engine::AnalysisError> {
        let mut empty = input.clone();
        empty.turns.clear();
        Ok(self.0.run(&empty))
    }
}

#[tokio::test]
async fn the_heldout_corpus_keeps_its_split_and_never_shows_its_mistakes() {
    use callscope_analysis::quality::{evaluate_parts, HELDOUT, TUNE};

    let deaf = Deaf(RulesEngine::new(Default::default(), Default::default()));
    let parts = evaluate_parts(&deaf, include_str!("../corpus/heldout.json")).await.unwrap();
    let shape: Vec<(&str, &str, usize)> = parts.iter().map(|(p, r)| (p.language.as_str(), p.split.as_str(), r.calls)).collect();
    assert_eq!(shape, [("en", HELDOUT, 10), ("en", TUNE, 10), ("pl", HELDOUT, 10), ("pl", TUNE, 10)]);
    for (part, report) in &parts {
        assert!(report.titles.of == report.calls && report.facts.of >= 3 * report.calls, "{part:?} is fully annotated");
        if part.split == HELDOUT {
            assert!(report.mistakes.is_empty() && report.hidden_mistakes > 0, "held-out mistakes are counted, never shown: {part:?}");
        } else {
            assert!(!report.mistakes.is_empty() && report.hidden_mistakes == 0, "tuning mistakes are shown: {part:?}");
        }
    }
}

#[tokio::test]
async fn the_second_heldout_corpus_is_held_out_whole_with_two_trees_and_its_own_dates() {
    use callscope_analysis::quality::{evaluate_parts, HELDOUT2};

    let deaf = Deaf(RulesEngine::new(Default::default(), Default::default()));
    let parts = evaluate_parts(&deaf, include_str!("../corpus/heldout-2.json")).await.unwrap();
    let shape: Vec<(&str, &str, usize)> = parts.iter().map(|(p, r)| (p.language.as_str(), p.split.as_str(), r.calls)).collect();
    assert_eq!(shape, [("en", HELDOUT2, 52), ("pl", HELDOUT2, 52)]);
    for (part, report) in &parts {
        assert!(report.mistakes.is_empty() && report.hidden_mistakes > 0, "held-out mistakes are counted, never shown: {part:?}");
        // At least a third of the calls have no item: the deaf engine leaves them all clean.
        assert!(report.clean.of * 3 >= report.calls && report.clean.hits == report.clean.of, "{part:?}: {:?}", report.clean);
        assert!(report.deadlines_of_all.of > 0 && report.deadlines_of_matched.of == 0, "nothing matched, every deadline missed: {part:?}");
    }
}
