//! The calls list (newest first, pages from 1, inclusive `from`/`to`, bounds checked), the
//! sentiment dashboard over the same calls, and erasing a call (audio, transcript, action
//! items, jobs), on real processed uploads.

use callscope_domain::{ActionItemId, ActionItemPriority, CategoryId, Language, NewActionItem, ProjectId, SentimentLevel};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, wav_bytes, TestApp};

both_backends!(calls_are_listed_newest_first_in_pages_within_inclusive_bounds);
both_backends!(a_deleted_call_is_gone_with_its_audio_and_jobs);
both_backends!(the_list_filters_by_sentiment_language_category_subtree_and_overdue_items);
both_backends!(the_detail_serves_each_speakers_sentiment_by_quarter_from_the_turns_scores);
both_backends!(speakers_are_renamed_and_swapped_at_once_and_their_items_follow);
both_backends!(a_call_shows_when_it_was_recorded_null_when_the_upload_did_not_say);

async fn speakers_are_renamed_and_swapped_at_once_and_their_items_follow(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Roles").await["id"].as_str().unwrap().to_owned();
    let mut call = text_call(Language::En, "Refund", "Hello, how can I help?\nI want my money back.", "");
    let speaker = |id: &str, name: &str| callscope_domain::SpeakerStats {
        speaker_id: id.into(),
        name: name.into(),
        talk_ratio: 0.5,
        turn_count: 1,
        word_count: 5,
        total_duration_s: 2.0,
        role: None,
        role_confidence: None,
    };
    // Diarization named them the wrong way round.
    call.transcript.speakers = vec![speaker("speaker_1", "customer"), speaker("speaker_2", "agent")];
    let id = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await;
    let base = format!("/v1/projects/{project}/calls/{id}");
    for (description, owner) in [("Send the refund", "customer"), ("Check the bank statement", "agent")] {
        let added = app.post_json(&format!("{base}/action-items"), &json!({"description": description, "responsibleParty": owner})).await;
        assert_eq!(added.status(), 201);
    }

    let swapped = app.put_json(&format!("{base}/speakers"), &json!({"names": {"speaker_1": "agent", "speaker_2": "customer"}})).await;
    assert_eq!(swapped.status(), 200);
    let detail: Value = swapped.json().await.unwrap();
    let names: Vec<&str> = detail["speakers"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["agent", "customer"]);
    let items = &detail["summary"]["actionItems"];
    let owner_of = |description: &str| {
        items.as_array().unwrap().iter().find(|i| i["description"] == description).map(|i| i["responsibleParty"].clone()).unwrap()
    };
    assert_eq!(owner_of("Send the refund"), "agent", "each item moved once: {items}");
    assert_eq!(owner_of("Check the bank statement"), "customer", "{items}");

    let problem =
        assert_problem(app.put_json(&format!("{base}/speakers"), &json!({"names": {"speaker_9": "Boss"}})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "names", "{problem}");
    let problem =
        assert_problem(app.put_json(&format!("{base}/speakers"), &json!({"names": {"speaker_1": "  "}})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "names.speaker_1", "{problem}");
    assert_problem(app.put_json(&format!("{base}/speakers"), &json!({"names": {}})).await, 422, "validation_failed").await;
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    let elsewhere = app.put_json(&format!("/v1/projects/{other}/calls/{id}/speakers"), &json!({"names": {"speaker_1": "x"}})).await;
    assert_problem(elsewhere, 404, "not_found").await;
}

async fn the_detail_serves_each_speakers_sentiment_by_quarter_from_the_turns_scores(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Moods").await["id"].as_str().unwrap().to_owned();
    // Two turns, at 0 s and 5 s of a 10-second call: the first and third quarters.
    let mut call = text_call(Language::En, "Refund", "Thanks, that's great.\nThis is terrible.", "");
    call.analysis.as_mut().unwrap().summary.as_mut().unwrap().sentiment.turn_scores = vec![Some(0.5), Some(-0.4)];
    let id = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{id}")).await.json().await.unwrap();
    assert_eq!(detail["summary"]["sentiment"]["turnScores"], json!([0.5, -0.4]));
    assert_eq!(
        detail["sentimentByQuarter"],
        json!([
            {"speakerId": "speaker_1", "quarters": [0.5, null, null, null]},
            {"speakerId": "speaker_2", "quarters": [null, null, -0.4, null]}
        ])
    );
    // A call analysed before turns were scored: no picture, and no field in its sentiment.
    let older = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &text_call(Language::En, "Old", "Hello.", "")).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{older}")).await.json().await.unwrap();
    assert_eq!(detail["sentimentByQuarter"], json!([]));
    assert!(detail["summary"]["sentiment"].get("turnScores").is_none(), "{}", detail["summary"]["sentiment"]);
}

/// Decisions §4: "The call shows it as `recordedAt` (null when not given)". The call page said
/// only when the file was uploaded, while its deadlines were counted from the day of the call.
async fn a_call_shows_when_it_was_recorded_null_when_the_upload_did_not_say(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Dates").await["id"].as_str().unwrap().to_owned();
    let in_project = ProjectId(project.parse().unwrap());
    let mut call = text_call(Language::En, "Recorded", "Hello.", "");
    call.recorded_at = Some("2026-11-20T08:30:00Z".parse().unwrap());
    let recorded = store_call(app.store.as_ref(), in_project, &call).await.to_string();
    let unknown = store_call(app.store.as_ref(), in_project, &text_call(Language::En, "Unknown", "Hi.", "")).await.to_string();

    let page: Value = app.get(&format!("/v1/projects/{project}/calls")).await.json().await.unwrap();
    let listed = |id: &str| page["data"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap().as_object().unwrap().clone();
    assert_eq!(listed(&recorded)["recordedAt"], "2026-11-20T08:30:00.000Z");
    assert_eq!(listed(&unknown).get("recordedAt"), Some(&Value::Null), "null, not absent, when not given");
    for (id, want) in [(&recorded, json!("2026-11-20T08:30:00.000Z")), (&unknown, Value::Null)] {
        let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{id}")).await.json().await.unwrap();
        assert_eq!(detail["recordedAt"], want, "{id}");
        assert!(detail["createdAt"].as_str().is_some_and(|c| c.ends_with('Z')), "the upload's time stays beside it");
    }
}

/// Uploads and processes `count` short silent calls; returns their ids, oldest first.
async fn processed_calls(app: &TestApp, project: &str, count: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..count {
        // Different lengths: different bytes, so no duplicate refusal.
        let bytes = wav_bytes(8_000, 1, 0.5 + 0.1 * i as f32);
        let accepted: Value = app.upload(project, "", &format!("call-{i}.wav"), bytes).await.json().await.unwrap();
        let job = app.wait_for_job(project, accepted["jobId"].as_str().unwrap()).await;
        assert_eq!(job["status"], "COMPLETED", "{job}");
        ids.push(job["transcriptId"].as_str().unwrap().to_owned());
    }
    ids
}

fn ids(page: &Value) -> Vec<&str> {
    page["data"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect()
}

async fn calls_are_listed_newest_first_in_pages_within_inclusive_bounds(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await["id"].as_str().unwrap().to_owned();
    let base = format!("/v1/projects/{project}/calls");
    let empty: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(
        (empty["total"].as_u64(), empty["totalPages"].as_u64(), empty["page"].as_u64(), empty["pageSize"].as_u64()),
        (Some(0), Some(0), Some(1), Some(25))
    );

    let made = processed_calls(&app, &project, 3).await;
    let newest_first: Vec<&str> = made.iter().rev().map(String::as_str).collect();
    let all: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(ids(&all), newest_first);
    assert_eq!(all["total"], 3);
    let first = &all["data"][2];
    for field in
        ["id", "filename", "language", "sizeBytes", "durationS", "sentimentLevel", "primaryCategory", "actionItemsCount", "createdAt", "title"]
    {
        assert!(first.get(field).is_some(), "{field}: {first}");
    }
    assert_eq!(first["filename"], "call-0.wav");
    assert!(first["title"].as_str().is_some_and(|t| !t.is_empty() && t.chars().count() < 80), "{first}");
    assert!(first["primaryCategory"].is_null(), "no categories in the project");
    assert_eq!(first["language"], "en");

    let page: Value = app.get(&format!("{base}?page=2&pageSize=2")).await.json().await.unwrap();
    assert_eq!(ids(&page), [made[0].as_str()]);
    assert_eq!(
        (page["total"].as_u64(), page["totalPages"].as_u64(), page["page"].as_u64(), page["pageSize"].as_u64()),
        (Some(3), Some(2), Some(2), Some(2))
    );
    let past: Value = app.get(&format!("{base}?page=9&pageSize=2")).await.json().await.unwrap();
    assert!(ids(&past).is_empty());
    assert_eq!(past["total"], 3);

    // Both bounds are inclusive: the middle call's own createdAt selects exactly it.
    let middle = all["data"][1]["createdAt"].as_str().unwrap();
    let encoded = middle.replace('+', "%2B");
    let only: Value = app.get(&format!("{base}?from={encoded}&to={encoded}")).await.json().await.unwrap();
    assert_eq!(ids(&only), [made[1].as_str()], "{only}");
    let since: Value = app.get(&format!("{base}?from={encoded}")).await.json().await.unwrap();
    assert_eq!(ids(&since), [made[2].as_str(), made[1].as_str()]);
    let until: Value = app.get(&format!("{base}?to={encoded}")).await.json().await.unwrap();
    assert_eq!(ids(&until), [made[1].as_str(), made[0].as_str()]);

    for bad in ["page=0", "pageSize=0", "pageSize=101", "from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z"] {
        assert_problem(app.get(&format!("{base}?{bad}")).await, 422, "validation_failed").await;
    }
    for bad in ["page=x", "from=yesterday"] {
        assert_problem(app.get(&format!("{base}?{bad}")).await, 400, "bad_request").await;
    }

    // The dashboard counts the same calls, within the same inclusive bounds.
    let dashboard = format!("/v1/projects/{project}/dashboard/sentiment");
    let whole: Value = app.get(&dashboard).await.json().await.unwrap();
    let d = &whole["distribution"];
    assert_eq!(d["total"], 3, "{whole}");
    let levels: u64 = ["positive", "neutral", "negative", "unknown"].iter().map(|l| d[l].as_u64().unwrap()).sum();
    assert_eq!(levels, 3, "{whole}");
    let trend = whole["trend"].as_array().unwrap();
    assert_eq!(trend.len(), 1, "all made today: {whole}");
    assert_eq!(trend[0]["date"].as_str(), Some(&middle[..10]));
    assert!(whole["averageConfidence"].as_f64().is_some());
    let one: Value = app.get(&format!("{dashboard}?from={encoded}&to={encoded}&tz=Europe/Warsaw")).await.json().await.unwrap();
    assert_eq!(one["distribution"]["total"], 1, "{one}");
    assert_problem(app.get(&format!("{dashboard}?tz=Mars/Olympus")).await, 422, "validation_failed").await;
    assert_problem(app.get(&format!("{dashboard}?to=soon")).await, 400, "bad_request").await;
}

async fn a_deleted_call_is_gone_with_its_audio_and_jobs(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await["id"].as_str().unwrap().to_owned();
    let made = processed_calls(&app, &project, 2).await;
    let audio_before = app.stored_files().len();
    let url = format!("/v1/projects/{project}/calls/{}", made[0]);
    let detail: Value = app.get(&url).await.json().await.unwrap();
    let storage_path = detail["storagePath"].as_str().unwrap().to_owned();
    assert!(app.stored_files().iter().any(|f| f.to_string_lossy().ends_with(&storage_path)));

    assert_eq!(app.request(reqwest::Method::DELETE, &url).send().await.unwrap().status(), 204);
    assert_eq!(app.get(&url).await.status(), 404);
    assert_eq!(app.get(&format!("{url}/audio")).await.status(), 404);
    assert_eq!(app.stored_files().len(), audio_before - 1, "the audio is deleted");
    assert!(!app.stored_files().iter().any(|f| f.to_string_lossy().ends_with(&storage_path)));
    let list: Value = app.get(&format!("/v1/projects/{project}/calls")).await.json().await.unwrap();
    assert_eq!(ids(&list), [made[1].as_str()]);
    assert_eq!(app.request(reqwest::Method::DELETE, &url).send().await.unwrap().status(), 404);

    // The job that made it is gone too, so the same audio can be uploaded again as a new call.
    let again: Value = app.upload(&project, "", "call-0.wav", wav_bytes(8_000, 1, 0.5)).await.json().await.unwrap();
    let job = app.wait_for_job(&project, again["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");
}

/// Stores a call with the analysis given; returns its id.
async fn call(
    app: &TestApp,
    project: &str,
    name: &str,
    language: Language,
    level: SentimentLevel,
    category: Option<&str>,
    due_days: Option<i64>,
) -> String {
    let mut call = text_call(language, name, "Hello.", "");
    call.filename = format!("{name}.wav");
    let analysis = call.analysis.as_mut().unwrap();
    analysis.sentiment_level = level;
    analysis.primary_category = category.map(|c| CategoryId(c.parse().unwrap()));
    analysis.action_items = due_days
        .into_iter()
        .map(|days| NewActionItem {
            id: ActionItemId::new(),
            description: "Send the form".into(),
            responsible_party: None,
            deadline_mentioned: None,
            due_at: Some(chrono::Utc::now() + chrono::TimeDelta::days(days)),
            evidence: None,
            priority: ActionItemPriority::Medium,
        })
        .collect();
    store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await.0.to_string()
}

async fn the_list_filters_by_sentiment_language_category_subtree_and_overdue_items(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let project = project["id"].as_str().unwrap();
    let category = |name: &'static str, parent: Option<String>| {
        let app = &app;
        async move {
            let body = json!({"name": name, "parentId": parent});
            let created: Value = app.post_json(&format!("/v1/projects/{project}/categories"), &body).await.json().await.unwrap();
            created["id"].as_str().unwrap().to_owned()
        }
    };
    let billing = category("Billing", None).await;
    let refunds = category("Refunds", Some(billing.clone())).await;
    let technical = category("Technical", None).await;
    let angry = call(&app, project, "angry", Language::En, SentimentLevel::Negative, Some(&refunds), Some(-2)).await;
    let calm = call(&app, project, "calm", Language::Pl, SentimentLevel::Neutral, Some(&billing), Some(3)).await;
    let happy = call(&app, project, "happy", Language::En, SentimentLevel::Positive, Some(&technical), None).await;
    let unsure = call(&app, project, "unsure", Language::Pl, SentimentLevel::Unknown, None, Some(-1)).await;

    let listed = |query: String| {
        let app = &app;
        async move {
            let response = app.get(&format!("/v1/projects/{project}/calls?{query}")).await;
            assert_eq!(response.status(), 200, "{query}");
            let page: Value = response.json().await.unwrap();
            let mut found: Vec<String> = ids(&page).into_iter().map(str::to_owned).collect();
            found.sort();
            assert_eq!(page["total"].as_u64().unwrap() as usize, found.len(), "{query}: the total counts the filtered calls");
            found
        }
    };
    let sorted = |mut v: Vec<&String>| {
        v.sort();
        v.into_iter().cloned().collect::<Vec<_>>()
    };
    assert_eq!(listed("sentimentLevel=negative,unknown".into()).await, sorted(vec![&angry, &unsure]));
    assert_eq!(listed("sentimentLevel=POSITIVE".into()).await, sorted(vec![&happy]));
    assert_eq!(listed("language=pl".into()).await, sorted(vec![&calm, &unsure]));
    assert_eq!(listed(format!("categoryId={billing}")).await, sorted(vec![&angry, &calm]), "a category takes its subtree");
    assert_eq!(listed(format!("categoryId={refunds}")).await, sorted(vec![&angry]));
    assert_eq!(listed("hasOverdueItems=true".into()).await, sorted(vec![&angry, &unsure]), "due dates passed, items open");
    assert_eq!(listed("hasOverdueItems=false".into()).await.len(), 4, "false filters nothing");
    assert_eq!(listed(format!("categoryId={billing}&language=en&hasOverdueItems=true")).await, sorted(vec![&angry]), "filters combine");

    // Closing the overdue item takes its call off the overdue list.
    let items: Value = app.get(&format!("/v1/projects/{project}/action-items?transcriptId={angry}")).await.json().await.unwrap();
    let item = items["items"][0]["id"].as_str().unwrap();
    assert_eq!(app.patch_json(&format!("/v1/projects/{project}/action-items/{item}"), &json!({"status": "DONE"})).await.status(), 200);
    assert_eq!(listed("hasOverdueItems=true".into()).await, sorted(vec![&unsure]));

    assert_problem(app.get(&format!("/v1/projects/{project}/calls?sentimentLevel=furious")).await, 422, "validation_failed").await;
    assert_problem(app.get(&format!("/v1/projects/{project}/calls?language=de")).await, 422, "validation_failed").await;
    assert_problem(app.get(&format!("/v1/projects/{project}/calls?categoryId=nope")).await, 422, "validation_failed").await;
    let elsewhere = uuid::Uuid::now_v7();
    assert_problem(app.get(&format!("/v1/projects/{project}/calls?categoryId={elsewhere}")).await, 422, "validation_failed").await;
    assert_problem(app.get(&format!("/v1/projects/{project}/calls?hasOverdueItems=maybe")).await, 400, "bad_request").await;
}
