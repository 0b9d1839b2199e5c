//! Speaker presets (decisions §8).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{PresetInput, SpeakerPreset, SpeakerPresetId, Validator};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, InProject, ProjectPath, ProjectScope};
use crate::views::{not_null, nullable, Located, Stamps};
use crate::{ApiError, AppState};

/// A speaker preset.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerPresetView {
    /// The preset's id.
    pub id: Uuid,
    /// Name.
    #[schema(example = "Inbound support")]
    pub name: String,
    /// Speaker names, in channel order (or order of first appearance).
    #[schema(example = json!(["Agent", "Customer"]))]
    pub speakers: Vec<String>,
    /// Whether it is the project's default.
    pub is_default: bool,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
}

impl From<SpeakerPreset> for SpeakerPresetView {
    fn from(p: SpeakerPreset) -> Self {
        Self { id: p.id.0, name: p.name, speakers: p.speakers, is_default: p.is_default, stamps: Stamps::new(p.created_at, p.updated_at) }
    }
}

/// Body of a preset create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Inbound support", "speakers": ["Agent", "Customer"]}))]
pub struct CreatePresetRequest {
    /// Name, 1–200 characters.
    pub name: String,
    /// 1–20 speaker names of 1–100 characters.
    pub speakers: Vec<String>,
}

/// Body of a preset update: absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"speakers": ["Konsultant", "Klient"]}))]
pub struct UpdatePresetRequest {
    /// New name.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = String)]
    pub name: Option<Option<String>>,
    /// New speaker list.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Vec<String>)]
    pub speakers: Option<Option<Vec<String>>>,
}

/// List the project's speaker presets, by name.
#[utoipa::path(get, path = "/v1/projects/{projectId}/speaker-presets", tag = "Speaker presets", params(ProjectPath),
    responses((status = 200, description = "Presets by name", body = [SpeakerPresetView])))]
pub async fn list_presets(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<SpeakerPresetView>>, ApiError> {
    let presets = state.store.list_presets(scope.id()).await?;
    Ok(Json(presets.into_iter().map(Into::into).collect()))
}

/// Create a speaker preset (not default).
#[utoipa::path(post, path = "/v1/projects/{projectId}/speaker-presets", tag = "Speaker presets", params(ProjectPath),
    request_body = CreatePresetRequest,
    responses(
        (status = 201, description = "The preset", body = SpeakerPresetView, headers(("Location" = String, description = "Path of the new preset"))), (status = 422, description = "A field breaks a rule", body = Problem)))]
pub async fn create_preset(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<CreatePresetRequest>,
) -> Result<Located<SpeakerPresetView>, ApiError> {
    let input = PresetInput::parse(Some(&body.name), Some(&body.speakers))?;
    let preset = state.store.create_preset(scope.id(), &input).await?;
    let location = format!("/v1/projects/{}/speaker-presets/{}", scope.id(), preset.id);
    Ok(Located::created(location, preset.into()))
}

/// Get one speaker preset.
#[utoipa::path(get, path = "/v1/projects/{projectId}/speaker-presets/{id}", tag = "Speaker presets",
    params(ProjectPath, ("id" = Uuid, Path, description = "The preset")),
    responses((status = 200, description = "The preset", body = SpeakerPresetView)))]
pub async fn get_preset(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<SpeakerPresetId>,
) -> Result<Json<SpeakerPresetView>, ApiError> {
    let presets = state.store.list_presets(scope.id()).await?;
    let preset = presets.into_iter().find(|p| p.id == id).ok_or_else(|| ApiError::not_found("speaker preset"))?;
    Ok(Json(preset.into()))
}

/// Change a preset's name and/or speakers.
#[utoipa::path(put, path = "/v1/projects/{projectId}/speaker-presets/{id}", tag = "Speaker presets",
    params(ProjectPath, ("id" = Uuid, Path, description = "The preset")),
    request_body = UpdatePresetRequest,
    responses((status = 200, description = "The preset", body = SpeakerPresetView),
        (status = 422, description = "A field breaks a rule", body = Problem)))]
pub async fn update_preset(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<SpeakerPresetId>,
    ApiJson(body): ApiJson<UpdatePresetRequest>,
) -> Result<Json<SpeakerPresetView>, ApiError> {
    let mut nulls = Validator::default();
    let name = not_null("name", body.name, &mut nulls);
    let speakers = not_null("speakers", body.speakers, &mut nulls);
    nulls.finish()?;
    let input = PresetInput::parse(name.as_deref(), speakers.as_deref())?;
    Ok(Json(state.store.update_preset(scope.id(), id, &input).await?.into()))
}

/// Make a preset the project's only default.
#[utoipa::path(patch, path = "/v1/projects/{projectId}/speaker-presets/{id}/default", tag = "Speaker presets",
    params(ProjectPath, ("id" = Uuid, Path, description = "The preset")),
    responses((status = 200, description = "The preset, now the default", body = SpeakerPresetView)))]
pub async fn set_default_preset(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<SpeakerPresetId>,
) -> Result<Json<SpeakerPresetView>, ApiError> {
    Ok(Json(state.store.set_default_preset(scope.id(), id).await?.into()))
}

/// Delete a preset (deleting the default leaves none).
#[utoipa::path(delete, path = "/v1/projects/{projectId}/speaker-presets/{id}", tag = "Speaker presets",
    params(ProjectPath, ("id" = Uuid, Path, description = "The preset")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_preset(State(state): State<AppState>, InProject { scope, id }: InProject<SpeakerPresetId>) -> Result<StatusCode, ApiError> {
    state.store.delete_preset(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}
