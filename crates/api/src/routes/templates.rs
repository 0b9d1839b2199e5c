//! Analysis templates (decisions §6).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{AnalysisTemplate, AnswerType, FieldInput, TemplateField, TemplateFieldId, TemplateId, TemplateInput};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, InProject, ProjectPath, ProjectScope};
use crate::views::{Located, Stamps};
use crate::{ApiError, AppState};

/// A question of a template.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFieldView {
    /// The field's id (send it back in a PUT to keep it).
    pub id: Uuid,
    /// Short label.
    #[schema(example = "Outcome")]
    pub label: String,
    /// The question asked of the call.
    #[schema(example = "Did the customer accept the offer?")]
    pub prompt: String,
    /// Expected answer type.
    pub answer_type: AnswerType,
    /// Choices (empty unless a choice type).
    pub options: Vec<String>,
    /// Whether every call should answer it.
    pub is_required: bool,
    /// Position in the template.
    pub display_order: i32,
}

impl From<TemplateField> for TemplateFieldView {
    fn from(f: TemplateField) -> Self {
        Self {
            id: f.id.0,
            label: f.label,
            prompt: f.prompt,
            answer_type: f.answer_type,
            options: f.options,
            is_required: f.is_required,
            display_order: f.display_order,
        }
    }
}

/// An analysis template.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisTemplateView {
    /// The template's id.
    pub id: Uuid,
    /// The API key that created it.
    pub user_id: Uuid,
    /// Name, 0–200 characters.
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// Whether calls are analysed with it (at most one per project).
    pub is_active: bool,
    /// The questions, by display order.
    pub fields: Vec<TemplateFieldView>,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
}

impl From<AnalysisTemplate> for AnalysisTemplateView {
    fn from(t: AnalysisTemplate) -> Self {
        Self {
            id: t.id.0,
            user_id: t.user_id.0,
            name: t.name,
            description: t.description,
            is_active: t.is_active,
            fields: t.fields.into_iter().map(Into::into).collect(),
            stamps: Stamps::new(t.created_at, t.updated_at),
        }
    }
}

/// A field in a create or replace request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFieldRequest {
    /// An existing field's id to keep it (PUT only); omit for a new field.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// 1–200 characters.
    pub label: String,
    /// 1–2000 characters.
    pub prompt: String,
    /// Expected answer type.
    pub answer_type: AnswerType,
    /// 1–50 non-empty options for SINGLE_CHOICE/MULTI_CHOICE; not allowed otherwise.
    #[serde(default)]
    pub options: Option<Vec<String>>,
    /// Default false.
    #[serde(default)]
    pub is_required: Option<bool>,
    /// Default: the field's index.
    #[serde(default)]
    pub display_order: Option<i64>,
}

/// Body of a template create or replace (PUT).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Sales QA", "fields": [
    {"label": "Offer accepted", "prompt": "Did the customer accept the offer?", "answerType": "BOOLEAN"},
    {"label": "Product", "prompt": "Which product was discussed?", "answerType": "SINGLE_CHOICE", "options": ["Fibre", "Mobile"]}]}))]
pub struct TemplateRequest {
    /// Name, 0–200 characters.
    pub name: String,
    /// Description, at most 2000 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// Create: default false. PUT: omitted keeps the current state. True deactivates the others.
    #[serde(default)]
    pub is_active: Option<bool>,
    /// 0–20 fields.
    pub fields: Vec<TemplateFieldRequest>,
}

impl TemplateRequest {
    fn validate(self, existing: &[TemplateFieldId]) -> Result<TemplateInput, ApiError> {
        let fields: Vec<FieldInput> = self
            .fields
            .into_iter()
            .map(|f| FieldInput {
                id: f.id.map(TemplateFieldId),
                label: f.label,
                prompt: f.prompt,
                answer_type: f.answer_type,
                options: f.options,
                is_required: f.is_required,
                display_order: f.display_order,
            })
            .collect();
        Ok(TemplateInput::parse(&self.name, self.description.as_deref(), self.is_active, &fields, existing)?)
    }
}

