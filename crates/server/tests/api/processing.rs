//! Jobs run by in-process workers (with the real tiny.en Whisper model): completion creates the
//! call with its transcript, bad input fails at once with a message a person can act on, and
//! each outcome leaves its event in the outbox.

use callscope_domain::ProjectId;
use callscope_store::Backend;
use serde_json::Value;

use crate::helpers::{broken_wav, spawn_app_with, spoken_call, wav_bytes, TestApp};

both_backends!(
    a_stereo_upload_completes_into_a_call,
    a_stereo_call_is_transcribed_per_channel_with_each_sentence_on_its_speaker,
    a_mono_call_takes_its_speaker_names_from_the_default_preset,
    bad_audio_fails_at_once_with_a_reason,
    a_role_count_that_does_not_match_the_channels_fails,
    audio_over_the_duration_limit_fails,
    a_failed_job_is_deleted_with_its_audio_and_its_event,
    a_failed_reanalysis_is_deleted_and_its_call_keeps_its_audio,
);

async fn app_with_worker(backend: Backend, adjust: impl FnOnce(&mut callscope::Config)) -> TestApp {
    spawn_app_with(backend, |c| {
        adjust(c);
    })
    .await
}

async fn events(app: &TestApp, project: &str) -> Vec<(String, Value)> {
    app.store.list_events(ProjectId(project.parse().unwrap())).await.unwrap()
}

async fn a_stereo_upload_completes_into_a_call(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let accepted: Value = app
        .upload(project_id, "channel_roles=agent,customer&recorded_at=2026-11-20T09:30:00Z", "call.wav", wav_bytes(8_000, 2, 3.0))
        .await
        .json()
        .await
        .unwrap();
    let job = app.wait_for_job(project_id, accepted["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");
    assert_eq!(job["stage"], "DONE");
    assert_eq!(job["progress"], 1.0);
    assert_eq!(job["attempts"], 1);
    assert_eq!(job["errorMessage"], Value::Null);
    assert!(job["startedAt"].is_string() && job["completedAt"].is_string());
    let call_id = job["transcriptId"].as_str().expect("a completed job names its call");

    let calls = app.sql_strings("select filename || '|' || language || '|' || cast(channels as text) || '|' || codec from calls").await;
    assert_eq!(calls, ["call.wav|en|2|pcm_s16le"]);
    let events = events(&app, project_id).await;
    assert_eq!(events.len(), 1);
    let (kind, data) = &events[0];
    assert_eq!(kind, "call.completed");
    assert_eq!(data["id"], call_id);
    assert_eq!(data["jobId"], accepted["jobId"]);
    assert_eq!(data["durationS"], 3.0);
    assert_eq!(data["filename"], "call.wav");
    assert_eq!(data["recordedAt"], "2026-11-20T09:30:00.000Z", "when the call took place, as the upload said");
    // A completed upload is a duplicate that names its call.
    let again: Value = app.upload(project_id, "", "again.wav", wav_bytes(8_000, 2, 3.0)).await.json().await.unwrap();
    assert_eq!(again["existingJobId"], accepted["jobId"]);
    assert_eq!(again["transcriptId"], call_id);
}

async fn a_stereo_call_is_transcribed_per_channel_with_each_sentence_on_its_speaker(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let call = spoken_call(
        2,
        &[
            (0, "en-us", "Good morning, thank you for calling. How can I help you?"),
            (1, "en-gb", "I would like to cancel my subscription, please."),
            (0, "en-us", "Of course. I will send you a confirmation email today."),
        ],
    );
    let (project, call_id) = app.process_call(project_id, "channel_roles=agent,customer", "call.wav", call).await;
    let transcript = app.store.get_call_transcript(project, call_id).await.unwrap();

    let turns: Vec<(&str, String)> = transcript.turns.iter().map(|t| (t.speaker_id.as_str(), t.text.to_lowercase())).collect();
    assert_eq!(turns.len(), 3, "{turns:?}");
    assert_eq!(turns[0].0, "speaker_1");
    assert!(turns[0].1.contains("morning") && turns[0].1.contains("help"), "{turns:?}");
    assert_eq!(turns[1].0, "speaker_2");
    assert!(turns[1].1.contains("cancel") && turns[1].1.contains("subscription"), "{turns:?}");
    assert_eq!(turns[2].0, "speaker_1");
    assert!(turns[2].1.contains("confirmation"), "{turns:?}");
    for pair in transcript.turns.windows(2) {
        assert!(pair[0].end_ms <= pair[1].start_ms + 200, "turns in time order: {pair:?}");
    }
    let names: Vec<&str> = transcript.speakers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["agent", "customer"]);
    let agent = &transcript.speakers[0];
    assert_eq!(agent.turn_count, 2);
    assert!(agent.word_count >= 15, "{agent:?}");
    let ratios: f64 = transcript.speakers.iter().map(|s| s.talk_ratio).sum();
    assert!((ratios - 1.0).abs() < 0.01, "{:?}", transcript.speakers);
    assert!(agent.talk_ratio > transcript.speakers[1].talk_ratio, "the agent spoke longer");
    assert_eq!(transcript.full_text.lines().count(), 3);
    assert_eq!(transcript.speech_model.as_deref(), Some("whisper-tiny.en"));
    assert!(transcript.words.iter().all(|w| w.start_ms < w.end_ms));
}

