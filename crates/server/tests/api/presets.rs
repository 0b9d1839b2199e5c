//! Speaker presets (decisions §8).

use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app};

both_backends!(presets_are_listed_by_name_with_one_default, preset_input_is_validated);

async fn presets_are_listed_by_name_with_one_default(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await;
    let base = format!("/v1/projects/{}/speaker-presets", project["id"].as_str().unwrap());
    let mut ids = Vec::new();
    for (name, speakers) in [
        ("outbound", json!(["Rep", "Prospect"])),
        ("Inbound", json!(["Agent", "Customer"])),
        ("Escalation", json!(["Agent", "Supervisor", "Customer"])),
    ] {
        let response = app.post_json(&base, &json!({"name": name, "speakers": speakers})).await;
        assert_eq!(response.status(), 201);
        assert!(response.headers().contains_key("location"));
        let preset: Value = response.json().await.unwrap();
        assert_eq!(preset["isDefault"], false, "not default on create");
        assert_eq!(preset["speakers"], speakers);
        ids.push(preset["id"].as_str().unwrap().to_owned());
    }
    let names = |list: &Value| list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let list: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(names(&list), ["Escalation", "Inbound", "outbound"], "by name, ignoring case");

    let defaults = |list: &Value| {
        list.as_array().unwrap().iter().filter(|p| p["isDefault"] == true).map(|p| p["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    let first: Value = app.request(Method::PATCH, &format!("{base}/{}/default", ids[0])).send().await.unwrap().json().await.unwrap();
    assert_eq!(first["isDefault"], true);
    let second = app.request(Method::PATCH, &format!("{base}/{}/default", ids[1])).send().await.unwrap();
    assert_eq!(second.status(), 200);
    let list: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(defaults(&list), [ids[1].clone()], "the new default is the only one");
    let again = app.request(Method::PATCH, &format!("{base}/{}/default", ids[1])).send().await.unwrap();
    assert_eq!(again.status(), 200, "making the default the default again is fine");

    let updated: Value = app
        .request(Method::PUT, &format!("{base}/{}", ids[1]))
        .json(&json!({"speakers": ["Consultant", "Client"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(updated["name"], "Inbound");
    assert_eq!(updated["speakers"], json!(["Consultant", "Client"]));
    assert_eq!(updated["isDefault"], true);
    let renamed: Value =
        app.request(Method::PUT, &format!("{base}/{}", ids[1])).json(&json!({"name": "Inbound PL"})).send().await.unwrap().json().await.unwrap();
    assert_eq!(renamed["speakers"], json!(["Consultant", "Client"]));

    assert_eq!(app.request(Method::DELETE, &format!("{base}/{}", ids[1])).send().await.unwrap().status(), 204);
    let list: Value = app.get(&base).await.json().await.unwrap();
    assert!(defaults(&list).is_empty(), "deleting the default leaves none");
    assert_eq!(list.as_array().unwrap().len(), 2);
    for method in [Method::GET, Method::DELETE] {
        assert_problem(app.request(method, &format!("{base}/{}", ids[1])).send().await.unwrap(), 404, "not_found").await;
    }
    assert_problem(app.request(Method::PATCH, &format!("{base}/{}/default", ids[1])).send().await.unwrap(), 404, "not_found").await;
}

async fn preset_input_is_validated(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await;
    let base = format!("/v1/projects/{}/speaker-presets", project["id"].as_str().unwrap());
    for (body, field) in [
        (json!({"speakers": ["A"]}), "name"),
        (json!({"name": "x"}), "speakers"),
        (json!({"name": "", "speakers": ["A"]}), "name"),
        (json!({"name": "n".repeat(201), "speakers": ["A"]}), "name"),
        (json!({"name": "x", "speakers": []}), "speakers"),
        (json!({"name": "x", "speakers": vec!["A"; 21]}), "speakers"),
        (json!({"name": "x", "speakers": ["A", " "]}), "speakers[1]"),
        (json!({"name": "x", "speakers": ["s".repeat(101)]}), "speakers[0]"),
        (json!({"name": "x", "speakers": "Agent"}), "speakers"),
    ] {
        let problem = assert_problem(app.post_json(&base, &body).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    let created: Value = app.post_json(&base, &json!({"name": "ok", "speakers": vec!["A"; 20]})).await.json().await.unwrap();
    let path = format!("{base}/{}", created["id"].as_str().unwrap());
    for body in [json!({"speakers": []}), json!({"name": null}), json!({"speakers": null})] {
        assert_problem(app.request(Method::PUT, &path).json(&body).send().await.unwrap(), 422, "validation_failed").await;
    }
}
