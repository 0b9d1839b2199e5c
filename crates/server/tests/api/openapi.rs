//! The OpenAPI document: 3.1, generated from the code, listing every route the server answers,
//! and the offline documentation page.

use callscope_store::Backend;
use reqwest::Method;
use serde_json::Value;

use crate::helpers::spawn_app;
use crate::tenancy::project_routes;

both_backends!(
    the_document_lists_every_route_and_every_documented_route_is_served,
    the_docs_page_needs_no_internet,
    every_response_of_the_api_has_a_real_schema
);

/// Every route the service has: (method, path). A route added to the server must be added here
/// and to the document; one missing from either fails this test.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("POST", "/v1/projects"),
    ("GET", "/v1/projects"),
    ("GET", "/v1/projects/{projectId}"),
    ("PATCH", "/v1/projects/{projectId}"),
    ("GET", "/v1/projects/{projectId}/categories"),
    ("POST", "/v1/projects/{projectId}/categories"),
    ("DELETE", "/v1/projects/{projectId}/categories"),
    ("GET", "/v1/projects/{projectId}/categories/{id}"),
    ("PUT", "/v1/projects/{projectId}/categories/{id}"),
    ("DELETE", "/v1/projects/{projectId}/categories/{id}"),
    ("PATCH", "/v1/projects/{projectId}/categories/{id}/move"),
    ("GET", "/v1/projects/{projectId}/speaker-presets"),
    ("POST", "/v1/projects/{projectId}/speaker-presets"),
    ("GET", "/v1/projects/{projectId}/speaker-presets/{id}"),
    ("PUT", "/v1/projects/{projectId}/speaker-presets/{id}"),
    ("DELETE", "/v1/projects/{projectId}/speaker-presets/{id}"),
    ("PATCH", "/v1/projects/{projectId}/speaker-presets/{id}/default"),
    ("GET", "/v1/projects/{projectId}/analysis-templates"),
    ("POST", "/v1/projects/{projectId}/analysis-templates"),
    ("GET", "/v1/projects/{projectId}/analysis-templates/{id}"),
    ("PUT", "/v1/projects/{projectId}/analysis-templates/{id}"),
    ("DELETE", "/v1/projects/{projectId}/analysis-templates/{id}"),
    ("POST", "/v1/projects/{projectId}/analysis-templates/{id}/activate"),
    ("POST", "/v1/projects/{projectId}/analysis-templates/{id}/deactivate"),
    ("GET", "/v1/projects/{projectId}/rules"),
    ("POST", "/v1/projects/{projectId}/rules"),
    ("GET", "/v1/projects/{projectId}/rules/{id}"),
    ("PUT", "/v1/projects/{projectId}/rules/{id}"),
    ("DELETE", "/v1/projects/{projectId}/rules/{id}"),
    ("GET", "/v1/projects/{projectId}/vocabulary"),
    ("PUT", "/v1/projects/{projectId}/vocabulary"),
    ("GET", "/v1/projects/{projectId}/webhooks"),
    ("POST", "/v1/projects/{projectId}/webhooks"),
    ("GET", "/v1/projects/{projectId}/webhooks/{id}"),
    ("DELETE", "/v1/projects/{projectId}/webhooks/{id}"),
    ("PATCH", "/v1/projects/{projectId}/webhooks/{id}/toggle"),
    ("GET", "/v1/projects/{projectId}/webhooks/{id}/deliveries"),
    ("POST", "/v1/projects/{projectId}/webhooks/{id}/test"),
    ("POST", "/v1/projects/{projectId}/webhooks/{id}/deliveries/{deliveryId}/redeliver"),
    ("POST", "/v1/projects/{projectId}/calls/upload"),
    ("GET", "/v1/projects/{projectId}/calls/jobs/{id}"),
    ("DELETE", "/v1/projects/{projectId}/calls/jobs/{id}"),
    ("GET", "/v1/projects/{projectId}/calls"),
    ("GET", "/v1/projects/{projectId}/calls/export"),
    ("GET", "/v1/projects/{projectId}/action-items/export"),
    ("GET", "/v1/projects/{projectId}/calls/search"),
    ("GET", "/v1/projects/{projectId}/dashboard/sentiment"),
    ("GET", "/v1/projects/{projectId}/dashboard/characteristics"),
    ("GET", "/v1/projects/{projectId}/calls/{id}"),
    ("DELETE", "/v1/projects/{projectId}/calls/{id}"),
    ("GET", "/v1/projects/{projectId}/calls/{id}/words"),
    ("GET", "/v1/projects/{projectId}/calls/{id}/transcript"),
    ("PATCH", "/v1/projects/{projectId}/calls/{id}/category"),
    ("PUT", "/v1/projects/{projectId}/calls/{id}/speakers"),
    ("POST", "/v1/projects/{projectId}/calls/{id}/reanalyze"),
    ("POST", "/v1/projects/{projectId}/calls/{id}/action-items"),
    ("POST", "/v1/projects/{projectId}/action-items/{id}/merge"),
    ("GET", "/v1/projects/{projectId}/calls/{id}/audio"),
    ("GET", "/v1/projects/{projectId}/calls/{id}/audio/content"),
    ("POST", "/v1/projects/{projectId}/calls/{id}/audio/link"),
    ("GET", "/audio/{token}"),
    ("GET", "/v1/projects/{projectId}/action-items"),
    ("GET", "/v1/projects/{projectId}/action-items/responsible-parties"),
    ("GET", "/v1/projects/{projectId}/action-items/pending"),
    ("GET", "/v1/projects/{projectId}/action-items/{id}"),
    ("PATCH", "/v1/projects/{projectId}/action-items/{id}"),
    ("DELETE", "/v1/projects/{projectId}/action-items/{id}"),
];

