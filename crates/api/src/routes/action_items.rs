//! Action items (decisions §5): the filtered, sorted, paged list with its counters, editing,
//! deleting, the responsible parties, and the pending view. `isOverdue` is judged at read time
//! by the service's clock.

use std::fmt::Display;
use std::str::FromStr;

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{ActionItemId, ActionItemPriority, ActionItemStatus, ActionItemView, CallId, Validator};
use callscope_store::{ActionItemPatch, ActionItemQuery, ActionItemSort};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, ApiQuery, InProject, ProjectPath, ProjectScope};
use crate::views::nullable;
use crate::views::{time_bounds, DateRangeQuery, Located};
use crate::{ApiError, AppState};

/// Largest page of the action item list.
pub const MAX_PAGE_SIZE: i64 = 500;
/// Default page size of the action item list.
pub const DEFAULT_PAGE_SIZE: i64 = 50;
/// Longest description, notes and other texts of an item.
const TEXT_MAX: usize = 2_000;

/// Query of the action item list. `status` and `priority` may repeat and take comma lists.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the parameters; the handler reads the raw query (repeated keys)
pub struct ActionItemListQuery {
    /// `PENDING`, `IN_PROGRESS`, `DONE`, `CANCELLED`; repeated or comma-separated.
    status: Option<Vec<String>>,
    /// `LOW`, `MEDIUM`, `HIGH`; repeated or comma-separated.
    priority: Option<Vec<String>>,
    /// Exactly this responsible party, ignoring case.
    responsible_party: Option<String>,
    /// Items of this call.
    transcript_id: Option<Uuid>,
    /// `callDate` at or after (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    from: Option<String>,
    /// `callDate` at or before (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    to: Option<String>,
    /// Substring of the description, responsible party, notes, evidence or call file name,
    /// ignoring case.
    search: Option<String>,
    /// Page from 0. Default 0.
    #[param(minimum = 0, default = 0)]
    page: Option<i64>,
    /// Items per page, 1–500. Default 50.
    #[param(minimum = 1, maximum = 500, default = 50)]
    page_size: Option<i64>,
    /// `CREATED_AT` (default), `CALL_DATE`, `PRIORITY`, `STATUS`.
    sort_by: Option<String>,
    /// `ASC` or `DESC` (default).
    sort_dir: Option<String>,
}

/// A page of action items with the counters.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionItemPage {
    /// The items of this page.
    pub items: Vec<ActionItemView>,
    /// Items matching every filter.
    pub total_count: u64,
    /// Items matching every filter but `status`, per status.
    pub pending_count: u64,
    pub in_progress_count: u64,
    pub done_count: u64,
    pub cancelled_count: u64,
    /// Items matching every filter but `status` whose `dueAt` has passed while PENDING or
    /// IN_PROGRESS.
    pub overdue_count: u64,
}

fn enum_values<T: Copy + PartialEq + FromStr + Display>(v: &mut Validator, field: &str, raw: &str, allowed: &[T], into: &mut Vec<T>) {
    for value in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match value.to_ascii_uppercase().parse::<T>() {
            Ok(known) if !into.contains(&known) => into.push(known),
            Ok(_) => {}
            Err(_) => v.error(field, format!("{value:?} is not one of {}", one_of(allowed))),
        }
    }
}

