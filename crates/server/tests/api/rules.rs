//! Rules through the API: written and checked like the project's other resources, filing a call
//! when it is processed (with its evidence, a `call.rule_matched` event and the calls list's
//! filter), and filing the calls stored before a rule was made or changed by the workers' sweep,
//! on both backends.

use callscope_domain::{Language, ProjectId};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, call_on_hold, spawn_app, TestApp};

both_backends!(rules_are_written_checked_and_kept_to_their_project);
both_backends!(a_processed_call_is_filed_by_the_rules_with_evidence);
both_backends!(calls_stored_before_a_rule_are_filed_by_the_sweep);

async fn rules_are_written_checked_and_kept_to_their_project(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Rules").await["id"].as_str().unwrap().to_owned();
    let base = format!("/v1/projects/{project}/rules");
    let escalation = json!({"name": "Escalation", "description": "The customer asks for a manager.", "conditions": [
        {"type": "phrase", "phrases": ["manager", "kierownik"], "by": "customer", "window": {"from": "end", "seconds": 120}},
        {"type": "sentiment", "level": "negative"}]});
    let created = app.post_json(&base, &escalation).await;
    assert_eq!(created.status(), 201);
    let location = created.headers()["location"].to_str().unwrap().to_owned();
    let rule: Value = created.json().await.unwrap();
    assert_eq!(location, format!("{base}/{}", rule["id"].as_str().unwrap()));
    assert_eq!((rule["enabled"].clone(), rule["require"].clone()), (json!(true), json!("all")));
    assert_eq!(rule["conditions"][0]["said"], true, "defaults are written out");
    assert_eq!(rule["conditions"][1], json!({"type": "sentiment", "level": "negative", "by": "customer", "during": "end"}));
    assert_eq!(rule["filingPending"], true, "the project's earlier calls are still to be filed");
    let read: Value = app.get(&location).await.json().await.unwrap();
    assert_eq!(read["name"], "Escalation");
    let listed: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);

    let replaced = app
        .put_json(
            &location,
            &json!({"name": "Escalations", "enabled": false, "require": "any", "conditions": [{"type": "interruptions", "over": 2, "by": "agent"}]}),
        )
        .await;
    assert_eq!(replaced.status(), 200);
    let replaced: Value = replaced.json().await.unwrap();
    assert_eq!((replaced["name"].clone(), replaced["enabled"].clone()), (json!("Escalations"), json!(false)));

    // Bad rules: each names its field.
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    let foreign: Value = app.post_json(&format!("/v1/projects/{other}/categories"), &json!({"name": "Billing"})).await.json().await.unwrap();
    for (body, field) in [
        (json!({"name": " ", "conditions": [{"type": "non_talk", "overSeconds": 5}]}), "name"),
        (json!({"name": "x", "conditions": []}), "conditions"),
        (json!({"name": "x", "conditions": [{"type": "phrase", "phrases": [""]}]}), "conditions[0].phrases"),
        (json!({"name": "x", "conditions": [{"type": "non_talk", "overSeconds": -3}]}), "conditions[0].overSeconds"),
        (json!({"name": "x", "conditions": [{"type": "category", "categoryId": foreign["id"]}]}), "conditions[0].categoryId"),
        (json!({"name": "x", "conditions": [{"type": "pii", "piiType": "SHOE_SIZE"}]}), "conditions[0].piiType"),
        (json!({"name": "ESCALATIONS", "conditions": [{"type": "non_talk", "overSeconds": 5}]}), "name"),
    ] {
        let problem = assert_problem(app.post_json(&base, &body).await, 422, "validation_failed").await;
        assert!(problem.to_string().contains(&format!("\"{field}\"")), "{field}: {problem}");
    }
    assert_problem(app.post_json(&base, &json!({"name": "x", "conditions": [{"type": "telepathy"}]})).await, 422, "validation_failed").await;
    // Another project's rule is not found there.
    assert_problem(app.get(&format!("/v1/projects/{other}/rules/{}", rule["id"].as_str().unwrap())).await, 404, "not_found").await;
    assert_eq!(app.request(reqwest::Method::DELETE, &location).send().await.unwrap().status(), 204);
    assert_problem(app.get(&location).await, 404, "not_found").await;
}

