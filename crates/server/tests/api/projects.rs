//! Projects: create, list, get, patch, with the validation rules.

use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app};

both_backends!(
    a_created_project_has_every_field_and_a_location,
    project_creation_validates_each_field,
    projects_list_newest_first_in_pages,
    page_bounds_are_422_and_wrong_types_400,
    a_patch_changes_only_the_fields_it_names,
    a_patch_is_validated,
    a_project_has_a_time_zone_its_deadlines_are_resolved_in,
);

fn is_millisecond_utc(value: &Value) -> bool {
    let s = value.as_str().unwrap_or_default();
    // 2026-11-21T12:00:00.000Z
    s.len() == 24 && s.ends_with('Z') && s.as_bytes()[19] == b'.' && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

async fn a_created_project_has_every_field_and_a_location(backend: Backend) {
    let app = spawn_app(backend).await;
    let response = app.post_json("/v1/projects", &json!({"name": "  Support PL ", "defaultLanguage": "pl"})).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let project: Value = response.json().await.unwrap();
    let id = project["id"].as_str().unwrap();
    assert_eq!(location, format!("/v1/projects/{id}"));
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 7);
    assert_eq!(project["organizationId"], app.org.to_string());
    assert_eq!(project["name"], "Support PL");
    assert_eq!(project["description"], Value::Null, "absent values are present as null");
    assert_eq!(project["defaultLanguage"], "pl");
    assert_eq!(project["piiRedaction"], "none");
    assert_eq!(project["timeZone"], "UTC", "beyond the spec, UTC unless given");
    assert!(is_millisecond_utc(&project["createdAt"]), "{}", project["createdAt"]);
    assert_eq!(project["createdAt"], project["updatedAt"]);

    let fetched: Value = app.get(&location).await.json().await.unwrap();
    assert_eq!(fetched, project);

    let defaults: Value = app.post_json("/v1/projects", &json!({"name": "x"})).await.json().await.unwrap();
    assert_eq!(defaults["defaultLanguage"], "en");
    let masked: Value = app.post_json("/v1/projects", &json!({"name": "y", "piiRedaction": "mask", "description": "d"})).await.json().await.unwrap();
    assert_eq!(masked["piiRedaction"], "mask");
    assert_eq!(masked["description"], "d");
}

async fn project_creation_validates_each_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let cases = [
        (json!({}), "name", "is required"),
        (json!({"name": ""}), "name", "must not be empty"),
        (json!({"name": "   "}), "name", "must not be empty"),
        (json!({"name": "x".repeat(201)}), "name", "must be at most 200 characters"),
        (json!({"name": "ok", "description": "d".repeat(2001)}), "description", "must be at most 2000 characters"),
        (json!({"name": 7}), "name", "invalid type: integer `7`, expected a string"),
        (json!({"name": null}), "name", "invalid type: null, expected a string"),
        (json!({"name": "ok", "defaultLanguage": "de"}), "defaultLanguage", "unknown variant `de`, expected `en` or `pl`"),
        (json!({"name": "ok", "piiRedaction": "hash"}), "piiRedaction", "unknown variant `hash`, expected `none` or `mask`"),
    ];
    for (body, field, message) in cases {
        let problem = assert_problem(app.post_json("/v1/projects", &body).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"], json!([{"field": field, "message": message}]), "for {body}");
        assert_eq!(problem["detail"], format!("{field}: {message}"));
    }
    let both = json!({"name": "", "description": "d".repeat(2001)});
    let problem = assert_problem(app.post_json("/v1/projects", &both).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 2, "every broken rule is listed");
    assert_eq!(app.post_json("/v1/projects", &json!({"name": "ż".repeat(200)})).await.status(), 201);
    let listed: Value = app.get("/v1/projects").await.json().await.unwrap();
    assert_eq!(listed["total"], 1, "nothing invalid was stored");
}

