//! Per-request context: the request id (echoed from `X-Request-Id` or minted), the organization
//! once the key is known, and the one log line written for every request.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use callscope_domain::OrgId;

/// Header carrying the request id both ways.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest client-sent request id echoed back; longer or non-printable ones are replaced.
const MAX_CLIENT_ID_LEN: usize = 128;

/// What is known about the request being served.
#[derive(Debug)]
pub struct RequestContext {
    /// The request id.
    pub id: String,
    /// The authenticated organization, once known.
    pub org: OnceLock<OrgId>,
}

tokio::task_local! {
    static CONTEXT: Arc<RequestContext>;
}

/// The id of the request this task is serving, if any.
pub fn current_request_id() -> Option<String> {
    CONTEXT.try_with(|c| c.id.clone()).ok()
}

/// Records the authenticated organization for the request log line.
pub fn record_org(org: OrgId) {
    let _ = CONTEXT.try_with(|c| c.org.set(org));
}

/// Middleware: assigns the request id, runs the request inside its context, sets the response
/// header and logs one line.
pub async fn observe(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= MAX_CLIENT_ID_LEN && v.bytes().all(|b| b.is_ascii_graphic()))
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    let method = request.method().clone();
    let path = loggable_path(request.uri().path());
    let context = Arc::new(RequestContext { id: id.clone(), org: OnceLock::new() });

    let mut response = CONTEXT.scope(context.clone(), next.run(request)).await;

    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    let status = response.status().as_u16();
    let org = context.org.get().map(ToString::to_string);
    tracing::info!(
        target: "callscope::http",
        request_id = %id,
        method = %method,
        path = %path,
        status,
        latency_ms = started.elapsed().as_secs_f64() * 1000.0,
        org_id = org.as_deref().unwrap_or("-"),
        "request"
    );
    response
}

/// The path as the log may keep it: an audio link's token opens a call's audio while it lasts,
/// so it is left out like a key would be.
fn loggable_path(path: &str) -> String {
    // Links made before the route left `/v1` may still be asked for (they get a 404).
    match path.strip_prefix("/audio/").or_else(|| path.strip_prefix("/v1/audio/")) {
        Some(_) => "/audio/{token}".to_owned(),
        None => path.to_owned(),
    }
}