/// "A, B, C": the values a field takes, for its error message.
fn one_of<T: Display>(values: &[T]) -> String {
    values.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// One value of a text enum, as people may type it (any case, spaces around).
fn one_value<T: FromStr + Display>(v: &mut Validator, field: &str, raw: Option<String>, allowed: &[T]) -> Option<T> {
    let value = raw?;
    let parsed = value.trim().to_ascii_uppercase().parse::<T>().ok();
    if parsed.is_none() {
        v.error(field, format!("must be one of {}", one_of(allowed)));
    }
    parsed
}

/// Reads the list's query string: repeated and comma-separated `status`/`priority`, the rest as
/// the spec names them.
pub(crate) fn parse_list_query(raw: Option<&str>) -> Result<ActionItemQuery, ApiError> {
    crate::extract::refuse_nul_in_query(raw)?;
    let mut query = ActionItemQuery { descending: true, page_size: DEFAULT_PAGE_SIZE as u32, ..ActionItemQuery::default() };
    let mut v = Validator::default();
    let (mut from, mut to) = (None, None);
    let integer = |name: &str, value: &str| {
        value.trim().parse::<i64>().map_err(|_| ApiError::BadRequest(format!("invalid query string: {name}: expected an integer, got {value:?}")))
    };
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        match key.as_ref() {
            "status" => enum_values(&mut v, "status", &value, ActionItemStatus::ALL, &mut query.statuses),
            "priority" => enum_values(&mut v, "priority", &value, ActionItemPriority::ALL, &mut query.priorities),
            "responsibleParty" => query.responsible_party = Some(value.trim().to_owned()).filter(|p| !p.is_empty()),
            "transcriptId" => {
                let id = value
                    .trim()
                    .parse::<Uuid>()
                    .map_err(|_| ApiError::BadRequest(format!("invalid query string: transcriptId: expected a uuid, got {value:?}")))?;
                query.call = Some(CallId(id));
            }
            "from" => from = Some(value.into_owned()),
            "to" => to = Some(value.into_owned()),
            "search" => query.search = Some(value.trim().to_owned()).filter(|s| !s.is_empty()),
            "page" => {
                let page = integer("page", &value)?;
                match u32::try_from(page) {
                    Ok(page) if i64::from(page) * MAX_PAGE_SIZE < i64::MAX => query.page = page,
                    _ => v.error("page", "must be 0 or more"),
                }
            }
            "pageSize" => {
                let size = integer("pageSize", &value)?;
                if (1..=MAX_PAGE_SIZE).contains(&size) {
                    query.page_size = size as u32;
                } else {
                    v.error("pageSize", format!("must be between 1 and {MAX_PAGE_SIZE}"));
                }
            }
            "sortBy" => match value.trim().to_ascii_uppercase().as_str() {
                "CREATED_AT" => query.sort = ActionItemSort::CreatedAt,
                "CALL_DATE" => query.sort = ActionItemSort::CallDate,
                "PRIORITY" => query.sort = ActionItemSort::Priority,
                "STATUS" => query.sort = ActionItemSort::Status,
                _ => v.error("sortBy", "must be one of CREATED_AT, CALL_DATE, PRIORITY, STATUS"),
            },
            "sortDir" => match value.trim().to_ascii_uppercase().as_str() {
                "ASC" => query.descending = false,
                "DESC" => query.descending = true,
                _ => v.error("sortDir", "must be ASC or DESC"),
            },
            _ => {}
        }
    }
    let (from, to) = time_bounds(from.as_deref(), to.as_deref())?;
    (query.from, query.to) = (from, to);
    v.finish()?;
    Ok(query)
}

/// List the project's action items, filtered, sorted and paged, with counters.
#[utoipa::path(get, path = "/v1/projects/{projectId}/action-items", tag = "Action items", params(ProjectPath, ActionItemListQuery),
    responses((status = 200, description = "A page of items and the counters", body = ActionItemPage),
        (status = 422, description = "Unknown enum values, page bounds, or from after to", body = Problem)))]
pub async fn list_action_items(
    State(state): State<AppState>,
    scope: ProjectScope,
    RawQuery(raw): RawQuery,
) -> Result<Json<ActionItemPage>, ApiError> {
    let query = parse_list_query(raw.as_deref())?;
    let now = state.clock.now();
    let list = state.store.list_action_items(scope.id(), &query, now).await?;
    Ok(Json(ActionItemPage {
        items: list.items.iter().map(|i| ActionItemView::new(i, now)).collect(),
        total_count: list.total,
        pending_count: list.pending,
        in_progress_count: list.in_progress,
        done_count: list.done,
        cancelled_count: list.cancelled,
        overdue_count: list.overdue,
    }))
}

/// `dueAt` as an RFC 3339 date-time, or a validation error on it.
fn due_at(v: &mut Validator, raw: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    match chrono::DateTime::parse_from_rfc3339(raw.trim()) {
        Ok(t) => Some(t.with_timezone(&chrono::Utc)),
        Err(_) => {
            v.error("dueAt", "must be an RFC 3339 date-time such as 2026-11-27T17:00:00Z");
            None
        }
    }
}

/// Changes to an action item; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"status": "DONE", "notes": "Sent on Monday"}))]
pub struct ActionItemPatchRequest {
    /// `PENDING`, `IN_PROGRESS`, `DONE`, `CANCELLED`. Entering DONE sets `completedAt`; leaving
    /// it clears it.
    pub status: Option<String>,
    /// `LOW`, `MEDIUM`, `HIGH`.
    pub priority: Option<String>,
    /// Must not be empty.
    pub description: Option<String>,
    /// Who does it; `null` or empty clears it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub responsible_party: Option<Option<String>>,
    /// Free text.
    pub notes: Option<String>,
    /// The deadline as said.
    pub deadline_mentioned: Option<String>,
    /// The deadline as a date-time (RFC 3339).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub due_at: Option<String>,
    /// Clears `notes`.
    #[serde(default)]
    pub clear_notes: bool,
    /// Clears `deadlineMentioned` and `dueAt`.
    #[serde(default)]
    pub clear_deadline: bool,
}

