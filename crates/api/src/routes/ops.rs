//! Operational probes, outside `/v1` and without a key.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::Problem;
use crate::{ApiError, AppState};

/// Probe answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProbeView {
    /// `ok` or `ready`.
    pub status: &'static str,
}

/// Liveness: the process is up and serving.
#[utoipa::path(get, path = "/healthz", tag = "Operations", security(()),
    responses((status = 200, description = "Up", body = ProbeView)))]
pub async fn healthz() -> Json<ProbeView> {
    Json(ProbeView { status: "ok" })
}

/// Readiness: the database answers and, in a process that runs workers, one of them is alive.
#[utoipa::path(get, path = "/readyz", tag = "Operations", security(()),
    responses((status = 200, description = "Ready", body = ProbeView),
        (status = 503, description = "The database is unreachable, or none of this process's workers is alive", body = Problem)))]
pub async fn readyz(State(state): State<AppState>) -> Result<Json<ProbeView>, ApiError> {
    state.store.ping().await.map_err(|e| {
        tracing::warn!(error = %e, "readiness check failed");
        ApiError::Unavailable
    })?;
    if let Some(health) = state.worker_health.as_ref().filter(|h| !h.ready()) {
        tracing::warn!(expected = health.expected(), alive = health.alive(), "readiness check failed: no worker alive");
        return Err(ApiError::Unavailable);
    }
    Ok(Json(ProbeView { status: "ready" }))
}
