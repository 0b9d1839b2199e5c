//! Property tests: every helper that reads transcript or model text (dates, numbers, personal
//! data, sentences, the rules engine as a whole) answers any text at any call date without a
//! panic. A panic there once stopped a worker for good ("by March 300000").

use std::sync::Arc;

use callscope_analysis::classify::CategoryInfo;
use callscope_analysis::engine::{AnalysisInput, Lang, RulesEngine, TemplateSpec};
use callscope_analysis::template::Question;
use callscope_analysis::text::{fold, is_non_answer, sentences, stems};
use callscope_domain::CategoryId;
use callscope_pii::{mask, Detector, Gazetteer};
use chrono::{Datelike, NaiveDate, TimeZone, Utc};
use proptest::prelude::*;

/// Words that steer the helpers into their date, number and PII paths, with numbers past every
/// range, and characters whose lower case is longer than they are.
const TOKENS: &[&str] = &[
    "by", "the", "of", "next", "end", "month", "week", "weekend", "year", "within", "in", "a", "za", "do", "końca", "w", "ciągu", "March",
    "December", "Jan", "may", "maja", "grudnia", "stycznia", "300000", "262143", "2147483647", "99999999999999999999", "31st", "0", "29.02",
    "31.12.99999", "2026-02-30", "12/13/2027", "9999-12-31", "Friday", "piątek", "tomorrow", "jutro", "today", "days", "business", "working", "dni",
    "roboczych", "fourteen", "thirty", "@", "jan.kowalski@example.com", "+48", "600", "700", "800", "PL61", "1090", "1014", "0000", "0712", "1981",
    "4111", "1111", "card", "PESEL", "numer", "phone", "free", "one", "two", "time", "oh", "double", "triple", "hundred", "tysiąc", "ul.",
    "Marszałkowska", "00-950", "Kowalski", "Anna", "İ", "ẞ", "ǅ", "\u{301}", "🙂", "\n", ".", "?", ",", "-", "/", ":", "–", "null", "N/A", "\"\"",
];

fn tricky_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        6 => prop::sample::select(TOKENS).prop_map(str::to_owned),
        1 => any::<String>(),
        1 => "[0-9 ./-]{1,24}",
    ];
    let separator = prop::sample::select(&[" ", " ", " ", "", ", ", "\n"][..]);
    prop::collection::vec((token, separator), 0..40).prop_map(|parts| parts.into_iter().map(|(t, s)| t + s).collect())
}

/// Any day chrono knows, the first and the last among them.
fn any_day() -> impl Strategy<Value = NaiveDate> {
    prop_oneof![
        Just(NaiveDate::MIN),
        Just(NaiveDate::MAX),
        (NaiveDate::MIN.num_days_from_ce()..=NaiveDate::MAX.num_days_from_ce())
            .prop_map(|days| NaiveDate::from_num_days_from_ce_opt(days).expect("in range")),
        (2000i32..2100, 1u32..=12, 1u32..=28).prop_map(|(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).expect("a real day")),
    ]
}

fn engine_input(turns: Vec<String>, day: NaiveDate, language: Lang) -> AnalysisInput {
    let billing = CategoryId::new();
    let categories = vec![
        CategoryInfo { id: billing, parent: None, name: "Billing".into(), description: Some("invoices, refunds".into()) },
        CategoryInfo { id: CategoryId::new(), parent: Some(billing), name: "Refunds".into(), description: None },
        CategoryInfo { id: CategoryId::new(), parent: None, name: "Awarie".into(), description: Some("brak internetu".into()) },
    ];
    let question = |label: &str, answer_type: &str, options: &[&str]| Question {
        label: label.into(),
        prompt: format!("{label}?"),
        answer_type: answer_type.parse().expect("an answer type"),
        options: options.iter().map(|&o| o.to_owned()).collect(),
    };
    let template = TemplateSpec {
        name: "QA".into(),
        questions: vec![
            question("Amount", "NUMBER", &[]),
            question("Resolved", "BOOLEAN", &[]),
            question("Date", "DATE", &[]),
            question("Notes", "TEXT", &[]),
            question("Device", "SINGLE_CHOICE", &["Router", "Phone"]),
            question("Topics", "MULTI_CHOICE", &["Billing", "Outage"]),
        ],
    };
    let speakers = ["agent", "customer"];
    AnalysisInput {
        turns: turns.into_iter().enumerate().map(|(i, text)| (speakers[i % 2].to_owned(), text)).collect(),
        language,
        call_date: Utc.from_utc_datetime(&day.and_hms_opt(12, 0, 0).expect("noon")),
        time_zone: chrono_tz::UTC,
        categories,
        template: Some(template),
    }
}

