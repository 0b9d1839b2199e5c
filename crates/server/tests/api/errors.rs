//! The error model (decisions §2) for failures that are not about one resource.

use callscope_store::Backend;
use reqwest::Method;
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app, wav_bytes};

both_backends!(
    routing_and_body_errors_are_problems,
    request_ids_are_echoed_or_minted,
    internal_errors_leak_nothing,
    an_unreachable_database_is_503_with_retry_after,
    text_with_a_nul_character_is_refused_by_field,
);

async fn routing_and_body_errors_are_problems(backend: Backend) {
    let app = spawn_app(backend).await;
    assert_problem(app.get("/v1/nothing-here").await, 404, "not_found").await;
    assert_problem(app.get("/nowhere").await, 404, "not_found").await;
    let wrong_method = app.request(Method::DELETE, "/v1/projects").send().await.unwrap();
    let allow = wrong_method.headers().get("allow").map(|v| v.to_str().unwrap().to_owned());
    assert_problem(wrong_method, 405, "method_not_allowed").await;
    assert!(allow.is_some_and(|a| a.contains("POST") && a.contains("GET")));
    assert_problem(app.request(Method::PUT, "/healthz").send().await.unwrap(), 405, "method_not_allowed").await;

    let malformed = app.request(Method::POST, "/v1/projects").header("content-type", "application/json").body("{\"name\": ");
    assert_problem(malformed.send().await.unwrap(), 400, "bad_request").await;
    let trailing = app.request(Method::POST, "/v1/projects").header("content-type", "application/json").body("{} {}");
    assert_problem(trailing.send().await.unwrap(), 400, "bad_request").await;
    let not_json = app.request(Method::POST, "/v1/projects").header("content-type", "text/plain").body("name=x");
    assert_problem(not_json.send().await.unwrap(), 415, "unsupported_media_type").await;
    let no_type = app.request(Method::POST, "/v1/projects").body("{\"name\": \"x\"}");
    assert_problem(no_type.send().await.unwrap(), 415, "unsupported_media_type").await;
    let charset = app.request(Method::POST, "/v1/projects").header("content-type", "application/json; charset=utf-8");
    assert_eq!(charset.body("{\"name\": \"x\"}").send().await.unwrap().status(), 201);

    let huge = json!({"name": "x", "description": "y".repeat(2 * 1024 * 1024)});
    assert_problem(app.post_json("/v1/projects", &huge).await, 413, "payload_too_large").await;

    assert_problem(app.get("/v1/projects/not-a-uuid").await, 404, "not_found").await;
    assert_problem(app.get("/v1/projects/01234567-89ab-cdef-0123-456789abcdef").await, 404, "not_found").await;
}

async fn request_ids_are_echoed_or_minted(backend: Backend) {
    let app = spawn_app(backend).await;
    let echoed = app.client.get(app.url("/healthz")).header("X-Request-Id", "trace-abc-123").send().await.unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "trace-abc-123");
    let minted = app.client.get(app.url("/healthz")).send().await.unwrap();
    let id = minted.headers()["x-request-id"].to_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 7);
    let junk = app.client.get(app.url("/healthz")).header("X-Request-Id", "x".repeat(500)).send().await.unwrap();
    assert_eq!(junk.headers()["x-request-id"].len(), 36, "an unusable client id is replaced");
    for path in ["/v1/projects", "/docs", "/v1/nope", "/", "/app/app.js"] {
        let response = app.get(path).await;
        assert!(response.headers().contains_key("x-request-id"), "{path}");
    }
    let problem = app.client.get(app.url("/v1/projects")).header("X-Request-Id", "mine-1").send().await.unwrap();
    let body = assert_problem(problem, 401, "unauthorized").await;
    assert_eq!(body["requestId"], "mine-1");
    // The web application's routes answer in the same terms: an unknown asset is the API's 404.
    let missing = app.client.get(app.url("/app/nope.js")).header("X-Request-Id", "mine-2").send().await.unwrap();
    let body = assert_problem(missing, 404, "not_found").await;
    assert_eq!(body["requestId"], "mine-2");
}

async fn internal_errors_leak_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    app.create_project("p").await;
    // Break the schema under the running server: the next query fails inside the database.
    app.sql_execute("alter table projects rename to projects_gone").await;
    let response = app.get("/v1/projects").await;
    let body = assert_problem(response, 500, "internal").await;
    let text = body.to_string();
    for leak in ["projects", "sql", "relation", "table", "sqlx"] {
        assert!(!text.to_lowercase().contains(leak), "the body mentions {leak:?}: {text}");
    }
    assert_eq!(body["detail"], "internal error");
}

async fn an_unreachable_database_is_503_with_retry_after(backend: Backend) {
    let app = spawn_app(backend).await;
    assert_eq!(app.get("/readyz").await.status(), 200);
    app.store.close().await;
    let response = app.get("/v1/projects").await;
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    assert_problem(response, 503, "unavailable").await;
    assert_eq!(retry_after.as_deref(), Some("5"));
    assert_problem(app.get("/readyz").await, 503, "unavailable").await;
    assert_eq!(app.get("/healthz").await.status(), 200, "the process itself is still up");
}

/// U+0000 in any text a client sends is a 422 naming where it was, before it reaches the
/// database (PostgreSQL cannot store it in text, which would be a 500).
async fn text_with_a_nul_character_is_refused_by_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let refused = assert_problem(app.post_json("/v1/projects", &json!({"name": "Sup\u{0}port"})).await, 422, "validation_failed").await;
    assert_eq!(refused["errors"][0]["field"], "name", "{refused}");
    let project = app.create_project("Support").await;
    let id = project["id"].as_str().unwrap();
    let template = json!({"name": "QA", "fields": [{"label": "Topic", "prompt": "What\u{0}?", "answerType": "TEXT"}]});
    let refused = assert_problem(app.post_json(&format!("/v1/projects/{id}/analysis-templates"), &template).await, 422, "validation_failed").await;
    assert_eq!(refused["errors"][0]["field"], "fields[0].prompt", "{refused}");
    let refused = assert_problem(app.get(&format!("/v1/projects/{id}/action-items?responsibleParty=a%00")).await, 422, "validation_failed").await;
    assert_eq!(refused["errors"][0]["field"], "responsibleParty", "{refused}");
    let upload = app.upload(id, "channel_roles=agent,cust%00omer", "call.wav", wav_bytes(8_000, 2, 1.0)).await;
    let refused = assert_problem(upload, 422, "validation_failed").await;
    assert_eq!(refused["errors"][0]["field"], "channel_roles", "{refused}");
    let projects: serde_json::Value = app.get("/v1/projects").await.json().await.unwrap();
    assert_eq!(projects["total"], 1, "only the clean project was made: {projects}");
}
