//! Analysis through an OpenAI-compatible endpoint (`analysis_engine = "openai"`): a
//! chat-completions server on a loopback port records what it is sent and answers with a fixed
//! analysis. Personal data never reaches it (masked by default), and the stored summary says
//! which model made it.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::Json;
use callscope::config::{AnalysisEngine, LlmAnalysisMode};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, spoken_call, TestApp};

both_backends!(text_sent_to_an_external_llm_is_masked_and_its_analysis_stored);
both_backends!(the_guided_mode_asks_the_endpoint_for_closed_choices_only);

type Seen = Arc<Mutex<Vec<Value>>>;

/// A server whose analysis engine is an OpenAI-compatible endpoint on a loopback port, answered
/// by `answer`, in `mode` (`None`: the default mode); every request body the endpoint got is
/// kept in the returned list.
async fn app_with_endpoint<H, T>(backend: Backend, answer: H, mode: Option<LlmAnalysisMode>) -> (TestApp, Seen)
where
    H: axum::handler::Handler<T, Seen>,
    T: 'static,
{
    let seen: Seen = Arc::default();
    let router = axum::Router::new().route("/v1/chat/completions", post(answer)).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let app = spawn_app_with(backend, |c| {
        c.analysis_engine = AnalysisEngine::Openai;
        if let Some(mode) = mode {
            c.llm_analysis_mode = mode;
        }
        c.llm_base_url = base_url;
        c.llm_model = "test-model".into();
        c.llm_max_retries = 0;
    })
    .await;
    (app, seen)
}

async fn completions(State(seen): State<Seen>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(body);
    let analysis = json!({
        "title": "Caller leaves contact details",
        "summary": {"executiveSummary": "The caller gave their name and phone number.", "keyDiscussionPoints": ["contact details"],
            "resolutionProvided": "", "followUpRequired": false, "nextSteps": []},
        "sentiment": {"overallSentiment": "neutral", "sentimentProgression": "neutral throughout", "confidence": 0.7, "evidence": ""},
        "classification": {"primaryCategoryId": null, "secondaryCategoryIds": [], "confidence": 0, "evidence": "", "reasoning": ""},
        "actionItems": [],
        "templateAnswers": [],
    });
    Json(json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": analysis.to_string()}, "finish_reason": "stop"}]}))
}

async fn text_sent_to_an_external_llm_is_masked_and_its_analysis_stored(backend: Backend) {
    // No mode set: an `openai` endpoint runs the open mode by default.
    let (app, seen) = app_with_endpoint(backend, completions, None).await;
    let project = app.create_project("Plain").await;
    let project_id = project["id"].as_str().unwrap();
    let call = spoken_call(
        2,
        &[
            (0, "en-us", "Thank you for calling. Can I have your name and phone number, please?"),
            (1, "en-gb", "My name is John Smith. My phone number is two one two, five five five, zero one four seven."),
        ],
    );
    let (project, call_id) = app.process_call(project_id, "channel_roles=agent,customer", "call.wav", call).await;
    let transcript = app.store.get_call_transcript(project, call_id).await.unwrap();
    assert!(transcript.full_text.contains("Smith"), "the project keeps the values: {:?}", transcript.full_text);

    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let sent = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(sent.contains("[PERSON_NAME]") && sent.contains("[PHONE_NUMBER]"), "{sent}");
    assert!(!sent.contains("Smith") && !sent.contains("John"), "{sent}");
    assert!(sent.split(|c: char| !c.is_ascii_digit()).all(|run| run.len() < 3), "no digits of the number: {sent}");
    assert_eq!(requests[0]["model"], "test-model");

    let analysis = app.store.get_call_analysis(project, call_id).await.unwrap();
    let summary = serde_json::to_value(analysis.summary.unwrap()).unwrap();
    assert_eq!(summary["modelUsed"], "openai:test-model");
    assert_eq!(summary["summary"]["executiveSummary"], "The caller gave their name and phone number.");
    assert_eq!(analysis.title.as_deref(), Some("Caller leaves contact details"));
    assert_eq!(analysis.sentiment_level.as_str(), "neutral");
}

/// Answers a guided request the way its schema allows: the first category, every candidate
/// owned by the last party listed, a negative customer (a positive reading would be tempered to
/// neutral by the call's closing, which holds no warmth, and would not show the model's choice).
async fn choices(State(seen): State<Seen>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(body.clone());
    let schema = &body["response_format"]["json_schema"]["schema"]["properties"];
    let mut answer = json!({"sentiment": "negative"});
    if let Some(ids) = schema["category"]["enum"].as_array() {
        answer["category"] = ids[0].clone();
    }
    if let Some(items) = schema["items"]["properties"].as_object() {
        answer["items"] = items.iter().map(|(k, v)| (k.clone(), v["enum"].as_array().unwrap().last().unwrap().clone())).collect();
    }
    Json(json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer.to_string()}, "finish_reason": "stop"}]}))
}

async fn the_guided_mode_asks_the_endpoint_for_closed_choices_only(backend: Backend) {
    let (app, seen) = app_with_endpoint(backend, choices, Some(LlmAnalysisMode::Guided)).await;
    let project = app.create_project("Guided").await;
    let project_id = project["id"].as_str().unwrap();
    let call = spoken_call(
        2,
        &[(0, "en-us", "Thank you for calling. What is your name?"), (1, "en-gb", "My name is John Smith. Could you send me a new router?")],
    );
    let (project, call_id) = app.process_call(project_id, "channel_roles=agent,customer", "call.wav", call).await;

    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let sent = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(sent.contains("[PERSON_NAME]") && !sent.contains("Smith"), "masked as in the open mode: {sent}");
    let schema = &requests[0]["response_format"]["json_schema"]["schema"];
    assert!(schema["properties"]["summary"].is_null() && schema["properties"]["title"].is_null(), "only choices are asked: {schema}");
    assert_eq!(schema["properties"]["sentiment"]["enum"].as_array().map(Vec::len), Some(6));

    let analysis = app.store.get_call_analysis(project, call_id).await.unwrap();
    assert_eq!(analysis.summary.unwrap().model_used, "openai:test-model");
    assert_eq!(analysis.sentiment_level.as_str(), "negative", "the model's choice");
}
