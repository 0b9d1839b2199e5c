//! Analysis templates (decisions §6).

use callscope_domain::KeyDigest;
use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app};

both_backends!(templates_keep_field_ids_and_one_active, template_bodies_are_validated);

fn qa_template() -> Value {
    json!({
        "name": "Sales QA",
        "description": "Checks for every sales call",
        "fields": [
            {"label": "Offer accepted", "prompt": "Did the customer accept the offer?", "answerType": "BOOLEAN", "isRequired": true},
            {"label": "Product", "prompt": "Which product was discussed?", "answerType": "SINGLE_CHOICE", "options": ["Fibre", "Mobile"]},
            {"label": "Callback", "prompt": "When should we call back?", "answerType": "DATE"}
        ]
    })
}

async fn templates_keep_field_ids_and_one_active(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await;
    let base = format!("/v1/projects/{}/analysis-templates", project["id"].as_str().unwrap());
    let key_id = app.store.authenticate(&KeyDigest::of(&app.key)).await.unwrap().unwrap().key_id;

    let response = app.post_json(&base, &qa_template()).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let first: Value = response.json().await.unwrap();
    assert_eq!(first["userId"], key_id.to_string(), "userId is the creating key's id");
    assert_eq!(first["isActive"], false);
    assert_eq!(first["fields"][0]["isRequired"], true);
    assert_eq!(first["fields"][1]["isRequired"], false);
    assert_eq!(first["fields"][2]["displayOrder"], 2);
    assert_eq!(first["fields"][0]["options"], json!([]));
    assert_eq!(first["fields"][1]["options"], json!(["Fibre", "Mobile"]));
    assert_eq!(app.get(&location).await.json::<Value>().await.unwrap(), first);

    // PUT: fields sent back with their ids keep them; new fields get new ids; isActive omitted keeps.
    let kept = first["fields"][1]["id"].clone();
    let replacement = json!({
        "name": "Sales QA v2",
        "fields": [
            {"id": kept, "label": "Product", "prompt": "Which product?", "answerType": "MULTI_CHOICE", "options": ["Fibre", "Mobile", "TV"]},
            {"label": "Price", "prompt": "What price was quoted?", "answerType": "NUMBER"}
        ]
    });
    let replaced: Value = app.request(Method::PUT, &location).json(&replacement).send().await.unwrap().json().await.unwrap();
    assert_eq!(replaced["name"], "Sales QA v2");
    assert_eq!(replaced["description"], Value::Null, "PUT replaces: an omitted description is gone");
    assert_eq!(replaced["fields"].as_array().unwrap().len(), 2);
    assert_eq!(replaced["fields"][0]["id"], kept);
    assert_eq!(replaced["fields"][0]["answerType"], "MULTI_CHOICE");
    let new_id = replaced["fields"][1]["id"].as_str().unwrap();
    assert!(first["fields"].as_array().unwrap().iter().all(|f| f["id"] != new_id));
    assert_eq!(replaced["createdAt"], first["createdAt"]);
    let dropped = first["fields"][0]["id"].clone();
    let stale = json!({"name": "x", "fields": [{"id": dropped, "label": "l", "prompt": "p", "answerType": "TEXT"}]});
    let problem = assert_problem(app.request(Method::PUT, &location).json(&stale).send().await.unwrap(), 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "fields[0].id", "a field id that is no longer in the template");

    // One active template per project.
    let second: Value = app.post_json(&base, &json!({"name": "Second", "fields": [], "isActive": true})).await.json().await.unwrap();
    assert_eq!(second["isActive"], true);
    let activated: Value = app.request(Method::POST, &format!("{location}/activate")).send().await.unwrap().json().await.unwrap();
    assert_eq!(activated["isActive"], true);
    let list: Value = app.get(&base).await.json().await.unwrap();
    let active: Vec<&str> = list.as_array().unwrap().iter().filter(|t| t["isActive"] == true).map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(active, ["Sales QA v2"]);
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Second", "Sales QA v2"], "newest first");
    let kept_active: Value = app.request(Method::PUT, &location).json(&replacement).send().await.unwrap().json().await.unwrap();
    assert_eq!(kept_active["isActive"], true, "PUT without isActive keeps it");
    let deactivated: Value = app.request(Method::POST, &format!("{location}/deactivate")).send().await.unwrap().json().await.unwrap();
    assert_eq!(deactivated["isActive"], false);
    let third: Value = app.post_json(&base, &json!({"name": "Third", "fields": [], "isActive": true})).await.json().await.unwrap();
    let list: Value = app.get(&base).await.json().await.unwrap();
    let active: Vec<&Value> = list.as_array().unwrap().iter().filter(|t| t["isActive"] == true).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["id"], third["id"], "creating an active template deactivates the others");

    assert_eq!(app.request(Method::DELETE, &location).send().await.unwrap().status(), 204);
    assert_problem(app.get(&location).await, 404, "not_found").await;
    for action in ["activate", "deactivate"] {
        assert_problem(app.request(Method::POST, &format!("{location}/{action}")).send().await.unwrap(), 404, "not_found").await;
    }
    assert_problem(app.request(Method::PUT, &location).json(&replacement).send().await.unwrap(), 404, "not_found").await;
}