impl ActionItemPatchRequest {
    fn validate(self) -> Result<ActionItemPatch, ApiError> {
        let mut v = Validator::default();
        let status = one_value(&mut v, "status", self.status, ActionItemStatus::ALL);
        let priority = one_value(&mut v, "priority", self.priority, ActionItemPriority::ALL);
        let description = self.description.map(|d| v.text("description", &d, 1, TEXT_MAX));
        // "null", "N/A" and the like are no value: they clear, or leave alone, as empty text does.
        let responsible_party = self.responsible_party.map(|p| p.and_then(|p| v.optional_value("responsibleParty", &p, 200)));
        let notes = self.notes.map(|n| n.trim().to_owned());
        if notes.as_ref().is_some_and(|n| n.chars().count() > TEXT_MAX) {
            v.error("notes", format!("must be at most {TEXT_MAX} characters"));
        }
        if self.clear_notes && notes.is_some() {
            v.error("clearNotes", "cannot be combined with notes");
        }
        let deadline_mentioned = self.deadline_mentioned.and_then(|d| v.optional_value("deadlineMentioned", &d, 200));
        let due_at = self.due_at.and_then(|raw| due_at(&mut v, &raw));
        if self.clear_deadline && (deadline_mentioned.is_some() || due_at.is_some()) {
            v.error("clearDeadline", "cannot be combined with deadlineMentioned or dueAt");
        }
        v.finish()?;
        Ok(ActionItemPatch {
            status,
            priority,
            description,
            responsible_party,
            notes,
            deadline_mentioned,
            due_at,
            clear_notes: self.clear_notes,
            clear_deadline: self.clear_deadline,
        })
    }
}

/// Change an action item (partial update); `action_item.updated` goes to the outbox.
#[utoipa::path(patch, path = "/v1/projects/{projectId}/action-items/{id}", tag = "Action items",
    params(ProjectPath, ("id" = Uuid, Path, description = "The action item")),
    request_body = ActionItemPatchRequest,
    responses((status = 200, description = "The item as changed", body = ActionItemView),
        (status = 422, description = "An unknown status or priority, an empty description, conflicting flags", body = Problem)))]
pub async fn update_action_item(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<ActionItemId>,
    ApiJson(body): ApiJson<ActionItemPatchRequest>,
) -> Result<Json<ActionItemView>, ApiError> {
    let patch = body.validate()?;
    let item = state.store.update_action_item(scope.id(), id, &patch).await?;
    Ok(Json(ActionItemView::new(&item, state.clock.now())))
}

/// An item a person adds to a call (beyond the spec): what the analysis missed.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"description": "Send the signed annex", "responsibleParty": "customer", "dueAt": "2026-11-27T17:00:00Z"}))]
pub struct NewActionItemRequest {
    /// What is to be done, 1–2,000 characters.
    pub description: String,
    /// Who does it.
    pub responsible_party: Option<String>,
    /// `LOW`, `MEDIUM` (default), `HIGH`.
    pub priority: Option<String>,
    /// The deadline as said.
    pub deadline_mentioned: Option<String>,
    /// The deadline as a date-time (RFC 3339).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub due_at: Option<String>,
}

impl NewActionItemRequest {
    fn validate(self) -> Result<callscope_domain::NewActionItem, ApiError> {
        let mut v = Validator::default();
        let description = v.text("description", &self.description, 1, TEXT_MAX);
        let responsible_party = self.responsible_party.and_then(|p| v.optional_value("responsibleParty", &p, 200));
        let priority = one_value(&mut v, "priority", self.priority, ActionItemPriority::ALL).unwrap_or(ActionItemPriority::Medium);
        let deadline_mentioned = self.deadline_mentioned.and_then(|d| v.optional_value("deadlineMentioned", &d, 200));
        let due_at = self.due_at.and_then(|raw| due_at(&mut v, &raw));
        v.finish()?;
        Ok(callscope_domain::NewActionItem {
            id: ActionItemId::new(),
            description,
            responsible_party,
            deadline_mentioned,
            due_at,
            evidence: None,
            priority,
        })
    }
}

