//! Tenancy: a key of another organization reaches nothing of this one. Every project-scoped
//! route is listed here; each new route must be added (the OpenAPI test checks the list is
//! complete), and each answers 404, never 403, to a foreign key. Nested ids are real resources
//! of the project, so the owner's request succeeds where the intruder's is refused.

use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app_with, TestApp};

both_backends!(another_organizations_key_gets_404_on_every_project_route);

/// A project-scoped route: method, path template and a valid body. `{projectId}` is filled in,
/// and `{id}` with the resource that `Fixture` names.
pub struct ScopedRoute {
    pub method: Method,
    pub path: &'static str,
    pub body: Option<Value>,
    pub id: Fixture,
}

/// Which resource of the project fills `{id}`.
#[derive(Clone, Copy)]
pub enum Fixture {
    /// No nested id: the route is the project's own.
    Own,
    Category,
    Preset,
    Template,
    Rule,
    Webhook,
    Job,
    Call,
    ActionItem,
    /// A second item of the same call, merged into the first.
    OtherItem,
}

fn route(method: Method, path: &'static str, body: Option<Value>, id: Fixture) -> ScopedRoute {
    ScopedRoute { method, path, body, id }
}

/// Every route under `/v1/projects/{projectId}`. Destructive routes come last.
pub fn project_routes() -> Vec<ScopedRoute> {
    use Fixture::*;
    let template = json!({"name": "QA", "fields": [{"label": "Ok", "prompt": "Was it ok?", "answerType": "BOOLEAN"}]});
    let rule = json!({"name": "Escalation", "conditions": [{"type": "phrase", "phrases": ["manager"]}]});
    vec![
        route(Method::GET, "/v1/projects/{projectId}", None, Own),
        route(Method::PATCH, "/v1/projects/{projectId}", Some(json!({"name": "Renamed"})), Own),
        route(Method::GET, "/v1/projects/{projectId}/categories", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/categories", Some(json!({"name": "Fresh"})), Own),
        route(Method::GET, "/v1/projects/{projectId}/categories/{id}", None, Category),
        route(Method::PUT, "/v1/projects/{projectId}/categories/{id}", Some(json!({"description": "d"})), Category),
        route(Method::PATCH, "/v1/projects/{projectId}/categories/{id}/move", Some(json!({"parentId": null})), Category),
        route(Method::GET, "/v1/projects/{projectId}/speaker-presets", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/speaker-presets", Some(json!({"name": "P", "speakers": ["A"]})), Own),
        route(Method::GET, "/v1/projects/{projectId}/speaker-presets/{id}", None, Preset),
        route(Method::PUT, "/v1/projects/{projectId}/speaker-presets/{id}", Some(json!({"speakers": ["B"]})), Preset),
        route(Method::PATCH, "/v1/projects/{projectId}/speaker-presets/{id}/default", None, Preset),
        route(Method::GET, "/v1/projects/{projectId}/analysis-templates", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/analysis-templates", Some(template.clone()), Own),
        route(Method::GET, "/v1/projects/{projectId}/analysis-templates/{id}", None, Template),
        route(Method::PUT, "/v1/projects/{projectId}/analysis-templates/{id}", Some(template), Template),
        route(Method::POST, "/v1/projects/{projectId}/analysis-templates/{id}/activate", None, Template),
        route(Method::POST, "/v1/projects/{projectId}/analysis-templates/{id}/deactivate", None, Template),
        route(Method::GET, "/v1/projects/{projectId}/vocabulary", None, Own),
        route(Method::PUT, "/v1/projects/{projectId}/vocabulary", Some(json!({"terms": [{"term": "Acme"}]})), Own),
        route(Method::GET, "/v1/projects/{projectId}/rules", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/rules", Some(rule.clone()), Own),
        route(Method::GET, "/v1/projects/{projectId}/rules/{id}", None, Rule),
        route(
            Method::PUT,
            "/v1/projects/{projectId}/rules/{id}",
            Some(json!({"name": "Renamed", "conditions": [{"type": "non_talk", "overSeconds": 5}]})),
            Rule,
        ),
        route(Method::GET, "/v1/projects/{projectId}/webhooks", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/calls/upload", None, Own),
        route(Method::POST, "/v1/projects/{projectId}/webhooks", Some(json!({"url": "https://93.184.216.34/hook", "events": ["*"]})), Own),
        route(Method::GET, "/v1/projects/{projectId}/webhooks/{id}", None, Webhook),
        route(Method::PATCH, "/v1/projects/{projectId}/webhooks/{id}/toggle", None, Webhook),
        route(Method::GET, "/v1/projects/{projectId}/webhooks/{id}/deliveries", None, Webhook),
        route(Method::POST, "/v1/projects/{projectId}/webhooks/{id}/test", None, Webhook),
        route(Method::POST, "/v1/projects/{projectId}/webhooks/{id}/deliveries/{deliveryId}/redeliver", None, Webhook),
        route(Method::GET, "/v1/projects/{projectId}/calls/jobs/{id}", None, Job),
        route(Method::GET, "/v1/projects/{projectId}/calls", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/calls/export", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/action-items/export", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/calls/search", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/dashboard/sentiment", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/dashboard/characteristics", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/calls/{id}", None, Call),
        route(Method::PATCH, "/v1/projects/{projectId}/calls/{id}/category", Some(json!({"categoryId": null})), Call),
        route(Method::PUT, "/v1/projects/{projectId}/calls/{id}/speakers", Some(json!({"names": {"speaker_1": "Agent"}})), Call),
        route(Method::POST, "/v1/projects/{projectId}/calls/{id}/reanalyze", None, Call),
        route(Method::GET, "/v1/projects/{projectId}/calls/{id}/words", None, Call),
        route(Method::GET, "/v1/projects/{projectId}/calls/{id}/transcript", None, Call),
        route(Method::GET, "/v1/projects/{projectId}/calls/{id}/audio", None, Call),
        route(Method::GET, "/v1/projects/{projectId}/calls/{id}/audio/content", None, Call),
        route(Method::POST, "/v1/projects/{projectId}/calls/{id}/audio/link", None, Call),
        route(Method::GET, "/v1/projects/{projectId}/action-items", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/action-items/responsible-parties", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/action-items/pending", None, Own),
        route(Method::GET, "/v1/projects/{projectId}/action-items/{id}", None, ActionItem),
        route(Method::PATCH, "/v1/projects/{projectId}/action-items/{id}", Some(json!({"status": "IN_PROGRESS"})), ActionItem),
        route(Method::POST, "/v1/projects/{projectId}/calls/{id}/action-items", Some(json!({"description": "Send the annex"})), Call),
        route(Method::POST, "/v1/projects/{projectId}/action-items/{id}/merge", Some(json!({"into": "{actionItemId}"})), OtherItem),
        route(Method::DELETE, "/v1/projects/{projectId}/categories/{id}", None, Category),
        route(Method::DELETE, "/v1/projects/{projectId}/categories", None, Own),
        route(Method::DELETE, "/v1/projects/{projectId}/speaker-presets/{id}", None, Preset),
        route(Method::DELETE, "/v1/projects/{projectId}/analysis-templates/{id}", None, Template),
        route(Method::DELETE, "/v1/projects/{projectId}/rules/{id}", None, Rule),
        route(Method::DELETE, "/v1/projects/{projectId}/webhooks/{id}", None, Webhook),
        route(Method::DELETE, "/v1/projects/{projectId}/action-items/{id}", None, ActionItem),
        route(Method::DELETE, "/v1/projects/{projectId}/calls/{id}", None, Call),
        route(Method::DELETE, "/v1/projects/{projectId}/calls/jobs/{id}", None, Job),
    ]
}

/// Ids of one resource of each kind in the project.
struct Fixtures {
    category: String,
    preset: String,
    template: String,
    rule: String,
    webhook: String,
    /// A delivery of the webhook.
    delivery: String,
    job: String,
    call: String,
    action_item: String,
    other_item: String,
}

async fn create(app: &TestApp, path: String, body: Value) -> String {
    let response = app.post_json(&path, &body).await;
    assert_eq!(response.status(), 201, "creating {path}");
    response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned()
}

async fn fixtures(app: &TestApp, project: &str) -> Fixtures {
    let base = format!("/v1/projects/{project}");
    // A call with an action item, stored as a worker stores one (workers are off, so that the
    // job below stays queued), and its audio in the storage.
    let mut stored = callscope_store::testing::text_call(callscope_domain::Language::En, "A call", "Please call me back.", "");
    stored.transcript.speakers = vec![callscope_domain::SpeakerStats {
        speaker_id: "speaker_1".into(),
        name: "Speaker 1".into(),
        talk_ratio: 1.0,
        turn_count: 1,
        word_count: 4,
        total_duration_s: 1.5,
        role: None,
        role_confidence: None,
    }];
    let item = callscope_domain::NewActionItem {
        id: callscope_domain::ActionItemId::new(),
        description: "Call the customer back".into(),
        responsible_party: Some("agent".into()),
        deadline_mentioned: None,
        due_at: None,
        evidence: None,
        priority: callscope_domain::ActionItemPriority::Medium,
    };
    let action_item = item.id.0.to_string();
    let other = callscope_domain::NewActionItem { id: callscope_domain::ActionItemId::new(), description: "Call back again".into(), ..item.clone() };
    let other_item = other.id.0.to_string();
    stored.analysis.as_mut().unwrap().action_items.extend([item, other]);
    let audio = app.config.data_dir.join("audio").join(&stored.storage_path);
    std::fs::create_dir_all(audio.parent().unwrap()).unwrap();
    let bytes = crate::helpers::wav_bytes(8_000, 2, 0.7);
    stored.size_bytes = i64::try_from(bytes.len()).unwrap();
    std::fs::write(&audio, bytes).unwrap();
    let webhook = create(app, format!("{base}/webhooks"), json!({"url": "https://93.184.216.34/x", "events": ["*"]})).await;
    let test = app.request(Method::POST, &format!("{base}/webhooks/{webhook}/test")).send().await.unwrap();
    assert_eq!(test.status(), 202);
    let delivery = test.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let call =
        callscope_store::testing::store_call(app.store.as_ref(), callscope_domain::ProjectId(project.parse().unwrap()), &stored).await.0.to_string();
    Fixtures {
        call,
        action_item,
        other_item,
        category: create(app, format!("{base}/categories"), json!({"name": "Billing"})).await,
        preset: create(app, format!("{base}/speaker-presets"), json!({"name": "Sales", "speakers": ["Agent"]})).await,
        template: create(app, format!("{base}/analysis-templates"), json!({"name": "T", "fields": []})).await,
        rule: create(app, format!("{base}/rules"), json!({"name": "Pauses", "conditions": [{"type": "non_talk", "overSeconds": 30}]})).await,
        webhook,
        delivery,
        // A failed job: readable, and (last of all) deletable.
        job: {
            let failed = app.upload_and_wait(project, "", "a.wav", crate::helpers::broken_wav(0x5A, 1024)).await;
            assert_eq!(failed["status"], "FAILED");
            failed["jobId"].as_str().unwrap().to_owned()
        },
    }
}

async fn send(app: &TestApp, route: &ScopedRoute, project_id: &str, ids: &Fixtures, key: &str) -> reqwest::Response {
    let id = match route.id {
        Fixture::Own => "",
        Fixture::Category => &ids.category,
        Fixture::Preset => &ids.preset,
        Fixture::Template => &ids.template,
        Fixture::Rule => &ids.rule,
        Fixture::Webhook => &ids.webhook,
        Fixture::Job => &ids.job,
        Fixture::Call => &ids.call,
        Fixture::ActionItem => &ids.action_item,
        Fixture::OtherItem => &ids.other_item,
    };
    let mut path = route.path.replace("{projectId}", project_id).replace("{id}", id).replace("{deliveryId}", &ids.delivery);
    if route.path.ends_with("/calls/search") {
        path.push_str("?q=call");
    }
    if route.path.ends_with("/calls/upload") {
        let part = reqwest::multipart::Part::bytes(crate::helpers::wav_bytes(8_000, 1, 0.3)).file_name("t.wav");
        let form = reqwest::multipart::Form::new().part("file", part);
        let url = app.url(&format!("{path}?force=true"));
        return app.client.post(url).header("X-API-Key", key).multipart(form).send().await.unwrap();
    }
    let mut request = app.request_as(key, route.method.clone(), &path);
    if let Some(body) = &route.body {
        let body = serde_json::to_string(body).unwrap().replace("{actionItemId}", &ids.action_item);
        request = request.header("content-type", "application/json").body(body);
    }
    request.send().await.unwrap()
}

async fn another_organizations_key_gets_404_on_every_project_route(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.workers = 0).await;
    let project = app.create_project("Ours").await;
    let id = project["id"].as_str().unwrap();
    let (_, foreign_key) = app.other_org("intruder").await;
    let ids = fixtures(&app, id).await;
    // The intruder's own project: its nested ids must not reach ours either.
    let intruder_project = app.create_project_as(&foreign_key, "Theirs").await;
    let theirs = intruder_project["id"].as_str().unwrap();

    for route in project_routes() {
        let foreign = send(&app, &route, id, &ids, &foreign_key).await;
        let problem = assert_problem(foreign, 404, "not_found").await;
        assert!(!problem["detail"].as_str().unwrap().contains("forbidden"));
        if !matches!(route.id, Fixture::Own) {
            // Our resource id under their project: still nothing.
            let nested = send(&app, &route, theirs, &ids, &foreign_key).await;
            assert_problem(nested, 404, "not_found").await;
        }
        // The same request with the owner's key reaches the project: the 404 above was tenancy.
        let own = send(&app, &route, id, &ids, &app.key).await;
        assert!(own.status().is_success(), "{} {} with the owner's key: {}", route.method, route.path, own.status());
    }
    let after: Value = app.get(&format!("/v1/projects/{id}")).await.json().await.unwrap();
    assert_eq!(after["name"], "Renamed", "only the owner's PATCH landed");
}
