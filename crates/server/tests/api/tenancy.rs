//! Tenancy: a key of another organization reaches nothing of this one. Every project-scoped
//! route is listed here; each new route must be added (the OpenAPI test checks the list is
//! complete), and each answers 404, never 403, to a foreign key.

use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, TestApp};

both_backends!(another_organizations_key_gets_404_on_every_project_route);

/// A project-scoped route: method, path template (`{projectId}` is filled in) and a valid body.
pub struct ScopedRoute {
    pub method: Method,
    pub path: &'static str,
    pub body: Option<Value>,
}

/// Every route under `/v1/projects/{projectId}`.
pub fn project_routes() -> Vec<ScopedRoute> {
    vec![
        ScopedRoute { method: Method::GET, path: "/v1/projects/{projectId}", body: None },
        ScopedRoute { method: Method::PATCH, path: "/v1/projects/{projectId}", body: Some(json!({"name": "Renamed"})) },
    ]
}

async fn send(app: &TestApp, route: &ScopedRoute, project_id: &str, key: &str) -> reqwest::Response {
    let path = route.path.replace("{projectId}", project_id);
    let mut request = app.client.request(route.method.clone(), app.url(&path)).header("X-API-Key", key);
    if let Some(body) = &route.body {
        request = request.json(body);
    }
    request.send().await.unwrap()
}

async fn another_organizations_key_gets_404_on_every_project_route(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Ours").await;
    let id = project["id"].as_str().unwrap();
    let (_, foreign_key) = app.other_org("intruder").await;

    for route in project_routes() {
        let foreign = send(&app, &route, id, &foreign_key).await;
        let problem = assert_problem(foreign, 404, "not_found").await;
        assert!(!problem["detail"].as_str().unwrap().contains("forbidden"));
        // The same request with the owner's key reaches the project: the 404 above was tenancy.
        let own = send(&app, &route, id, &app.key).await;
        assert!(own.status().is_success(), "{} {} with the owner's key: {}", route.method, route.path, own.status());
    }
    let after: Value = app.get(&format!("/v1/projects/{id}")).await.json().await.unwrap();
    assert_eq!(after["name"], "Renamed", "only the owner's PATCH landed");
}
