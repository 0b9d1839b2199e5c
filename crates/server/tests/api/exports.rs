//! Calls as files: the transcript as plain text, SubRip and WebVTT, with the speakers' names.

use callscope_domain::{Language, ProjectId, SpeakerStats, TimedWord};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;

use crate::helpers::{assert_problem, spawn_app};

both_backends!(a_transcript_downloads_as_text_and_subtitles_with_the_speakers_names);

async fn a_transcript_downloads_as_text_and_subtitles_with_the_speakers_names(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Exports").await["id"].as_str().unwrap().to_owned();
    let mut call = text_call(Language::Pl, "Zwrot", "Dzień dobry, w czym mogę pomóc?\nChcę zwrotu za fakturę.", "Klient chce zwrotu.");
    call.transcript.speakers = vec![
        SpeakerStats {
            speaker_id: "speaker_1".into(),
            name: "Konsultant".into(),
            talk_ratio: 0.5,
            turn_count: 1,
            word_count: 6,
            total_duration_s: 2.0,
            role: None,
            role_confidence: None,
        },
        SpeakerStats {
            speaker_id: "speaker_2".into(),
            name: "Klient".into(),
            talk_ratio: 0.5,
            turn_count: 1,
            word_count: 4,
            total_duration_s: 2.0,
            role: None,
            role_confidence: None,
        },
    ];
    let word =
        |text: &str, start_ms: i64, speaker: usize| TimedWord { text: text.into(), start_ms, end_ms: start_ms + 300, speaker, confidence: Some(0.9) };
    call.transcript.words = "Dzień dobry, w czym mogę pomóc?"
        .split(' ')
        .enumerate()
        .map(|(i, w)| word(w, i as i64 * 350, 0))
        .chain("Chcę zwrotu za fakturę.".split(' ').enumerate().map(|(i, w)| word(w, 5_000 + i as i64 * 350, 1)))
        .collect();
    let id = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await;
    let base = format!("/v1/projects/{project}/calls/{id}/transcript");

    let text = app.get(&base).await;
    assert_eq!(text.status(), 200);
    assert_eq!(text.headers()["content-type"], "text/plain; charset=utf-8");
    assert_eq!(text.headers()["content-disposition"], format!("attachment; filename=\"{id}.txt\"").as_str());
    assert_eq!(text.text().await.unwrap(), "[00:00:00] Konsultant: Dzień dobry, w czym mogę pomóc?\n[00:00:05] Klient: Chcę zwrotu za fakturę.\n");

    let srt = app.get(&format!("{base}?format=srt")).await;
    assert_eq!(srt.headers()["content-type"], "application/x-subrip; charset=utf-8");
    assert_eq!(
        srt.text().await.unwrap(),
        "1\n00:00:00,000 --> 00:00:02,050\nKonsultant: Dzień dobry, w czym mogę pomóc?\n\n2\n00:00:05,000 --> 00:00:06,350\nKlient: Chcę zwrotu za fakturę.\n\n"
    );
    let vtt = app.get(&format!("{base}?format=VTT")).await;
    assert_eq!(vtt.headers()["content-type"], "text/vtt; charset=utf-8");
    assert!(vtt.text().await.unwrap().starts_with("WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.050\n<v Konsultant>Dzień dobry, w czym mogę pomóc?\n\n"));

    let problem = assert_problem(app.get(&format!("{base}?format=docx")).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "format", "{problem}");
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    assert_problem(app.get(&format!("/v1/projects/{other}/calls/{id}/transcript")).await, 404, "not_found").await;
}

both_backends!(the_calls_and_their_action_items_download_as_csv_a_spreadsheet_cannot_run);

async fn the_calls_and_their_action_items_download_as_csv_a_spreadsheet_cannot_run(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Exports").await["id"].as_str().unwrap().to_owned();
    let project_id = ProjectId(project.parse().unwrap());
    let english = store_call(app.store.as_ref(), project_id, &text_call(Language::En, "=HYPERLINK(\"http://x\")", "Hello.", "A call.")).await;
    let polish = store_call(app.store.as_ref(), project_id, &text_call(Language::Pl, "Zwrot, szybko", "Dzień dobry.", "Rozmowa.")).await;
    let base = format!("/v1/projects/{project}");

    let calls = app.get(&format!("{base}/calls/export")).await;
    assert_eq!(calls.status(), 200);
    assert_eq!(calls.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(calls.headers()["content-disposition"], "attachment; filename=\"calls.csv\"");
    let csv = calls.text().await.unwrap();
    let rows: Vec<&str> = csv.split("\r\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(
        rows[0],
        "id,createdAt,filename,language,durationS,title,sentimentLevel,primaryCategory,actionItemsCount,nonTalkS,longestNonTalkS,onHoldS,interruptions,wordsPerMinute,rules"
    );
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows[1].starts_with(&polish.to_string()) && rows[1].contains(",\"Zwrot, szybko\",neutral,,0"), "newest first, quoted: {csv}");
    assert!(rows[2].starts_with(&english.to_string()) && rows[2].contains(",\"'=HYPERLINK(\"\"http://x\"\")\","), "no formula: {csv}");
    let polish_only = app.get(&format!("{base}/calls/export?language=pl")).await.text().await.unwrap();
    assert_eq!(polish_only.split("\r\n").filter(|r| !r.is_empty()).count(), 2, "{polish_only}");
    assert_problem(app.get(&format!("{base}/calls/export?sentimentLevel=furious")).await, 422, "validation_failed").await;

    let added = app.post_json(&format!("{base}/calls/{english}/action-items"), &serde_json::json!({"description": "=cmd|' /C calc'!A0"})).await;
    assert_eq!(added.status(), 201);
    let items = app.get(&format!("{base}/action-items/export")).await;
    assert_eq!(items.headers()["content-disposition"], "attachment; filename=\"action-items.csv\"");
    let csv = items.text().await.unwrap();
    let rows: Vec<&str> = csv.split("\r\n").filter(|r| !r.is_empty()).collect();
    assert!(rows[0].starts_with("id,transcriptId,callFilename,callDate,description,responsibleParty,"), "{csv}");
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(rows[1].contains(&format!(",{english},")) && rows[1].contains(",'=cmd|' /C calc'!A0,"), "{csv}");
    let done = app.get(&format!("{base}/action-items/export?status=DONE")).await.text().await.unwrap();
    assert_eq!(done.split("\r\n").filter(|r| !r.is_empty()).count(), 1, "only the header: {done}");
    assert_problem(app.get(&format!("{base}/action-items/export?status=LATE")).await, 422, "validation_failed").await;
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    let elsewhere = app.get(&format!("/v1/projects/{other}/calls/export")).await.text().await.unwrap();
    assert_eq!(elsewhere.split("\r\n").filter(|r| !r.is_empty()).count(), 1, "another project's calls are not in its file");
}
