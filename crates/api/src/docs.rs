//! `/openapi.json` and the `/docs` page. The page is our own small renderer of the document,
//! served by the binary with no external assets, so it works on a machine with no internet.

use std::sync::OnceLock;

use axum::http::header;
use axum::response::{Html, IntoResponse};

static DOCUMENT: OnceLock<String> = OnceLock::new();

/// The OpenAPI 3.1 document of this service.
#[utoipa::path(get, path = "/openapi.json", tag = "Operations", security(()),
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json")))]
pub async fn openapi_json() -> impl IntoResponse {
    let json = DOCUMENT.get_or_init(|| crate::openapi().to_pretty_json().expect("the OpenAPI document serialises"));
    ([(header::CONTENT_TYPE, "application/json")], json.as_str())
}

/// Human-readable API documentation.
#[utoipa::path(get, path = "/docs", tag = "Operations", security(()),
    responses((status = 200, description = "HTML page rendering `/openapi.json`", content_type = "text/html")))]
pub async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
