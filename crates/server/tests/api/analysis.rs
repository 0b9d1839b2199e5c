//! Analysis of a processed call with the rules engine (real tiny.en Whisper, real lexicons):
//! the call is filed into the project's category tree, gets a summary with sentiment, a title,
//! its action items as records with `action_item.created` events, and the active template's
//! answers. Then the same call through the API: its detail, a category set by hand, and
//! re-analysis, which keeps that category and replaces the action items.

use callscope_domain::ProjectId;
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spoken_call, TestApp};

both_backends!(a_processed_call_is_classified_summarised_and_its_action_items_recorded);

async fn a_processed_call_is_classified_summarised_and_its_action_items_recorded(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let categories = format!("/v1/projects/{project_id}/categories");
    let add = |name: &'static str, description: &'static str| {
        let (app, url) = (&app, categories.clone());
        async move {
            let response = app.post_json(&url, &json!({"name": name, "description": description})).await;
            assert_eq!(response.status(), 201);
            response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned()
        }
    };
    let technical = add("Technical support", "router, internet connection, outage, technician").await;
    let billing = add("Billing", "invoice, payment, refund, price").await;
    let template = json!({
        "name": "Support QA",
        "isActive": true,
        "fields": [
            {"label": "Device", "prompt": "Which device failed?", "answerType": "SINGLE_CHOICE", "options": ["router", "phone"]},
            {"label": "Root cause", "prompt": "What caused the fault?", "answerType": "TEXT"},
        ],
    });
    assert_eq!(app.post_json(&format!("/v1/projects/{project_id}/analysis-templates"), &template).await.status(), 201);

    let call = spoken_call(
        2,
        &[
            (0, "en-us", "Thank you for calling. How can I help you?"),
            (1, "en-gb", "My internet router is broken and the internet connection keeps dropping."),
            (0, "en-us", "I am sorry. I will send a technician tomorrow to replace the router."),
            (1, "en-gb", "Great, thank you very much."),
        ],
    );
    let (project, call_id) = app.process_call(project_id, "channel_roles=agent,customer", "call.wav", call).await;
    let transcript = app.store.get_call_transcript(project, call_id).await.unwrap();
    let analysis = app.store.get_call_analysis(project, call_id).await.unwrap();
    let context = format!("transcript: {:?}", transcript.full_text);

    assert_eq!(analysis.primary_category.map(|c| c.to_string()), Some(technical.clone()), "{context}");
    let classification = serde_json::to_value(analysis.classification.as_ref().unwrap()).unwrap();
    assert_eq!(classification["primary"]["categoryNames"], json!(["Technical support"]));
    assert_eq!(classification["primary"]["depth"], 0);
    assert_eq!(classification["modelUsed"], "rules");
    assert!(classification["primary"]["evidence"].as_str().unwrap().to_lowercase().contains("router"), "{classification}");

    let summary = serde_json::to_value(analysis.summary.as_ref().unwrap()).unwrap();
    assert_eq!(summary["modelUsed"], "rules");
    assert!(["positive", "neutral", "negative"].contains(&summary["sentimentLevel"].as_str().unwrap()), "{summary}");
    assert_eq!(summary["sentimentLevel"].as_str(), Some(analysis.sentiment_level.as_str()));
    assert!(!summary["summary"]["executiveSummary"].as_str().unwrap().is_empty());
    assert_eq!(summary["summary"]["followUpRequired"], true);
    let title = analysis.title.as_deref().unwrap();
    assert!(title.to_lowercase().contains("router") && title.chars().count() < 80, "{title}");

    let items: Vec<(&str, Option<&str>, &str, &str)> = analysis
        .action_items
        .iter()
        .map(|a| (a.responsible_party.as_deref().unwrap(), a.deadline_mentioned.as_deref(), a.priority.as_str(), a.status.as_str()))
        .collect();
    assert_eq!(items, [("agent", Some("tomorrow"), "HIGH", "PENDING")], "{context}");
    let item = &analysis.action_items[0];
    assert!(item.description.to_lowercase().starts_with("send a technician"), "{}", item.description);
    assert_eq!(item.due_at.unwrap().date_naive(), (item.call_date + chrono::TimeDelta::days(1)).date_naive(), "due the day after the call");
    assert_eq!(item.call_filename, "call.wav");

    let events = app.store.list_events(project).await.unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(kinds, ["call.completed", "action_item.created"]);
    assert_eq!(events[0].1["actionItemsCount"], 1);
    assert_eq!(events[0].1["primaryCategory"], "Technical support", "the call summary's primaryCategory is the name");
    assert_eq!(events[1].1["id"], item.id.to_string());
    assert_eq!(events[1].1["transcriptIndex"], 0);

    let answers = serde_json::to_value(analysis.template_analysis.as_ref().unwrap()).unwrap();
    assert_eq!(answers["templateName"], "Support QA");
    assert_eq!(answers["results"][0]["value"], "router");
    assert_eq!(answers["results"][0]["answered"], true);
    assert_eq!(answers["results"][1]["answered"], false, "free text needs a model");
    assert!(answers["results"][1]["value"].is_null());

    detail_recategorisation_and_reanalysis(&app, project_id, &call_id.to_string(), &technical, &billing, item.id.to_string()).await;
}