/// List the project's templates, newest first.
#[utoipa::path(get, path = "/v1/projects/{projectId}/analysis-templates", tag = "Analysis templates", params(ProjectPath),
    responses((status = 200, description = "Templates, newest first", body = [AnalysisTemplateView])))]
pub async fn list_templates(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<AnalysisTemplateView>>, ApiError> {
    Ok(Json(state.store.list_templates(scope.id()).await?.into_iter().map(Into::into).collect()))
}

/// Create a template.
#[utoipa::path(post, path = "/v1/projects/{projectId}/analysis-templates", tag = "Analysis templates", params(ProjectPath),
    request_body = TemplateRequest,
    responses(
        (status = 201, description = "The template", body = AnalysisTemplateView, headers(("Location" = String, description = "Path of the new template"))), (status = 422, description = "A field breaks a rule", body = Problem)))]
pub async fn create_template(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<TemplateRequest>,
) -> Result<Located<AnalysisTemplateView>, ApiError> {
    let input = body.validate(&[])?;
    let template = state.store.create_template(scope.id(), scope.caller.key_id, &input).await?;
    let location = format!("/v1/projects/{}/analysis-templates/{}", scope.id(), template.id);
    Ok(Located::created(location, template.into()))
}

/// Get one template.
#[utoipa::path(get, path = "/v1/projects/{projectId}/analysis-templates/{id}", tag = "Analysis templates",
    params(ProjectPath, ("id" = Uuid, Path, description = "The template")),
    responses((status = 200, description = "The template", body = AnalysisTemplateView)))]
pub async fn get_template(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<TemplateId>,
) -> Result<Json<AnalysisTemplateView>, ApiError> {
    Ok(Json(state.store.get_template(scope.id(), id).await?.into()))
}

/// Replace a template. Fields sent with their existing `id` keep it.
#[utoipa::path(put, path = "/v1/projects/{projectId}/analysis-templates/{id}", tag = "Analysis templates",
    params(ProjectPath, ("id" = Uuid, Path, description = "The template")),
    request_body = TemplateRequest,
    responses((status = 200, description = "The template", body = AnalysisTemplateView),
        (status = 422, description = "A field breaks a rule", body = Problem)))]
pub async fn replace_template(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<TemplateId>,
    ApiJson(body): ApiJson<TemplateRequest>,
) -> Result<Json<AnalysisTemplateView>, ApiError> {
    let current = state.store.get_template(scope.id(), id).await?;
    let existing: Vec<TemplateFieldId> = current.fields.iter().map(|f| f.id).collect();
    let input = body.validate(&existing)?;
    Ok(Json(state.store.replace_template(scope.id(), id, &input).await?.into()))
}

/// Activate a template (the project's others are deactivated).
#[utoipa::path(post, path = "/v1/projects/{projectId}/analysis-templates/{id}/activate", tag = "Analysis templates",
    params(ProjectPath, ("id" = Uuid, Path, description = "The template")),
    responses((status = 200, description = "The template, active", body = AnalysisTemplateView)))]
pub async fn activate_template(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<TemplateId>,
) -> Result<Json<AnalysisTemplateView>, ApiError> {
    Ok(Json(state.store.set_template_active(scope.id(), id, true).await?.into()))
}

/// Deactivate a template.
#[utoipa::path(post, path = "/v1/projects/{projectId}/analysis-templates/{id}/deactivate", tag = "Analysis templates",
    params(ProjectPath, ("id" = Uuid, Path, description = "The template")),
    responses((status = 200, description = "The template, inactive", body = AnalysisTemplateView)))]
pub async fn deactivate_template(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<TemplateId>,
) -> Result<Json<AnalysisTemplateView>, ApiError> {
    Ok(Json(state.store.set_template_active(scope.id(), id, false).await?.into()))
}

/// Delete a template.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/analysis-templates/{id}", tag = "Analysis templates",
    params(ProjectPath, ("id" = Uuid, Path, description = "The template")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_template(State(state): State<AppState>, InProject { scope, id }: InProject<TemplateId>) -> Result<StatusCode, ApiError> {
    state.store.delete_template(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}