async fn a_mono_call_takes_its_speaker_names_from_the_default_preset(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let preset = serde_json::json!({"name": "Front desk", "speakers": ["Receptionist", "Caller"]});
    let created: Value = app.post_json(&format!("/v1/projects/{project_id}/speaker-presets"), &preset).await.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let made_default = app.request(reqwest::Method::PATCH, &format!("/v1/projects/{project_id}/speaker-presets/{id}/default")).send().await.unwrap();
    assert_eq!(made_default.status(), 200);
    let call = spoken_call(1, &[(0, "en-us", "Hello, this is the front desk. Your table is ready.")]);
    let (project, call_id) = app.process_call(project_id, "", "desk.wav", call).await;
    let transcript = app.store.get_call_transcript(project, call_id).await.unwrap();
    assert!(transcript.full_text.to_lowercase().contains("table is ready"), "{transcript:?}");
    assert_eq!(transcript.speakers.len(), 1, "one voice: {:?}", transcript.speakers);
    assert_eq!(transcript.speakers[0].name, "Receptionist");
    assert_eq!(transcript.speakers[0].talk_ratio, 1.0);
}

async fn bad_audio_fails_at_once_with_a_reason(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    // A WAV header that promises PCM, followed by something else entirely.
    let bytes = broken_wav(0xA5, 4096);
    let accepted: Value = app.upload(project_id, "", "broken.wav", bytes.clone()).await.json().await.unwrap();
    let job = app.wait_for_job(project_id, accepted["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "FAILED", "{job}");
    assert_eq!(job["attempts"], 1, "bad input is not retried");
    assert!(job["errorMessage"].as_str().unwrap().contains("not audio"), "{job}");
    assert_eq!(job["transcriptId"], Value::Null);
    let events = events(&app, project_id).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].0, "call.failed");
    assert_eq!(events[0].1["jobId"], accepted["jobId"]);
    assert_eq!(events[0].1["status"], "FAILED");
    assert_eq!(events[0].1["errorMessage"], job["errorMessage"]);
    assert_eq!(app.upload(project_id, "", "broken.wav", bytes).await.status(), 202, "a failed upload may be sent again");
}

async fn a_role_count_that_does_not_match_the_channels_fails(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let job = app.upload_and_wait(project_id, "channel_roles=agent,customer", "mono.wav", wav_bytes(8_000, 1, 1.0)).await;
    assert_eq!(job["status"], "FAILED");
    assert_eq!(job["errorMessage"], "channel_roles names 2 roles but the file has 1 channel");
}

