//! Webhooks (decisions §9): registration with secrets, pausing, only public https targets, and
//! delivery by the running service to a real HTTPS receiver, with its log, test events and
//! redelivery.

use base64::Engine;
use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use callscope_domain::{ActionItemId, Language, ProjectId};
use callscope_store::testing::{store_call, text_call};
use callscope_webhooks::testing::{verify_independently, Receiver, Reply};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, TestApp};

both_backends!(
    registration_returns_the_secret_once,
    only_public_https_targets_are_accepted,
    the_test_switch_allows_loopback_http,
    the_service_delivers_signed_events_and_logs_every_attempt,
);

async fn registration_returns_the_secret_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("CRM").await;
    let base = format!("/v1/projects/{}/webhooks", project["id"].as_str().unwrap());
    let body =
        json!({"url": "https://93.184.216.34/hooks/callscope?tenant=7", "events": ["call.completed", "action_item.created", "call.completed"]});
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

    let all: Value =
        app.post_json(&base, &json!({"url": "https://[2606:4700:4700::1111]/x", "events": ["*", "call.failed"]})).await.json().await.unwrap();
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
    let problem =
        assert_problem(app.post_json(&base, &json!({"url": "https://127.0.0.1/", "events": ["nope"]})).await, 422, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["url", "events[0]"], "both problems are reported");
    for (events, field) in [(json!([]), "events"), (json!(["call.completed", "webhook.test"]), "events[1]"), (json!("*"), "events")] {
        let problem =
            assert_problem(app.post_json(&base, &json!({"url": "https://93.184.216.34/", "events": events})).await, 422, "validation_failed").await;
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

async fn deliveries(app: &TestApp, hook: &str) -> Vec<Value> {
    let response = app.get(&format!("{hook}/deliveries")).await;
    assert_eq!(response.status(), 200);
    response.json::<Value>().await.unwrap().as_array().unwrap().clone()
}

async fn the_service_delivers_signed_events_and_logs_every_attempt(backend: Backend) {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("receiver-ca.pem");
    std::fs::write(&ca, receiver.ca_pem()).unwrap();
    let app = spawn_app_with(backend, |c| {
        c.webhook_dispatch = true;
        c.webhooks_allow_private = true;
        c.webhooks_extra_ca_file = ca.display().to_string();
        c.webhook_retry_delays = "300ms,300ms".into();
        c.webhook_poll_interval_ms = 20;
    })
    .await;
    let project = app.create_project("CRM").await;
    let project_id = project["id"].as_str().unwrap();
    let base = format!("/v1/projects/{project_id}/webhooks");
    let url = receiver.url("localhost");
    let created: Value =
        app.post_json(&base, &json!({"url": url, "events": ["action_item.updated", "action_item.deleted"]})).await.json().await.unwrap();
    let hook = format!("{base}/{}", created["id"].as_str().unwrap());
    let secret = created["secret"].as_str().unwrap().to_owned();
    let paused: Value = app.post_json(&base, &json!({"url": url, "events": ["*"]})).await.json().await.unwrap();
    let paused_hook = format!("{base}/{}", paused["id"].as_str().unwrap());
    let paused_secret = paused["secret"].as_str().unwrap().to_owned();
    assert_eq!(app.request(Method::PATCH, &format!("{paused_hook}/toggle")).send().await.unwrap().status(), 200);

    // Two action items, stored as analysis stores them.
    let mut call = text_call(Language::En, "A call", "Hello.", "");
    let items: Vec<ActionItemId> = (0..2).map(|_| ActionItemId::new()).collect();
    call.analysis.as_mut().unwrap().action_items = items
        .iter()
        .map(|id| callscope_domain::NewActionItem {
            id: *id,
            description: "Send the contract".into(),
            responsible_party: Some("agent".into()),
            deadline_mentioned: None,
            due_at: None,
            evidence: None,
            priority: callscope_domain::ActionItemPriority::High,
        })
        .collect();
    store_call(app.store.as_ref(), ProjectId(project_id.parse().unwrap()), &call).await;

    // The receiver fails the first attempt; the retry 300 ms later gets through.
    receiver.reply_with([Reply::Status(500)]);
    let item = format!("/v1/projects/{project_id}/action-items/{}", items[0]);
    assert_eq!(app.patch_json(&item, &json!({"status": "DONE"})).await.status(), 200);
    let got = receiver.wait_for(2, std::time::Duration::from_secs(10)).await;
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"), "a retry is the same message");
    let body = got[1].json();
    assert_eq!(body["type"], "action_item.updated");
    assert_eq!(body["projectId"], project_id);
    assert_eq!(body["data"]["id"], items[0].to_string());
    assert_eq!(body["data"]["status"], "DONE");

    let mut log = deliveries(&app, &hook).await;
    for _ in 0..100 {
        if log[0]["status"] == "SUCCEEDED" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        log = deliveries(&app, &hook).await;
    }
    assert_eq!(log.len(), 1);
    let first = &log[0];
    assert_eq!(first["eventId"], body["id"]);
    assert_eq!(first["eventType"], "action_item.updated");
    assert_eq!((&first["status"], &first["attempts"], &first["responseCode"]), (&json!("SUCCEEDED"), &json!(2), &json!(200)));
    assert_eq!(first["errorMessage"], Value::Null, "a success clears the last error");
    assert!(first["lastAttemptAt"].as_str().unwrap() >= first["createdAt"].as_str().unwrap());
    for field in ["id", "eventId", "eventType", "status", "attempts", "responseCode", "errorMessage", "lastAttemptAt", "createdAt"] {
        assert!(first.get(field).is_some(), "{field} in {first}");
    }

    assert_eq!(app.request(Method::DELETE, &format!("/v1/projects/{project_id}/action-items/{}", items[1])).send().await.unwrap().status(), 204);
    let got = receiver.wait_for(3, std::time::Duration::from_secs(10)).await;
    assert_eq!(got[2].json()["type"], "action_item.deleted");
    assert_eq!(got[2].json()["data"], json!({"id": items[1]}));
    verify_independently(&secret, &got).expect("standardwebhooks verifies what the service sent");
    assert!(deliveries(&app, &paused_hook).await.is_empty(), "the paused webhook got nothing");

    // A test event reaches even the paused webhook.
    let test = app.request(Method::POST, &format!("{paused_hook}/test")).send().await.unwrap();
    assert_eq!(test.status(), 202);
    let test: Value = test.json().await.unwrap();
    assert_eq!((&test["eventType"], &test["status"], &test["attempts"]), (&json!("webhook.test"), &json!("PENDING"), &json!(0)));
    let got = receiver.wait_for(4, std::time::Duration::from_secs(10)).await;
    assert_eq!(got[3].json()["type"], "webhook.test");
    verify_independently(&paused_secret, &got[3..]).expect("signed with the paused webhook's own secret");

    // Redelivery sends the first event again, with its id.
    let redeliver = format!("{hook}/deliveries/{}/redeliver", first["id"].as_str().unwrap());
    let again = app.request(Method::POST, &redeliver).send().await.unwrap();
    assert_eq!(again.status(), 202);
    assert_eq!(again.json::<Value>().await.unwrap()["status"], "PENDING");
    let got = receiver.wait_for(5, std::time::Duration::from_secs(10)).await;
    assert_eq!(got[4].header("webhook-id"), Some(first["eventId"].as_str().unwrap()));

    let newest_first = deliveries(&app, &hook).await;
    assert_eq!(newest_first[0]["eventType"], "action_item.deleted");
    assert_eq!(app.get(&format!("{hook}/deliveries?limit=1")).await.json::<Value>().await.unwrap().as_array().unwrap().len(), 1);
    for limit in ["0", "1001", "-1"] {
        let problem = assert_problem(app.get(&format!("{hook}/deliveries?limit={limit}")).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "limit");
    }
    assert_problem(app.get(&format!("{hook}/deliveries?limit=many")).await, 400, "bad_request").await;
    let unknown = format!("{base}/{}", uuid::Uuid::now_v7());
    assert_problem(app.get(&format!("{unknown}/deliveries")).await, 404, "not_found").await;
    assert_problem(app.request(Method::POST, &format!("{unknown}/test")).send().await.unwrap(), 404, "not_found").await;
    let stray = format!("{hook}/deliveries/{}/redeliver", uuid::Uuid::now_v7());
    assert_problem(app.request(Method::POST, &stray).send().await.unwrap(), 404, "not_found").await;
    let other_hooks = format!("{paused_hook}/deliveries/{}/redeliver", first["id"].as_str().unwrap());
    assert_problem(app.request(Method::POST, &other_hooks).send().await.unwrap(), 404, "not_found").await;
}
