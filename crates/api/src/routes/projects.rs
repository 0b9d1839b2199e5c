//! Projects: the organization-scoped root of every other resource.

use axum::extract::State;
use axum::Json;
use callscope_domain::{NewProject, Project, ProjectId, ProjectPatch, Validator};

use crate::error::Problem;
use crate::extract::{ApiJson, ApiPath, ApiQuery, Caller, ProjectPath};
use crate::views::{not_null, CreateProjectRequest, Located, PageQuery, ProjectPage, ProjectView, UpdateProjectRequest};
use crate::{ApiError, AppState};

/// Looks a project up within the caller's organization: every project-scoped handler starts
/// here, and another organization's project is the same 404 as one that does not exist.
pub(crate) async fn project_of(state: &AppState, caller: Caller, id: ProjectId) -> Result<Project, ApiError> {
    state.store.get_project(caller.0.org_id, id).await?.ok_or_else(|| ApiError::not_found("project"))
}

/// Create a project.
#[utoipa::path(
    post, path = "/v1/projects", tag = "Projects",
    request_body = CreateProjectRequest,
    responses(
        (status = 201, description = "The project", body = ProjectView,
            headers(("Location" = String, description = "Path of the new project"))),
        (status = 422, description = "A field breaks a rule", body = Problem),
    )
)]
pub async fn create_project(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<CreateProjectRequest>,
) -> Result<Located<ProjectView>, ApiError> {
    let mut v = Validator::default();
    let zone = body.time_zone.as_deref().map(|z| callscope_domain::time_zone(&mut v, "timeZone", z));
    let new = NewProject::parse(&body.name, body.description.as_deref(), body.default_language, body.pii_redaction);
    v.finish()?;
    let new = new?.in_time_zone(zone.flatten().unwrap_or(chrono_tz::UTC));
    let project = state.store.create_project(caller.0.org_id, &new).await?;
    let location = format!("/v1/projects/{}", project.id);
    Ok(Located::created(location, project.into()))
}

/// List the organization's projects, newest first.
#[utoipa::path(
    get, path = "/v1/projects", tag = "Projects",
    params(PageQuery),
    responses(
        (status = 200, description = "A page of projects", body = ProjectPage),
        (status = 422, description = "Page bounds", body = Problem),
    )
)]
pub async fn list_projects(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> Result<Json<ProjectPage>, ApiError> {
    let request = query.validate()?;
    let page = state.store.list_projects(caller.0.org_id, request).await?;
    Ok(Json(ProjectPage::new(page, request)))
}

/// Get a project.
#[utoipa::path(
    get, path = "/v1/projects/{projectId}", tag = "Projects",
    params(ProjectPath),
    responses(
        (status = 200, description = "The project", body = ProjectView),
    )
)]
pub async fn get_project(State(state): State<AppState>, caller: Caller, ApiPath(id): ApiPath<ProjectId>) -> Result<Json<ProjectView>, ApiError> {
    Ok(Json(project_of(&state, caller, id).await?.into()))
}

/// Change a project's name, description, default language or PII redaction.
#[utoipa::path(
    patch, path = "/v1/projects/{projectId}", tag = "Projects",
    params(ProjectPath),
    request_body = UpdateProjectRequest,
    responses(
        (status = 200, description = "The updated project", body = ProjectView),
        (status = 422, description = "A field breaks a rule", body = Problem),
    )
)]
pub async fn update_project(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(id): ApiPath<ProjectId>,
    ApiJson(body): ApiJson<UpdateProjectRequest>,
) -> Result<Json<ProjectView>, ApiError> {
    let mut nulls = Validator::default();
    let name = not_null("name", body.name, &mut nulls);
    let default_language = not_null("defaultLanguage", body.default_language, &mut nulls);
    let pii_redaction = not_null("piiRedaction", body.pii_redaction, &mut nulls);
    let zone = not_null("timeZone", body.time_zone, &mut nulls).and_then(|z| callscope_domain::time_zone(&mut nulls, "timeZone", &z));
    nulls.finish()?;
    let mut patch = ProjectPatch::parse(name.as_deref(), body.description.as_ref().map(Option::as_deref), default_language, pii_redaction)?;
    patch.time_zone = zone;
    let project = state.store.update_project(caller.0.org_id, id, &patch).await?.ok_or_else(|| ApiError::not_found("project"))?;
    Ok(Json(project.into()))
}
