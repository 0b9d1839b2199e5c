//! Webhook registration (decisions §9): secrets, pausing, and only public https targets.

use base64::Engine;
use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with};

both_backends!(
    registration_returns_the_secret_once,
    only_public_https_targets_are_accepted,
    the_test_switch_allows_loopback_http,
);

async fn registration_returns_the_secret_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("CRM").await;
    let base = format!("/v1/projects/{}/webhooks", project["id"].as_str().unwrap());
    let body = json!({"url": "https://93.184.216.34/hooks/callscope?tenant=7", "events": ["call.completed", "action_item.created", "call.completed"]});
    let response = app.post_json(&base, &body).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let created: Value = response.json().await.unwrap();
    let secret = created["secret"].as_str().unwrap();
    let raw = base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").expect("whsec_ prefix")).unwrap();
    assert_eq!(raw.len(), 32);
    assert_eq!(created["url"], "https://93.184.216.34/hooks/callscope?tenant=7");
    assert_eq!(created["events"], json!(["call.completed", "action_item.created"]), "repeats dropped");
    assert_eq!(created["active"], true);
    let stored = app.sql_strings("select secret from webhooks").await;
    assert_eq!(stored, [secret], "the secret is kept to sign deliveries");

    let fetched: Value = app.get(&location).await.json().await.unwrap();
    let listed: Value = app.get(&base).await.json().await.unwrap();
    for view in [&fetched, &listed[0]] {
        assert!(view.get("secret").is_none(), "only the create answer has the secret: {view}");
        assert_eq!(view["id"], created["id"]);
    }

    let paused: Value = app.request(Method::PATCH, &format!("{location}/toggle")).send().await.unwrap().json().await.unwrap();
    assert_eq!(paused["active"], false);
    assert!(paused.get("secret").is_none());
    assert!(paused["updatedAt"].as_str() >= created["updatedAt"].as_str());
    let resumed: Value = app.request(Method::PATCH, &format!("{location}/toggle")).send().await.unwrap().json().await.unwrap();
    assert_eq!(resumed["active"], true);

    let all: Value = app.post_json(&base, &json!({"url": "https://[2606:4700:4700::1111]/x", "events": ["*", "call.failed"]})).await.json().await.unwrap();
    assert_eq!(all["events"], json!(["*"]));

    assert_eq!(app.request(Method::DELETE, &location).send().await.unwrap().status(), 204);
    assert_problem(app.get(&location).await, 404, "not_found").await;
    assert_problem(app.request(Method::PATCH, &format!("{location}/toggle")).send().await.unwrap(), 404, "not_found").await;
    assert_problem(app.request(Method::DELETE, &location).send().await.unwrap(), 404, "not_found").await;
}

async fn only_public_https_targets_are_accepted(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("CRM").await;
    let base = format!("/v1/projects/{}/webhooks", project["id"].as_str().unwrap());
    let long = format!("https://93.184.216.34/{}", "a".repeat(2048));
    let refused = [
        "http://93.184.216.34/hook",
        "ftp://93.184.216.34/hook",
        "not a url",
        "/relative/path",
        "https://127.0.0.1/hook",
        "https://localhost:8443/hook",
        "https://10.0.0.5/hook",
        "https://172.16.3.4/hook",
        "https://192.168.1.10/hook",
        "https://100.64.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://0.0.0.0/hook",
        "https://224.0.0.1/hook",
        "https://192.0.2.10/hook",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://[fe80::1]/hook",
        "https://[fd00:ec2::254]/hook",
        "https://[2001:db8::1]/hook",
        "https://user:pass@93.184.216.34/hook",
        "https://name.invalid/hook",
        long.as_str(),
    ];
    for url in refused {
        let response = app.post_json(&base, &json!({"url": url, "events": ["*"]})).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "url", "{url}: {problem}");
    }
    let problem = assert_problem(app.post_json(&base, &json!({"url": "https://127.0.0.1/", "events": ["nope"]})).await, 422, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["url", "events[0]"], "both problems are reported");
    for (events, field) in [(json!([]), "events"), (json!(["call.completed", "webhook.test"]), "events[1]"), (json!("*"), "events")] {
        let problem = assert_problem(app.post_json(&base, &json!({"url": "https://93.184.216.34/", "events": events})).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{events}");
    }
    assert_eq!(app.get(&base).await.json::<Value>().await.unwrap(), json!([]), "nothing was registered");
}

async fn the_test_switch_allows_loopback_http(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.webhooks_allow_private = true).await;
    let project = app.create_project("CRM").await;
    let base = format!("/v1/projects/{}/webhooks", project["id"].as_str().unwrap());
    let ok = app.post_json(&base, &json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]})).await;
    assert_eq!(ok.status(), 201);
    let private = app.post_json(&base, &json!({"url": "https://10.0.0.5/hook", "events": ["*"]})).await;
    assert_problem(private, 422, "validation_failed").await;
}