// 256 cases each by default; PROPTEST_CASES=20000 sweeps harder.
proptest! {
    #[test]
    fn deadlines_resolve_or_not_without_a_panic(text in tricky_text(), day in any_day()) {
        for found in callscope_text::deadlines(&text) {
            prop_assert!(text.is_char_boundary(found.start) && text.is_char_boundary(found.end) && found.start < found.end);
            let _ = found.expression.resolve(day.and_hms_opt(0, 0, 0).expect("midnight"));
        }
        let _ = callscope_text::normalise(&text);
    }

    #[test]
    fn text_helpers_take_any_text(text in tricky_text()) {
        let _ = fold(&text);
        let _ = stems(&text);
        for sentence in sentences(&text) {
            prop_assert!(!sentence.is_empty() && text.contains(sentence));
        }
        let _ = is_non_answer(&text);
    }

    #[test]
    fn the_rules_engine_analyses_any_transcript(turns in prop::collection::vec(tricky_text(), 0..6), day in any_day(), polish in any::<bool>()) {
        let engine = RulesEngine::new(Arc::default(), Arc::default());
        let input = engine_input(turns, day, if polish { Lang::Pl } else { Lang::En });
        let analysis = engine.run(&input).without_non_answers();
        for action in &analysis.actions {
            prop_assert!(!is_non_answer(&action.description), "{action:?}");
            prop_assert!(action.deadline_mentioned.as_deref().is_none_or(|d| !is_non_answer(d)), "{action:?}");
        }
        let _ = analysis.classification_record();
        let _ = analysis.template_record(input.call_date);
        let _ = serde_json::to_value(analysis.summary_record());
    }

    #[test]
    fn personal_data_is_found_on_char_boundaries_in_any_text(text in tricky_text(), polish in any::<bool>()) {
        let gazetteer = Gazetteer::from_lists("Jan\nAnna\nJohn\n", "Kowalski\nNowak\nSmith\n", "may\nwill\n");
        let detector = Detector::new(Arc::new(gazetteer));
        let lang = if polish { callscope_pii::Lang::Pl } else { callscope_pii::Lang::En };
        let found = detector.detect(&text, lang);
        for entity in &found {
            prop_assert!(entity.start < entity.end && entity.end <= text.len(), "{entity:?} in {text:?}");
            prop_assert!(text.is_char_boundary(entity.start) && text.is_char_boundary(entity.end), "{entity:?} in {text:?}");
        }
        let _ = mask(&text, &found);
    }
}

#[test]
fn the_deadlines_that_once_panicked_are_no_deadline() {
    let resolve = |text: &str, day: NaiveDate| -> Vec<Option<NaiveDate>> {
        callscope_text::deadlines(text).into_iter().map(|d| d.expression.resolve(day.and_hms_opt(12, 0, 0).expect("noon"))).collect()
    };
    let day = NaiveDate::from_ymd_opt(2026, 11, 18).unwrap();
    for text in [
        "by March 300000", "December 262143", "December 2147483647", "in December 262142", "31.12.262143", "next month", "tomorrow",
        "within 99999999 hours",
    ] {
        let _ = resolve(text, NaiveDate::MAX);
        let _ = resolve(text, NaiveDate::MIN);
    }
    assert!(resolve("by March 300000", day).iter().all(Option::is_none));
    assert!(resolve("December 262143", day).iter().all(Option::is_none), "past the calendar");
    assert_eq!(resolve("tomorrow", NaiveDate::MAX), [None], "no day after the last");
    assert_eq!(resolve("by the end of December 2026", day), [NaiveDate::from_ymd_opt(2026, 12, 31)], "a real year still resolves");
}