/// Add an action item the analysis missed to a call (beyond the spec). It goes after the call's
/// other items, PENDING; re-analysis keeps it. `action_item.created` goes to the outbox.
#[utoipa::path(post, path = "/v1/projects/{projectId}/calls/{id}/action-items", tag = "Action items",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    request_body = NewActionItemRequest,
    responses((status = 201, description = "The item", body = ActionItemView, headers(("Location" = String, description = "Path of the new item"))),
        (status = 422, description = "An empty or too long description, an unknown priority, a malformed dueAt", body = Problem)))]
pub async fn add_action_item(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    ApiJson(body): ApiJson<NewActionItemRequest>,
) -> Result<Located<ActionItemView>, ApiError> {
    let new = body.validate()?;
    let item = state.store.add_action_item(scope.id(), id, &new).await?;
    let location = format!("/v1/projects/{}/action-items/{}", scope.id(), item.id);
    Ok(Located::created(location, ActionItemView::new(&item, state.clock.now())))
}

/// Which item another merges into.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"into": "0193b2c4-6a8e-7c3d-9f1a-2b3c4d5e6f70"}))]
pub struct MergeActionItemRequest {
    /// The item that stays: another item of the same call.
    pub into: Uuid,
}

/// Merge a duplicate action item into another of its call (beyond the spec). The item named in
/// `into` stays with its words and takes what it lacks (owner, deadline), the higher priority,
/// and this item's description in its notes; this item goes. `action_item.updated` and
/// `action_item.deleted` go to the outbox.
#[utoipa::path(post, path = "/v1/projects/{projectId}/action-items/{id}/merge", tag = "Action items",
    params(ProjectPath, ("id" = Uuid, Path, description = "The item merged away")),
    request_body = MergeActionItemRequest,
    responses((status = 200, description = "The item that stays, as merged", body = ActionItemView),
        (status = 422, description = "`into` is this item or an item of another call", body = Problem)))]
pub async fn merge_action_item(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<ActionItemId>,
    ApiJson(body): ApiJson<MergeActionItemRequest>,
) -> Result<Json<ActionItemView>, ApiError> {
    let item = state.store.merge_action_items(scope.id(), id, ActionItemId(body.into)).await?;
    Ok(Json(ActionItemView::new(&item, state.clock.now())))
}

/// Get one action item.
#[utoipa::path(get, path = "/v1/projects/{projectId}/action-items/{id}", tag = "Action items",
    params(ProjectPath, ("id" = Uuid, Path, description = "The action item")),
    responses((status = 200, description = "The item", body = ActionItemView)))]
pub async fn get_action_item(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<ActionItemId>,
) -> Result<Json<ActionItemView>, ApiError> {
    let item = state.store.get_action_item(scope.id(), id).await?;
    Ok(Json(ActionItemView::new(&item, state.clock.now())))
}

/// Delete an action item; `action_item.deleted` goes to the outbox.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/action-items/{id}", tag = "Action items",
    params(ProjectPath, ("id" = Uuid, Path, description = "The action item")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_action_item(State(state): State<AppState>, InProject { scope, id }: InProject<ActionItemId>) -> Result<StatusCode, ApiError> {
    state.store.delete_action_item(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The distinct responsible parties of the project's items, sorted.
#[utoipa::path(get, path = "/v1/projects/{projectId}/action-items/responsible-parties", tag = "Action items", params(ProjectPath),
    responses((status = 200, description = "Names, sorted", body = Vec<String>)))]
pub async fn responsible_parties(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(state.store.responsible_parties(scope.id()).await?))
}

/// PENDING and IN_PROGRESS items: overdue first, then by `dueAt` (none last), then `callDate`.
#[utoipa::path(get, path = "/v1/projects/{projectId}/action-items/pending", tag = "Action items", params(ProjectPath, DateRangeQuery),
    responses((status = 200, description = "The open items", body = Vec<ActionItemView>),
        (status = 400, description = "A date that does not parse", body = Problem),
        (status = 422, description = "from after to", body = Problem)))]
pub async fn pending_action_items(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
) -> Result<Json<Vec<ActionItemView>>, ApiError> {
    let (from, to) = dates.bounds()?;
    let now = state.clock.now();
    let items = state.store.pending_action_items(scope.id(), from, to, now).await?;
    Ok(Json(items.iter().map(|i| ActionItemView::new(i, now)).collect()))
}