async fn audio_over_the_duration_limit_fails(backend: Backend) {
    let app = app_with_worker(backend, |c| c.max_audio_duration_seconds = 2.0).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let job = app.upload_and_wait(project_id, "", "long.wav", wav_bytes(8_000, 1, 3.0)).await;
    assert_eq!(job["status"], "FAILED");
    assert!(job["errorMessage"].as_str().unwrap().contains("over the limit of 2 s"), "{job}");
}

async fn a_failed_job_is_deleted_with_its_audio_and_its_event(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let failed = app.upload_and_wait(project_id, "", "jan-kowalski-complaint.wav", broken_wav(0x5A, 2048)).await;
    assert_eq!(failed["status"], "FAILED");
    let path = format!("/v1/projects/{project_id}/calls/jobs/{}", failed["jobId"].as_str().unwrap());
    let audio = app.config.data_dir.join("audio").join(failed["storagePath"].as_str().unwrap());
    assert!(audio.exists());
    assert_eq!(events(&app, project_id).await.len(), 1);

    // A job that has not failed is not deleted on its own.
    let pending: Value = app.upload(project_id, "", "later.wav", wav_bytes(8_000, 1, 0.5)).await.json().await.unwrap();
    let pending_path = format!("/v1/projects/{project_id}/calls/jobs/{}", pending["jobId"].as_str().unwrap());
    let problem =
        crate::helpers::assert_problem(app.request(reqwest::Method::DELETE, &pending_path).send().await.unwrap(), 409, "job_not_failed").await;
    assert!(problem["detail"].as_str().unwrap().contains("PENDING"), "{problem}");

    assert_eq!(app.request(reqwest::Method::DELETE, &path).send().await.unwrap().status(), 204);
    assert!(!audio.exists(), "the audio is gone");
    crate::helpers::assert_problem(app.get(&path).await, 404, "not_found").await;
    assert!(events(&app, project_id).await.is_empty(), "and the call.failed event that named the file");
    crate::helpers::assert_problem(app.request(reqwest::Method::DELETE, &path).send().await.unwrap(), 404, "not_found").await;
}

async fn a_failed_reanalysis_is_deleted_and_its_call_keeps_its_audio(backend: Backend) {
    let app = app_with_worker(backend, |_| {}).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let (_, call) = app.process_call(project_id, "", "call.wav", wav_bytes(8_000, 1, 0.8)).await;
    // A re-analysis with a template deleted before it runs fails for good: a job that names its
    // call's audio.
    let template = serde_json::json!({"name": "T", "fields": [{"label": "Ok", "prompt": "Was it ok?", "answerType": "BOOLEAN"}]});
    let template: Value = app.post_json(&format!("/v1/projects/{project_id}/analysis-templates"), &template).await.json().await.unwrap();
    let job: Value = app
        .post_json(&format!("/v1/projects/{project_id}/calls/{}/reanalyze", call.0), &serde_json::json!({"templateId": template["id"]}))
        .await
        .json()
        .await
        .unwrap();
    let template_path = format!("/v1/projects/{project_id}/analysis-templates/{}", template["id"].as_str().unwrap());
    assert_eq!(app.request(reqwest::Method::DELETE, &template_path).send().await.unwrap().status(), 204);
    let failed = app.wait_for_job(project_id, job["jobId"].as_str().unwrap()).await;
    assert_eq!(failed["status"], "FAILED", "{failed}");

    let path = format!("/v1/projects/{project_id}/calls/jobs/{}", failed["jobId"].as_str().unwrap());
    assert_eq!(app.request(reqwest::Method::DELETE, &path).send().await.unwrap().status(), 204);
    let audio = app.get(&format!("/v1/projects/{project_id}/calls/{}/audio/content", call.0)).await;
    assert_eq!(audio.status(), 200, "the call's audio is the call's, not the re-analysis job's to delete");
}