async fn projects_list_newest_first_in_pages(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(app.create_project(&format!("p{i}")).await["id"].as_str().unwrap().to_owned());
    }
    ids.reverse();
    let page: Value = app.get("/v1/projects").await.json().await.unwrap();
    assert_eq!(page["total"], 5);
    assert_eq!(page["page"], 1);
    assert_eq!(page["pageSize"], 25);
    assert_eq!(page["totalPages"], 1);
    let listed: Vec<&str> = page["data"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(listed, ids);

    let second: Value = app.get("/v1/projects?page=2&pageSize=2").await.json().await.unwrap();
    assert_eq!(second["totalPages"], 3);
    let listed: Vec<&str> = second["data"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(listed, ids[2..4]);
    let past: Value = app.get("/v1/projects?page=9&pageSize=2").await.json().await.unwrap();
    assert_eq!(past["data"], json!([]));
    assert_eq!(past["total"], 5);

    let (_, other_key) = app.other_org("other").await;
    let theirs: Value = app.client.get(app.url("/v1/projects")).header("X-API-Key", other_key).send().await.unwrap().json().await.unwrap();
    assert_eq!(theirs["total"], 0, "a key sees only its organization's projects");
}

async fn page_bounds_are_422_and_wrong_types_400(backend: Backend) {
    let app = spawn_app(backend).await;
    for query in ["page=0", "page=-1", "pageSize=0", "pageSize=101", "page=2147483648"] {
        assert_problem(app.get(&format!("/v1/projects?{query}")).await, 422, "validation_failed").await;
    }
    for query in ["page=abc", "pageSize=1.5", "page=99999999999999999999"] {
        assert_problem(app.get(&format!("/v1/projects?{query}")).await, 400, "bad_request").await;
    }
    assert_eq!(app.get("/v1/projects?pageSize=100").await.status(), 200);
}

async fn a_patch_changes_only_the_fields_it_names(backend: Backend) {
    let app = spawn_app(backend).await;
    let created: Value = app.post_json("/v1/projects", &json!({"name": "Sales", "description": "Outbound"})).await.json().await.unwrap();
    let path = format!("/v1/projects/{}", created["id"].as_str().unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

    let response = app.patch_json(&path, &json!({"defaultLanguage": "pl"})).await;
    assert_eq!(response.status(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["defaultLanguage"], "pl");
    assert_eq!(updated["name"], "Sales");
    assert_eq!(updated["description"], "Outbound");
    assert_eq!(updated["createdAt"], created["createdAt"]);
    assert!(updated["updatedAt"].as_str() > created["updatedAt"].as_str(), "updatedAt moves");

    let updated: Value = app.patch_json(&path, &json!({"name": "Sales EU", "description": null, "piiRedaction": "mask"})).await.json().await.unwrap();
    assert_eq!(updated["name"], "Sales EU");
    assert_eq!(updated["description"], Value::Null, "null clears the description");
    assert_eq!(updated["piiRedaction"], "mask");
    assert_eq!(updated["defaultLanguage"], "pl");
    let fetched: Value = app.get(&path).await.json().await.unwrap();
    assert_eq!(fetched, updated);

    let unchanged: Value = app.patch_json(&path, &json!({})).await.json().await.unwrap();
    assert_eq!(unchanged["name"], "Sales EU");
}

async fn a_patch_is_validated(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await;
    let path = format!("/v1/projects/{}", project["id"].as_str().unwrap());
    let problem = assert_problem(app.patch_json(&path, &json!({"name": ""})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "name");
    let problem = assert_problem(app.patch_json(&path, &json!({"defaultLanguage": "fr"})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "defaultLanguage");
    assert_problem(app.patch_json(&path, &json!({"name": null})).await, 422, "validation_failed").await;
    let fetched: Value = app.get(&path).await.json().await.unwrap();
    assert_eq!(fetched["name"], "Sales", "a rejected patch changes nothing");
    let missing = format!("/v1/projects/{}", uuid::Uuid::now_v7());
    assert_problem(app.patch_json(&missing, &json!({"name": "x"})).await, 404, "not_found").await;
}

/// Beyond the spec: the zone spoken deadlines are resolved in, set at creation or by PATCH,
/// checked against the IANA names.
async fn a_project_has_a_time_zone_its_deadlines_are_resolved_in(backend: Backend) {
    let app = spawn_app(backend).await;
    let created = app.post_json("/v1/projects", &json!({"name": "Warszawa", "timeZone": " Europe/Warsaw "})).await;
    assert_eq!(created.status(), 201);
    let project: Value = created.json().await.unwrap();
    assert_eq!(project["timeZone"], "Europe/Warsaw");
    let path = format!("/v1/projects/{}", project["id"].as_str().unwrap());
    let moved: Value = app.patch_json(&path, &json!({"timeZone": "Europe/London"})).await.json().await.unwrap();
    assert_eq!((&moved["timeZone"], &moved["name"]), (&json!("Europe/London"), &json!("Warszawa")));
    let untouched: Value = app.patch_json(&path, &json!({"name": "Londyn"})).await.json().await.unwrap();
    assert_eq!(untouched["timeZone"], "Europe/London", "a PATCH without it leaves it");
    for (request, body) in
        [("POST", json!({"name": "x", "timeZone": "Mars/Olympus"})), ("PATCH", json!({"timeZone": "CET+1"})), ("PATCH", json!({"timeZone": null}))]
    {
        let response = if request == "POST" { app.post_json("/v1/projects", &body).await } else { app.patch_json(&path, &body).await };
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert!(problem.to_string().contains("timeZone"), "{problem}");
    }
    let fetched: Value = app.get(&path).await.json().await.unwrap();
    assert_eq!(fetched["timeZone"], "Europe/London");
}