async fn the_document_lists_every_route_and_every_documented_route_is_served(backend: Backend) {
    let app = spawn_app(backend).await;
    let response = app.client.get(app.url("/openapi.json")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let doc: Value = response.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"), "{}", doc["openapi"]);
    assert_eq!(doc["components"]["securitySchemes"]["apiKey"]["name"], "X-API-Key");
    let description = doc["info"]["description"].as_str().unwrap();
    for name in [
        "EMAIL", "PHONE_NUMBER", "PESEL", "NIP", "REGON", "IBAN", "PAYMENT_CARD", "ID_CARD", "PASSPORT", "DATE_OF_BIRTH", "POSTAL_CODE", "ADDRESS",
        "PERSON_NAME",
    ] {
        assert!(description.contains(&format!("- `{name}`: ")), "the PII type {name} is documented");
    }
    for schema in ["Problem", "ProjectView", "CategoryTreeNode", "SpeakerPresetView", "AnalysisTemplateView", "CreatedWebhookView"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "schema {schema} is documented");
    }

    let resolve = |schema: &Value| -> Value {
        match schema["$ref"].as_str() {
            Some(r) => doc["components"]["schemas"][r.rsplit('/').next().unwrap()].clone(),
            None => schema.clone(),
        }
    };
    let mut documented = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if let Some(op) = item.get(method) {
                documented.push((method.to_uppercase(), path.clone()));
                assert!(op["responses"].as_object().is_some_and(|r| !r.is_empty()), "{method} {path} documents responses");
                assert!(op["summary"].as_str().is_some_and(|s| !s.is_empty()), "{method} {path} has a summary");
                // The errors every route of its kind can give are documented on each.
                let mut common = Vec::new();
                if path.starts_with("/v1") {
                    common.extend(["401", "429", "503"]);
                } else if path.starts_with("/audio") {
                    common.extend(["429", "503"]);
                }
                if path.starts_with("/v1/projects/{projectId}") {
                    common.push("404");
                }
                if op["requestBody"]["content"].get("application/json").is_some() {
                    common.extend(["400", "413", "415"]);
                }
                for status in common {
                    assert!(op["responses"].get(status).is_some(), "{method} {path} documents its {status}");
                }
                if let Some(body) = op.get("requestBody").filter(|b| b["content"].get("multipart/form-data").is_none()) {
                    let media = &body["content"]["application/json"];
                    let schema = resolve(&media["schema"]);
                    assert!(schema.is_object(), "{method} {path} documents its request schema");
                    assert!(media.get("example").is_some() || schema.get("example").is_some(), "{method} {path} has a request example");
                }
                for (status, response) in op["responses"].as_object().unwrap() {
                    if status.starts_with('4') || status.starts_with('5') {
                        assert!(
                            response["content"]["application/problem+json"]["schema"].is_object(),
                            "{method} {path} {status} is documented as a problem"
                        );
                    }
                    let is_bytes = response["content"].get("application/octet-stream").is_some();
                    // A file of text (a transcript as subtitles) is documented as a string in each
                    // of its media types; everything else as JSON.
                    let text_files: Vec<&Value> = response["content"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(media, _)| media.starts_with("text/") || *media == "application/x-subrip")
                        .map(|(_, body)| body)
                        .collect();
                    if status.starts_with('2') && status != "204" && path.starts_with("/v1") && !is_bytes {
                        if text_files.is_empty() {
                            let schema = &response["content"]["application/json"]["schema"];
                            assert!(schema.is_object(), "{method} {path} {status} documents its response schema");
                        } else {
                            assert!(
                                text_files.iter().all(|body| body["schema"]["type"] == "string"),
                                "{method} {path} {status}: text files are strings"
                            );
                        }
                    }
                }
            }
        }
    }
    let mut expected: Vec<(String, String)> = ROUTES.iter().map(|(m, p)| ((*m).to_owned(), (*p).to_owned())).collect();
    expected.sort();
    documented.sort();
    assert_eq!(documented, expected, "the document and the route list differ");

    // Every project-scoped route is in the tenancy walk.
    for (method, path) in &expected {
        if path.starts_with("/v1/projects/{projectId}") {
            assert!(
                project_routes().iter().any(|r| r.method.as_str() == method && r.path == path),
                "{method} {path} is missing from the cross-organization test"
            );
        }
    }

    // And every documented route is really served: not the router's 404 or 405.
    let project = app.create_project("p").await;
    for (method, path) in &documented {
        let url = path.replace("{projectId}", project["id"].as_str().unwrap()).replace("{id}", &uuid::Uuid::now_v7().to_string());
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = app.request(method.clone(), &url);
        if method != Method::GET {
            request = request.json(&serde_json::json!({"name": "n"}));
        }
        let response = request.send().await.unwrap();
        assert_ne!(response.status(), 405, "{method} {path}");
        if path.contains("{token}") {
            // An audio link is its own credential: a made-up one is refused by the route itself.
            let body: Value = response.json().await.unwrap();
            assert!(body["detail"].as_str().unwrap().contains("audio link"), "{method} {path}: {body}");
            continue;
        }
        assert_ne!(response.status(), 401, "{method} {path}");
        if response.status() == 404 {
            let body: Value = response.json().await.unwrap();
            assert_ne!(body["detail"], "no route matches this path", "{method} {path} is not served");
        }
    }
}