async fn detail_recategorisation_and_reanalysis(app: &TestApp, project_id: &str, call_id: &str, technical: &str, billing: &str, first_item: String) {
    let url = format!("/v1/projects/{project_id}/calls/{call_id}");
    let response = app.get(&url).await;
    assert_eq!(response.status(), 200);
    let detail: Value = response.json().await.unwrap();
    for field in [
        "id", "filename", "language", "sizeBytes", "durationS", "sentimentLevel", "primaryCategory", "actionItemsCount", "createdAt", "title",
        "updatedAt", "fullText", "speakers", "turns", "storagePath", "piiStatistics", "classification", "summary", "templateAnalysis",
    ] {
        assert!(detail.get(field).is_some(), "{field} missing: {detail}");
    }
    assert_eq!(detail["id"], call_id);
    assert_eq!(detail["filename"], "call.wav");
    assert_eq!(detail["primaryCategory"], "Technical support");
    assert_eq!(detail["actionItemsCount"], 1);
    assert_eq!(detail["classification"]["primary"]["categoryId"], technical);
    assert_eq!(detail["summary"]["actionItems"][0]["id"], first_item.as_str(), "the summary carries the action item records");
    assert_eq!(detail["summary"]["actionItems"][0]["transcriptId"], call_id);
    assert_eq!(detail["summary"]["actionItems"][0]["status"], "PENDING");
    assert_eq!(detail["turns"][0]["speakerId"], detail["speakers"][0]["speakerId"]);
    assert!(detail["fullText"].as_str().unwrap().to_lowercase().contains("router"));
    assert_eq!(detail["piiStatistics"]["totalDetected"], 0);
    // The spoken call is found by another form of a word it contains, with the word marked.
    let search = format!("/v1/projects/{project_id}/calls/search?q=routers");
    let found: Value = app.get(&search).await.json().await.unwrap();
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(found["data"][0]["id"], call_id);
    assert_eq!(found["data"][0]["primaryCategory"], "Technical support");
    assert!(found["data"][0]["snippet"].as_str().unwrap().to_lowercase().contains("<mark>router"), "{found}");
    assert_eq!(app.get(&format!("/v1/projects/{project_id}/calls/{}", uuid::Uuid::now_v7())).await.status(), 404);

    // Set by hand: Billing, with the manual marks; the event says what changed.
    let category = format!("{url}/category");
    assert_problem(app.patch_json(&category, &json!({})).await, 422, "validation_failed").await;
    assert_problem(app.patch_json(&category, &json!({"categoryId": uuid::Uuid::now_v7()})).await, 422, "validation_failed").await;
    let response = app.patch_json(&category, &json!({"categoryId": billing})).await;
    assert_eq!(response.status(), 200);
    let detail: Value = response.json().await.unwrap();
    assert_eq!(detail["primaryCategory"], "Billing");
    let found: Value = app.get(&search).await.json().await.unwrap();
    assert_eq!(found["data"][0]["primaryCategory"], "Billing", "search hits show the category set by hand");
    assert_eq!(detail["classification"]["primary"]["categoryId"], billing);
    assert_eq!(detail["classification"]["primary"]["confidence"], 1.0);
    assert_eq!(detail["classification"]["primary"]["evidence"], "set manually");
    assert_eq!(detail["classification"]["modelUsed"], "manual");
    assert_eq!(detail["classification"]["secondary"], json!([]));
    let project = ProjectId(project_id.parse().unwrap());
    let events = app.store.list_events(project).await.unwrap();
    let changed = events.iter().find(|e| e.0 == "call.category_changed").expect("call.category_changed");
    assert_eq!(changed.1, json!({"callId": call_id, "previousCategoryId": technical, "categoryId": billing}));

    // A second template, to answer on re-analysis instead of the active one.
    let other = json!({"name": "Devices", "fields": [{"label": "Device", "prompt": "Which device failed?", "answerType": "SINGLE_CHOICE", "options": ["router", "modem"]}]});
    let other: Value = app.post_json(&format!("/v1/projects/{project_id}/analysis-templates"), &other).await.json().await.unwrap();
    let reanalyze = format!("{url}/reanalyze");
    assert_problem(app.post_json(&reanalyze, &json!({"templateId": uuid::Uuid::now_v7()})).await, 422, "validation_failed").await;
    assert_eq!(app.post_json(&format!("/v1/projects/{project_id}/calls/{}/reanalyze", uuid::Uuid::now_v7()), &json!({})).await.status(), 404);
    let response = app.post_json(&reanalyze, &json!({"templateId": other["id"]})).await;
    assert_eq!(response.status(), 202);
    assert!(response.headers()["location"].to_str().unwrap().contains("/calls/jobs/"));
    let job: Value = response.json().await.unwrap();
    assert_eq!(job["kind"], "REANALYZE");
    assert_eq!(job["transcriptId"], call_id);
    let job = app.wait_for_job(project_id, job["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");

    let detail: Value = app.get(&url).await.json().await.unwrap();
    assert_eq!(detail["primaryCategory"], "Billing", "re-analysis keeps a category set by hand");
    assert_eq!(detail["classification"]["modelUsed"], "manual");
    assert_eq!(detail["templateAnalysis"]["templateName"], "Devices");
    assert_eq!(detail["templateAnalysis"]["results"][0]["value"], "router");
    assert_eq!(detail["actionItemsCount"], 1);
    let new_item = detail["summary"]["actionItems"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(new_item, first_item, "the action items are replaced");
    let events = app.store.list_events(project).await.unwrap();
    let tail: Vec<(&str, &Value)> = events.iter().rev().take(2).rev().map(|e| (e.0.as_str(), &e.1)).collect();
    assert_eq!(tail[0], ("action_item.deleted", &json!({"id": first_item})));
    assert_eq!(tail[1].0, "action_item.created");
    assert_eq!(tail[1].1["id"], new_item.as_str());
    // call.completed is for uploads; a re-analysis raises none.
    assert_eq!(events.iter().filter(|e| e.0 == "call.completed").count(), 1);

    // No body: the template active when the job runs.
    let response = app.request(reqwest::Method::POST, &reanalyze).send().await.unwrap();
    assert_eq!(response.status(), 202);
    let job: Value = response.json().await.unwrap();
    assert_eq!(app.wait_for_job(project_id, job["jobId"].as_str().unwrap()).await["status"], "COMPLETED");
    let detail: Value = app.get(&url).await.json().await.unwrap();
    assert_eq!(detail["templateAnalysis"]["templateName"], "Support QA");
    assert_eq!(detail["primaryCategory"], "Billing");
}
