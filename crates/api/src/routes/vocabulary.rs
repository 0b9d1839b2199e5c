//! A project's vocabulary (beyond the spec): its terms and the ways they are heard, which the
//! transcripts of its calls are respelled with.

use axum::extract::State;
use axum::Json;
use callscope_domain::Vocabulary;

use crate::error::Problem;
use crate::extract::{ApiJson, ProjectPath, ProjectScope};
use crate::{ApiError, AppState};

/// Get the project's vocabulary (empty when it has none).
#[utoipa::path(get, path = "/v1/projects/{projectId}/vocabulary", tag = "Projects", params(ProjectPath),
    responses((status = 200, description = "The vocabulary", body = Vocabulary)))]
pub async fn get_vocabulary(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vocabulary>, ApiError> {
    Ok(Json(state.store.get_vocabulary(scope.id()).await?))
}

/// Replace the project's vocabulary. Calls processed from now on are heard with it: the speech
/// model is told the terms before every window (unless `vocabulary_hints` is off), and a run of
/// words that is a term's spoken form, or the term in other case or in pieces, becomes the term.
#[utoipa::path(put, path = "/v1/projects/{projectId}/vocabulary", tag = "Projects", params(ProjectPath),
    request_body(content = Vocabulary, example = json!({"terms": [{"term": "Brightwater", "spokenForms": ["bright water"], "company": true},
        {"term": "Hearthly Pro", "spokenForms": ["hartley pro"]}, {"term": "Łódź Kaliska"}]})),
    responses((status = 200, description = "The vocabulary, as stored", body = Vocabulary),
        (status = 422, description = "Over 500 terms, a blank or repeated term, or a term or spoken form over 100 characters", body = Problem)))]
pub async fn set_vocabulary(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<Vocabulary>,
) -> Result<Json<Vocabulary>, ApiError> {
    let vocabulary = body.validate()?;
    Ok(Json(state.store.set_vocabulary(scope.id(), &vocabulary).await?))
}