async fn the_docs_page_needs_no_internet(backend: Backend) {
    let app = spawn_app(backend).await;
    let response = app.client.get(app.url("/docs")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = response.text().await.unwrap();
    assert!(html.contains("/openapi.json"), "the page renders the served document");
    for external in ["http://", "https://", "//cdn", "src=\"//"] {
        assert!(!html.contains(external), "the page loads {external}…");
    }
}

/// Where, under `schema`, a response says "an object" or "anything" without saying what it
/// holds: each such place as a path of property names, `$ref`s followed (once each).
fn vague_schemas(doc: &Value, schema: &Value, at: &str, followed: &mut std::collections::HashSet<String>, out: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap();
        if followed.insert(name.to_owned()) {
            vague_schemas(doc, &doc["components"]["schemas"][name], &format!("{at}<{name}>"), followed, out);
        }
        return;
    }
    let Some(object) = schema.as_object() else { return };
    let mut composed = false;
    for key in ["allOf", "oneOf", "anyOf"] {
        for (i, part) in schema[key].as_array().into_iter().flatten().enumerate() {
            composed = true;
            vague_schemas(doc, part, &format!("{at}/{key}[{i}]"), followed, out);
        }
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        vague_schemas(doc, property, &format!("{at}.{name}"), followed, out);
    }
    if schema["items"].is_object() {
        vague_schemas(doc, &schema["items"], &format!("{at}[]"), followed, out);
    }
    let typed_map = schema["additionalProperties"].is_object();
    if typed_map {
        vague_schemas(doc, &schema["additionalProperties"], &format!("{at}{{}}"), followed, out);
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let says_nothing = object.keys().all(|k| ["description", "default", "example", "examples", "nullable"].contains(&k.as_str()));
    let bare_object = types.contains(&"object") && !schema["properties"].is_object() && !typed_map && !composed;
    if says_nothing || bare_object {
        out.push(at.to_owned());
    }
}

async fn every_response_of_the_api_has_a_real_schema(backend: Backend) {
    let app = spawn_app(backend).await;
    let doc: Value = app.client.get(app.url("/openapi.json")).send().await.unwrap().json().await.unwrap();
    // What the walk must catch: what `schema(value_type = Object)` and `serde_json::Value` write.
    for vague in [serde_json::json!({"type": "object"}), serde_json::json!({"type": ["object", "null"]}), serde_json::json!({})] {
        let mut found = Vec::new();
        vague_schemas(&doc, &serde_json::json!({"properties": {"x": vague}}), "", &mut std::collections::HashSet::new(), &mut found);
        assert_eq!(found, [".x"]);
    }
    let mut seen = std::collections::HashSet::new();
    let mut vague = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/v1") {
            continue;
        }
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().into_iter().flatten() {
                for (media, content) in response["content"].as_object().into_iter().flatten() {
                    if media == "application/octet-stream" || media.starts_with("audio/") {
                        continue;
                    }
                    let mut found = Vec::new();
                    let mut followed = std::collections::HashSet::new();
                    vague_schemas(&doc, &content["schema"], "", &mut followed, &mut found);
                    seen.extend(followed);
                    vague.extend(found.into_iter().map(|at| format!("{method} {path} {status}: {at}")));
                }
            }
        }
    }
    for record in ["CallDetailView", "Classification", "CategoryMatch", "CallSummaryBlock", "ActionItemView", "TemplateAnalysis", "CallListing"] {
        assert!(seen.contains(record), "the walk reached {record}: {seen:?}");
    }
    assert!(vague.is_empty(), "responses that say \"an object\" or \"anything\" without saying what:\n{}", vague.join("\n"));
}
