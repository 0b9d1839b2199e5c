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

/// Readiness: the database answers.
#[utoipa::path(get, path = "/readyz", tag = "Operations", security(()),
    responses(
        (status = 200, description = "Ready", body = ProbeView),
        (status = 503, description = "The database is unreachable", body = Problem),
    ))]
pub async fn readyz(State(state): State<AppState>) -> Result<Json<ProbeView>, ApiError> {
    state.store.ping().await.map_err(|e| {
        tracing::warn!(error = %e, "readiness check failed");
        ApiError::Unavailable
    })?;
    Ok(Json(ProbeView { status: "ready" }))
}
