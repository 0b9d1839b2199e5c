//! The labeled corpus through the detector with the real gazetteers (installed by
//! `callscope models install --profile test`): the quality targets hold.

use std::path::PathBuf;
use std::sync::Arc;

use callscope_pii::corpus::{parse, score};
use callscope_pii::{Detector, Gazetteer, PiiType};

fn gazetteer_dir() -> PathBuf {
    let dir = std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, PathBuf::from).join("pii-gazetteers");
    assert!(dir.join(".installed").is_file(), "{} is missing: run `callscope models install --profile test`", dir.display());
    dir
}

#[test]
fn the_corpus_meets_the_precision_and_recall_targets() {
    let detector = Detector::new(Arc::new(Gazetteer::load(&gazetteer_dir()).unwrap()));
    let examples = parse(include_str!("../corpus/calls.txt")).unwrap();
    let s = score(&detector, &examples);
    assert!(s.total().gold >= 300, "the corpus holds at least 300 entities");
    let mut failures = Vec::new();
    for kind in PiiType::ALL {
        let c = s.by_type.get(&kind).copied().unwrap_or_default();
        assert!(c.gold > 0, "{kind:?} has examples in the corpus");
        let target = match kind {
            PiiType::Pesel | PiiType::Nip | PiiType::Regon | PiiType::Iban | PiiType::PaymentCard | PiiType::IdCard | PiiType::Passport => 0.95,
            _ => 0.85,
        };
        if c.precision() < target || c.recall() < target {
            failures.push(format!("{}: precision {:.3}, recall {:.3} (target {target})", kind.as_str(), c.precision(), c.recall()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}\nmistakes: {:#?}", s.misses);
}

#[test]
fn polish_inflected_names_come_from_the_lists() {
    let detector = Detector::new(Arc::new(Gazetteer::load(&gazetteer_dir()).unwrap()));
    let text = "Wczoraj rozmawiałam z Katarzyną Wiśniewską, a dziś przekażę sprawę Tomaszowi.";
    let found: Vec<&str> = detector.detect(text, callscope_pii::Lang::Pl).iter().map(|e| &text[e.start..e.end]).collect();
    assert_eq!(found, ["Katarzyną Wiśniewską", "Tomaszowi"]);
}
