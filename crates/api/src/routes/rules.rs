//! Rules (beyond the spec): the project's own filing of calls under labels. Created, read,
//! replaced and deleted like the project's other resources; the calls a rule matched show in the
//! call detail (`ruleMatches`) and the calls list filters by them (`ruleId`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{Rule, RuleCondition, RuleId, RuleInput};
use callscope_pii::PiiType;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, InProject, ProjectPath, ProjectScope};
use crate::views::{Located, Stamps};
use crate::{ApiError, AppState};

/// A rule.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// The rule's id.
    pub id: Uuid,
    /// Its name, description, state and conditions, as written.
    #[serde(flatten)]
    pub rule: RuleInput,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
    /// Whether the calls stored before it was made or last changed are still being filed by it
    /// (the workers do it, a hundred calls at a time, between jobs).
    pub filing_pending: bool,
    /// How many of those calls it has been evaluated on so far.
    pub calls_filed: i64,
}

impl From<Rule> for RuleView {
    fn from(rule: Rule) -> Self {
        Self {
            id: rule.id.0,
            rule: rule.input,
            stamps: Stamps::new(rule.created_at, rule.updated_at),
            filing_pending: rule.filing_pending,
            calls_filed: rule.calls_filed,
        }
    }
}

/// The rule checked: its shape, then that its categories are the project's and its personal
/// data types exist.
async fn checked(state: &AppState, scope: &ProjectScope, input: RuleInput) -> Result<RuleInput, ApiError> {
    let input = input.validate()?;
    let mut categories = None;
    for (i, condition) in input.conditions.iter().enumerate() {
        match condition {
            RuleCondition::Category { category_id } => {
                if categories.is_none() {
                    categories = Some(state.store.list_categories(scope.id()).await?);
                }
                if !categories.iter().flatten().any(|c| c.id == *category_id) {
                    return Err(ApiError::invalid(format!("conditions[{i}].categoryId"), "is not a category of this project"));
                }
            }
            RuleCondition::Pii { pii_type } if !PiiType::ALL.iter().any(|t| t.as_str() == pii_type) => {
                let known: Vec<&str> = PiiType::ALL.iter().map(|t| t.as_str()).collect();
                return Err(ApiError::invalid(format!("conditions[{i}].piiType"), format!("must be one of {}", known.join(", "))));
            }
            _ => {}
        }
    }
    Ok(input)
}

/// List the project's rules, oldest first.
#[utoipa::path(get, path = "/v1/projects/{projectId}/rules", tag = "Rules", params(ProjectPath),
    responses((status = 200, description = "Rules, oldest first", body = [RuleView])))]
pub async fn list_rules(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<RuleView>>, ApiError> {
    Ok(Json(state.store.list_rules(scope.id()).await?.into_iter().map(Into::into).collect()))
}

/// Create a rule. Calls processed or re-analysed from now on are filed by it.
#[utoipa::path(post, path = "/v1/projects/{projectId}/rules", tag = "Rules", params(ProjectPath),
    request_body(content = RuleInput, example = json!({"name": "Escalation", "conditions": [
        {"type": "phrase", "phrases": ["manager", "supervisor", "kierownik"], "by": "customer"},
        {"type": "sentiment", "level": "negative", "by": "customer", "during": "end"}]})),
    responses(
        (status = 201, description = "The rule", body = RuleView, headers(("Location" = String, description = "Path of the new rule"))),
        (status = 422, description = "A value breaks a rule: a blank name or one another rule has, no conditions, an unknown condition type, \
            a category not of the project, an unknown PII type, or the project already has 100 rules", body = Problem)))]
pub async fn create_rule(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<RuleInput>,
) -> Result<Located<RuleView>, ApiError> {
    let input = checked(&state, &scope, body).await?;
    let rule = state.store.create_rule(scope.id(), &input).await?;
    let location = format!("/v1/projects/{}/rules/{}", scope.id(), rule.id);
    Ok(Located::created(location, rule.into()))
}

/// Get one rule.
#[utoipa::path(get, path = "/v1/projects/{projectId}/rules/{id}", tag = "Rules", params(ProjectPath, ("id" = Uuid, Path, description = "The rule")),
    responses((status = 200, description = "The rule", body = RuleView)))]
pub async fn get_rule(State(state): State<AppState>, InProject { scope, id }: InProject<RuleId>) -> Result<Json<RuleView>, ApiError> {
    Ok(Json(state.store.get_rule(scope.id(), id).await?.into()))
}

/// Replace a rule.
#[utoipa::path(put, path = "/v1/projects/{projectId}/rules/{id}", tag = "Rules", params(ProjectPath, ("id" = Uuid, Path, description = "The rule")),
    request_body(content = RuleInput, example = json!({"name": "Long hold", "description": "Customers kept waiting.", "require": "any",
        "conditions": [{"type": "non_talk", "overSeconds": 60}, {"type": "phrase", "phrases": ["still waiting", "czekam"], "by": "customer"}]})),
    responses((status = 200, description = "The rule", body = RuleView),
        (status = 422, description = "A value breaks a rule", body = Problem)))]
pub async fn replace_rule(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<RuleId>,
    ApiJson(body): ApiJson<RuleInput>,
) -> Result<Json<RuleView>, ApiError> {
    let input = checked(&state, &scope, body).await?;
    Ok(Json(state.store.replace_rule(scope.id(), id, &input).await?.into()))
}

/// Delete a rule and the matches it made.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/rules/{id}", tag = "Rules", params(ProjectPath, ("id" = Uuid, Path, description = "The rule")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_rule(State(state): State<AppState>, InProject { scope, id }: InProject<RuleId>) -> Result<StatusCode, ApiError> {
    state.store.delete_rule(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}