async fn template_bodies_are_validated(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Sales").await;
    let base = format!("/v1/projects/{}/analysis-templates", project["id"].as_str().unwrap());
    let field = |answer_type: &str, options: Value| json!({"label": "L", "prompt": "P", "answerType": answer_type, "options": options});
    let text = field("TEXT", Value::Null);
    let cases = [
        (json!({"fields": []}), "name"),
        (json!({"name": "t"}), "fields"),
        (json!({"name": "n".repeat(201), "fields": []}), "name"),
        (json!({"name": "t", "description": "d".repeat(2001), "fields": []}), "description"),
        (json!({"name": "t", "fields": vec![text.clone(); 21]}), "fields"),
        (json!({"name": "t", "fields": [{"label": "", "prompt": "P", "answerType": "TEXT"}]}), "fields[0].label"),
        (json!({"name": "t", "fields": [{"label": "l".repeat(201), "prompt": "P", "answerType": "TEXT"}]}), "fields[0].label"),
        (json!({"name": "t", "fields": [{"label": "L", "prompt": "p".repeat(2001), "answerType": "TEXT"}]}), "fields[0].prompt"),
        (json!({"name": "t", "fields": [{"label": "L", "prompt": "P", "answerType": "ESSAY"}]}), "fields[0].answerType"),
        (json!({"name": "t", "fields": [{"label": "L", "prompt": "P"}]}), "fields[0].answerType"),
        (json!({"name": "t", "fields": [text.clone(), field("NUMBER", json!(["1"]))]}), "fields[1].options"),
        (json!({"name": "t", "fields": [field("SINGLE_CHOICE", Value::Null)]}), "fields[0].options"),
        (json!({"name": "t", "fields": [field("MULTI_CHOICE", json!([]))]}), "fields[0].options"),
        (json!({"name": "t", "fields": [field("MULTI_CHOICE", json!(vec!["o"; 51]))]}), "fields[0].options"),
        (json!({"name": "t", "fields": [field("SINGLE_CHOICE", json!(["a", ""]))]}), "fields[0].options[1]"),
        (json!({"name": "t", "fields": [{"label": "L", "prompt": "P", "answerType": "TEXT", "displayOrder": -1}]}), "fields[0].displayOrder"),
    ];
    for (body, field) in cases {
        let problem = assert_problem(app.post_json(&base, &body).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    for ok in [
        json!({"name": "", "fields": []}),
        json!({"name": "n".repeat(200), "fields": vec![text; 20]}),
        json!({"name": "t", "fields": [field("BOOLEAN", json!([])), field("MULTI_CHOICE", json!(vec!["o"; 50].iter().enumerate().map(|(i, _)| format!("o{i}")).collect::<Vec<_>>()))]}),
    ] {
        assert_eq!(app.post_json(&base, &ok).await.status(), 201, "{ok}");
    }
    let listed: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3, "nothing invalid was stored");
}