async fn a_processed_call_is_filed_by_the_rules_with_evidence(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Filing").await["id"].as_str().unwrap().to_owned();
    let base = format!("/v1/projects/{project}");
    let rule = |body: Value| {
        let (app, base) = (&app, &base);
        async move {
            let created: Value = app.post_json(&format!("{base}/rules"), &body).await.json().await.unwrap();
            created["id"].as_str().unwrap().to_owned()
        }
    };
    let hold = rule(json!({"name": "Long hold", "conditions": [{"type": "non_talk", "overSeconds": 6}]})).await;
    let parcel = rule(
        json!({"name": "Parcel", "conditions": [{"type": "phrase", "phrases": ["parcel", "paczka"], "by": "customer", "window": {"from": "end", "seconds": 15}}]}),
    )
    .await;
    let refund = rule(json!({"name": "Refund", "conditions": [{"type": "phrase", "phrases": ["refund"]}]})).await;
    let bytes = call_on_hold(1.0);
    let (_, call) = app.process_call(&project, "", "hold.wav", bytes).await;
    let detail: Value = app.get(&format!("{base}/calls/{call}")).await.json().await.unwrap();
    // Uploaded without roles: the speakers are named by their words, the one who answers and
    // puts the caller on hold the agent.
    let speakers = detail["speakers"].as_array().unwrap();
    assert_eq!((speakers[0]["name"].as_str(), speakers[0]["role"].as_str()), (Some("Agent"), Some("agent")), "{speakers:?}");
    assert_eq!((speakers[1]["name"].as_str(), speakers[1]["role"].as_str()), (Some("Customer"), Some("customer")), "{speakers:?}");
    assert!(speakers[0]["roleConfidence"].as_f64().is_some_and(|c| c > 0.9), "{speakers:?}");
    let matches = detail["ruleMatches"].as_array().unwrap();
    let labels: Vec<&str> = matches.iter().map(|m| m["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["Long hold", "Parcel"], "{matches:?}");
    assert!(matches[0]["evidence"][0]["text"].as_str().unwrap().ends_with("s nobody talks"), "{matches:?}");
    assert!(matches[1]["evidence"][0]["text"].as_str().unwrap().contains("parcel"), "{matches:?}");
    assert!(matches[1]["evidence"][0]["atMs"].as_i64().unwrap() > 8_000, "the customer's turn, after the music");

    let listed = |query: String| {
        let app = &app;
        let base = base.clone();
        async move {
            let page: Value = app.get(&format!("{base}/calls?{query}")).await.json().await.unwrap();
            page["total"].as_u64().unwrap()
        }
    };
    assert_eq!(listed(format!("ruleId={hold}")).await, 1);
    assert_eq!(listed(format!("ruleId={parcel}")).await, 1);
    assert_eq!(listed(format!("ruleId={refund}")).await, 0);
    assert_problem(app.get(&format!("{base}/calls?ruleId=nope")).await, 422, "validation_failed").await;
    assert_problem(app.get(&format!("{base}/calls?ruleId={}", uuid::Uuid::now_v7())).await, 422, "validation_failed").await;

    let events = app.store.list_events(ProjectId(project.parse().unwrap())).await.unwrap();
    let matched: Vec<&Value> = events.iter().filter(|(kind, _)| kind == "call.rule_matched").map(|(_, payload)| payload).collect();
    assert_eq!(matched.len(), 2, "{matched:?}");
    assert!(matched.iter().all(|m| m["callId"] == call.to_string()));
}

/// Runs the rules sweep until it has nothing left.
async fn sweep(app: &TestApp) {
    for _ in 0..20 {
        if !app.run_rule_sweep().await {
            return;
        }
    }
    panic!("the sweep never ended");
}

async fn calls_stored_before_a_rule_are_filed_by_the_sweep(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sweep").await["id"].as_str().unwrap().to_owned();
    let project_id = ProjectId(project.parse().unwrap());
    let base = format!("/v1/projects/{project}");
    let mut angry = text_call(Language::En, "Angry", "Hello, how can I help?\nGet me your manager, now.", "s");
    angry.transcript.speakers = ["agent", "customer"]
        .iter()
        .enumerate()
        .map(|(i, name)| callscope_domain::SpeakerStats {
            speaker_id: format!("speaker_{}", i + 1),
            name: (*name).into(),
            talk_ratio: 0.5,
            turn_count: 1,
            word_count: 5,
            total_duration_s: 4.5,
            role: None,
            role_confidence: None,
        })
        .collect();
    let angry = store_call(app.store.as_ref(), project_id, &angry).await.to_string();
    let calm = store_call(app.store.as_ref(), project_id, &text_call(Language::En, "Calm", "Thanks, bye.", "s")).await.to_string();
    assert!(!app.run_rule_sweep().await, "no rule, nothing to sweep");

    let created: Value = app
        .post_json(
            &format!("{base}/rules"),
            &json!({"name": "Manager", "conditions": [{"type": "phrase", "phrases": ["manager"], "by": "customer"}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let rule = created["id"].as_str().unwrap().to_owned();
    sweep(&app).await;
    let read: Value = app.get(&format!("{base}/rules/{rule}")).await.json().await.unwrap();
    assert_eq!((read["filingPending"].clone(), read["callsFiled"].clone()), (json!(false), json!(2)), "{read}");
    let detail: Value = app.get(&format!("{base}/calls/{angry}")).await.json().await.unwrap();
    assert_eq!(detail["ruleMatches"][0]["label"], "Manager", "{detail}");
    assert_eq!(detail["ruleMatches"][0]["evidence"][0]["text"], "Get me your manager, now.");
    let calm_detail: Value = app.get(&format!("{base}/calls/{calm}")).await.json().await.unwrap();
    assert_eq!(calm_detail["ruleMatches"], json!([]));

    // Changed to what the agent says: the customer's words no longer match.
    let changed = json!({"name": "Manager", "conditions": [{"type": "phrase", "phrases": ["manager"], "by": "agent"}]});
    assert_eq!(app.put_json(&format!("{base}/rules/{rule}"), &changed).await.status(), 200);
    sweep(&app).await;
    let detail: Value = app.get(&format!("{base}/calls/{angry}")).await.json().await.unwrap();
    assert_eq!(detail["ruleMatches"], json!([]), "{detail}");
    let events = app.store.list_events(project_id).await.unwrap();
    assert_eq!(events.iter().filter(|(kind, _)| kind == "call.rule_matched").count(), 1, "one match, one event");
}
