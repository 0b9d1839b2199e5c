//! Personal data in a processed call (real tiny.en Whisper, real gazetteers): counted per type,
//! located with timing, and masked everywhere the transcript is stored when the project says
//! `piiRedaction: mask`.

use callscope_domain::{CallId, ProjectId};
use callscope_store::{Backend, CallTranscript};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, spoken_call, TestApp};

both_backends!(personal_data_is_counted_and_masked_when_the_project_asks);

async fn process(app: &TestApp, project: &Value, call: Vec<u8>) -> CallTranscript {
    let project_id = project["id"].as_str().unwrap();
    let accepted: Value = app.upload(project_id, "channel_roles=agent,customer", "call.wav", call).await.json().await.unwrap();
    let job = app.wait_for_job(project_id, accepted["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");
    let call_id = CallId(job["transcriptId"].as_str().unwrap().parse().unwrap());
    app.store.get_call_transcript(ProjectId(project_id.parse().unwrap()), call_id).await.unwrap()
}

fn longest_digit_run(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit() && !matches!(c, ' ' | '-' | ',')).map(|s| s.chars().filter(char::is_ascii_digit).count()).max().unwrap_or(0)
}

async fn personal_data_is_counted_and_masked_when_the_project_asks(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.workers = 1).await;
    let call = spoken_call(
        2,
        &[
            (0, "en-us", "Thank you for calling. Can I have your name and phone number, please?"),
            (1, "en-gb", "My name is John Smith. My phone number is two one two, five five five, zero one four seven."),
        ],
    );
    let plain = app.create_project("Plain").await;
    let masked: Value = app.post_json("/v1/projects", &json!({"name": "Masked", "piiRedaction": "mask"})).await.json().await.unwrap();

    let kept = process(&app, &plain, call.clone()).await;
    let stats = &kept.pii_statistics;
    assert_eq!(stats.types.get("PERSON_NAME"), Some(&1), "{stats:?} in {:?}", kept.full_text);
    assert_eq!(stats.types.get("PHONE_NUMBER"), Some(&1), "{stats:?} in {:?}", kept.full_text);
    assert_eq!(stats.total_detected, stats.types.values().sum::<i64>());
    assert!(kept.full_text.contains("John Smith"), "without masking the transcript keeps the values");
    // Spans point into the customer's turn, with the time the words were said.
    let customer = &kept.turns[1];
    for span in &kept.pii_spans {
        assert_eq!(span.turn, 1, "{span:?}");
        let value: String = customer.text.chars().skip(span.start).take(span.end - span.start).collect();
        assert!(!value.is_empty() && value.chars().any(char::is_alphanumeric), "{span:?} → {value:?}");
        assert!(span.start_ms >= customer.start_ms && span.end_ms <= customer.end_ms && span.start_ms < span.end_ms, "{span:?}");
    }

    let hidden = process(&app, &masked, call).await;
    assert_eq!(hidden.pii_statistics, kept.pii_statistics, "masking changes what is stored, not what is found");
    assert!(hidden.full_text.contains("[PERSON_NAME]") && hidden.full_text.contains("[PHONE_NUMBER]"), "{:?}", hidden.full_text);
    for text in std::iter::once(&hidden.full_text).chain(hidden.turns.iter().map(|t| &t.text)).chain(hidden.words.iter().map(|w| &w.text)) {
        assert!(!text.contains("Smith") && !text.contains("John"), "{text:?}");
        assert!(longest_digit_run(text) < 7, "{text:?}");
    }
    assert!(hidden.words.iter().any(|w| w.text == "[PHONE_NUMBER]"), "masked words keep their timing and show the type");
}
