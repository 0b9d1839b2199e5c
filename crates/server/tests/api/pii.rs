//! Personal data in a processed call (real tiny.en Whisper, real gazetteers): counted per type,
//! located with timing, and masked everywhere the transcript is stored when the project says
//! `piiRedaction: mask`.

use callscope_domain::{CallId, CallTranscript, ProjectId};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, spoken_call, TestApp};

both_backends!(personal_data_is_counted_and_masked_when_the_project_asks);

/// Uploads `call` into `project`, waits for it, and returns the stored transcript and the
/// stored audio's bytes.
async fn process(app: &TestApp, project: &Value, call: Vec<u8>) -> (CallTranscript, Vec<u8>, CallId) {
    let project_id = project["id"].as_str().unwrap();
    let job = app.upload_and_wait(project_id, "channel_roles=agent,customer", "call.wav", call).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");
    let call_id = job["transcriptId"].as_str().unwrap();
    let audio = app.get(&format!("/v1/projects/{project_id}/calls/{call_id}/audio/content")).await;
    assert_eq!(audio.status(), 200);
    let audio = audio.bytes().await.unwrap().to_vec();
    let call_id = CallId(call_id.parse().unwrap());
    (app.store.get_call_transcript(ProjectId(project_id.parse().unwrap()), call_id).await.unwrap(), audio, call_id)
}

fn longest_digit_run(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit() && !matches!(c, ' ' | '-' | ','))
        .map(|s| s.chars().filter(char::is_ascii_digit).count())
        .max()
        .unwrap_or(0)
}

async fn personal_data_is_counted_and_masked_when_the_project_asks(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.pii_redact_audio = true;
    })
    .await;
    let call = spoken_call(
        2,
        &[
            (0, "en-us", "Thank you for calling. Can I have your name and phone number, please?"),
            (1, "en-gb", "My name is John Smith. My phone number is two one two, five five five, zero one four seven."),
        ],
    );
    let plain = app.create_project("Plain").await;
    let masked: Value = app.post_json("/v1/projects", &json!({"name": "Masked", "piiRedaction": "mask"})).await.json().await.unwrap();

    let (kept, kept_audio, _) = process(&app, &plain, call.clone()).await;
    assert_eq!(kept_audio, call, "without masking the upload is kept as it came");
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

    let (hidden, hidden_audio, hidden_call) = process(&app, &masked, call).await;
    assert_eq!(hidden.pii_statistics, kept.pii_statistics, "masking changes what is stored, not what is found");
    assert!(hidden.full_text.contains("[PERSON_NAME]") && hidden.full_text.contains("[PHONE_NUMBER]"), "{:?}", hidden.full_text);
    for text in std::iter::once(&hidden.full_text).chain(hidden.turns.iter().map(|t| &t.text)).chain(hidden.words.iter().map(|w| &w.text)) {
        assert!(!text.contains("Smith") && !text.contains("John"), "{text:?}");
        assert!(longest_digit_run(text) < 7, "{text:?}");
    }
    assert!(hidden.words.iter().any(|w| w.text == "[PHONE_NUMBER]"), "masked words keep their timing and show the type");
    // What the call page reads: the words in time order with their speakers, and the spans'
    // types and times but never their values.
    let words: Value = app.get(&format!("/v1/projects/{}/calls/{}/words", masked["id"].as_str().unwrap(), hidden_call.0)).await.json().await.unwrap();
    let listed = words["words"].as_array().unwrap();
    assert_eq!(listed.len(), hidden.words.len());
    assert!(listed.windows(2).all(|w| w[0]["startMs"].as_i64() <= w[1]["startMs"].as_i64()), "in time order");
    assert!(listed.iter().any(|w| w["text"] == "[PHONE_NUMBER]" && w["speakerId"] == "speaker_2"), "{words}");
    let said: Vec<&str> = listed.iter().map(|w| w["text"].as_str().unwrap()).collect();
    assert!(!said.contains(&"Smith") && longest_digit_run(&said.join(" ")) < 7, "{said:?}");
    let spans = words["piiSpans"].as_array().unwrap();
    assert_eq!(spans.len(), hidden.pii_spans.len());
    assert!(spans.iter().any(|s| s["type"] == "PHONE_NUMBER" && s["turn"] == 1 && s["startMs"].as_i64() < s["endMs"].as_i64()), "{words}");
    // Analysis reads the masked transcript: the summary and title carry no values either.
    let analysis = app.store.get_call_analysis(ProjectId(masked["id"].as_str().unwrap().parse().unwrap()), hidden_call).await.unwrap();
    let summary = serde_json::to_value(analysis.summary.unwrap()).unwrap();
    let stored = format!(
        "{} | {} | {} | {}",
        analysis.title.unwrap_or_default(),
        summary["summary"]["executiveSummary"],
        summary["summary"]["keyDiscussionPoints"],
        summary["sentiment"]["evidence"]
    );
    assert!(!stored.contains("Smith") && !stored.contains("John") && longest_digit_run(&stored) < 7, "{stored}");

    // The stored audio is the call at 16 kHz with every span silent on both channels, and the
    // speech around them left as it was.
    let mut reader = hound::WavReader::new(std::io::Cursor::new(hidden_audio)).unwrap();
    assert_eq!((reader.spec().sample_rate, reader.spec().channels), (16_000, 2));
    let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let frame = |ms: i64| usize::try_from(ms * 16).unwrap() * 2;
    for span in &hidden.pii_spans {
        assert!(samples[frame(span.start_ms)..frame(span.end_ms)].iter().all(|&s| s == 0), "{span:?} is silent");
    }
    let mut spans = hidden.pii_spans.clone();
    spans.sort_by_key(|s| s.start_ms);
    let (name, phone) = (&spans[0], &spans[1]);
    assert!(phone.start_ms - name.end_ms > 800, "{spans:?}");
    let between = &samples[frame(name.end_ms + 300)..frame(phone.start_ms - 300)];
    assert!(between.iter().skip(1).step_by(2).any(|&s| s.abs() > 1000), "\"my phone number is\" is still there");
    let stored = app.stored_files();
    assert_eq!(stored.len(), 2, "the plain call's upload and the masked call's redacted copy: {stored:?}");
    assert_eq!(stored.iter().filter(|f| f.to_string_lossy().ends_with(".redacted.wav")).count(), 1, "{stored:?}");

    // Had the original outlived its redaction (its deletion failed, or the worker stopped right
    // after completing), erasing the call still takes it.
    let redacted = stored.iter().find(|f| f.to_string_lossy().ends_with(".redacted.wav")).unwrap();
    // The copy is `<upload key>.<nonce>.redacted.wav`, beside the upload.
    let redacted = redacted.to_string_lossy();
    let original = format!("{}.wav", &redacted[..redacted.find(".wav.").unwrap()]);
    std::fs::write(&original, b"the unredacted upload").unwrap();
    let erased = app
        .request(reqwest::Method::DELETE, &format!("/v1/projects/{}/calls/{}", masked["id"].as_str().unwrap(), hidden_call.0))
        .send()
        .await
        .unwrap();
    assert_eq!(erased.status(), 204);
    let left = app.stored_files();
    assert_eq!(left.len(), 1, "only the plain call's upload: {left:?}");
    assert!(!left.iter().any(|f| f.to_string_lossy().contains(".redacted") || f.to_string_lossy() == original), "{left:?}");
}
