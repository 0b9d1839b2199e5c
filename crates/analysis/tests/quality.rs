//! The rules engine on the scripted calls with the real lexicons: its measured figures (README)
//! do not regress.

use std::path::PathBuf;

use callscope_analysis::engine::RulesEngine;
use callscope_analysis::quality::evaluate;

#[tokio::test]
async fn the_rules_engine_keeps_its_figures_on_the_scripted_calls() {
    let dir = std::env::var_os("CALLSCOPE_TEST_MODELS_DIR")
        .map_or_else(callscope_models::default_dir, PathBuf::from)
        .join("sentiment-lexicons");
    assert!(dir.join(".installed").is_file(), "{} is missing: run `callscope models install --profile test`", dir.display());
    let report = evaluate(&RulesEngine::load(&dir).unwrap(), include_str!("../corpus/calls.json")).await.unwrap();
    assert_eq!((report.calls, report.actions_expected), (14, 14));
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
