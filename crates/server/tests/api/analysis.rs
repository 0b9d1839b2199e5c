//! Analysis of a processed call with the rules engine (real tiny.en Whisper, real lexicons):
//! the call is filed into the project's category tree, gets a summary with sentiment, a title,
//! its action items as records with `action_item.created` events, and the active template's
//! answers.

use callscope_domain::{CallId, ProjectId};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, spoken_call};

both_backends!(a_processed_call_is_classified_summarised_and_its_action_items_recorded);

async fn a_processed_call_is_classified_summarised_and_its_action_items_recorded(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.workers = 1).await;
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
    add("Billing", "invoice, payment, refund, price").await;
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
    let accepted: Value = app.upload(project_id, "channel_roles=agent,customer", "call.wav", call).await.json().await.unwrap();
    let job = app.wait_for_job(project_id, accepted["jobId"].as_str().unwrap()).await;
    assert_eq!(job["status"], "COMPLETED", "{job}");
    let call_id = CallId(job["transcriptId"].as_str().unwrap().parse().unwrap());
    let project = ProjectId(project_id.parse().unwrap());
    let transcript = app.store.get_call_transcript(project, call_id).await.unwrap();
    let analysis = app.store.get_call_analysis(project, call_id).await.unwrap();
    let context = format!("transcript: {:?}", transcript.full_text);

    assert_eq!(analysis.primary_category.map(|c| c.to_string()), Some(technical.clone()), "{context}");
    let classification = analysis.classification.as_ref().unwrap();
    assert_eq!(classification["primary"]["categoryNames"], json!(["Technical support"]));
    assert_eq!(classification["primary"]["depth"], 0);
    assert_eq!(classification["modelUsed"], "rules");
    assert!(classification["primary"]["evidence"].as_str().unwrap().to_lowercase().contains("router"), "{classification}");

    let summary = analysis.summary.as_ref().unwrap();
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

    let answers = analysis.template_analysis.as_ref().unwrap();
    assert_eq!(answers["templateName"], "Support QA");
    assert_eq!(answers["results"][0]["value"], "router");
    assert_eq!(answers["results"][0]["answered"], true);
    assert_eq!(answers["results"][1]["answered"], false, "free text needs a model");
    assert!(answers["results"][1]["value"].is_null());
}
