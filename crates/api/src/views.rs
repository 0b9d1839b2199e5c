//! JSON shapes of requests and responses (camelCase, timestamps RFC 3339 UTC with milliseconds,
//! absent values as `null`), with their OpenAPI schemas.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use callscope_domain::{Language, Page, PiiRedaction, Project, Timestamp};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::ApiError;

pub use callscope_domain::rfc3339_millis as rfc3339;

/// Deserialises a field that distinguishes absent (`None`) from `null` (`Some(None)`).
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A project.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectView {
    /// The project's id.
    pub id: Uuid,
    /// The organization that owns it.
    pub organization_id: Uuid,
    /// Name, 1–200 characters.
    #[schema(example = "Customer support")]
    pub name: String,
    /// Free text, at most 2000 characters.
    pub description: Option<String>,
    /// Language assumed for uploads that omit `language`.
    pub default_language: Language,
    /// `mask` replaces detected personal data by `[TYPE]` placeholders in what is stored.
    pub pii_redaction: PiiRedaction,
    /// Where its calls take place (IANA name; beyond the spec): spoken deadlines such as
    /// "tomorrow" or "by 5 pm" are resolved in this zone. Default `UTC`.
    #[schema(example = "Europe/Warsaw")]
    pub time_zone: String,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
}

impl From<Project> for ProjectView {
    fn from(p: Project) -> Self {
        Self {
            id: p.id.0,
            organization_id: p.org_id.0,
            name: p.name,
            description: p.description,
            default_language: p.default_language,
            pii_redaction: p.pii_redaction,
            time_zone: p.time_zone.name().to_owned(),
            stamps: Stamps::new(p.created_at, p.updated_at),
        }
    }
}

/// When a resource was made and when it last changed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stamps {
    /// When it was created.
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    /// When it last changed.
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
}

impl Stamps {
    /// Both times.
    pub fn new(created_at: Timestamp, updated_at: Timestamp) -> Self {
        Self { created_at, updated_at }
    }
}

/// Body of `POST /v1/projects`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Customer support", "description": "Inbound calls", "defaultLanguage": "pl"}))]
pub struct CreateProjectRequest {
    /// Name, 1–200 characters after trimming.
    pub name: String,
    /// Optional description, at most 2000 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// Default `en`.
    #[serde(default)]
    pub default_language: Option<Language>,
    /// Default `none`.
    #[serde(default)]
    pub pii_redaction: Option<PiiRedaction>,
    /// IANA time zone name (beyond the spec), default `UTC`.
    #[serde(default)]
    #[schema(example = "Europe/Warsaw")]
    pub time_zone: Option<String>,
}

/// Body of `PATCH /v1/projects/{projectId}`: absent fields stay as they are; `description: null`
/// clears the description (the other fields cannot be null).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"defaultLanguage": "en", "piiRedaction": "mask"}))]
pub struct UpdateProjectRequest {
    /// New name.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = String)]
    pub name: Option<Option<String>>,
    /// New description, or `null` to clear it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// New default language.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Language)]
    pub default_language: Option<Option<Language>>,
    /// New redaction mode.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = PiiRedaction)]
    pub pii_redaction: Option<Option<PiiRedaction>>,
    /// New time zone (IANA name; beyond the spec).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = String)]
    pub time_zone: Option<Option<String>>,
}

/// Takes a PATCH field that may be absent but not `null`.
///
/// # Errors
/// 422 naming the field when it is `null`.
pub fn not_null<T>(field: &str, value: Option<Option<T>>, v: &mut callscope_domain::Validator) -> Option<T> {
    match value {
        Some(None) => {
            v.error(field, "must not be null");
            None
        }
        other => other.flatten(),
    }
}

/// Where a page of a 1-based list stands: what the projects list, the calls list and search
/// answer beside their `data`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    /// Matching items in all pages.
    pub total: u64,
    /// This page, from 1.
    pub page: u32,
    /// Page size.
    pub page_size: u32,
    /// `ceil(total / pageSize)`.
    pub total_pages: u64,
}

impl PageInfo {
    /// The page `request` asked for, of `total` items.
    pub fn new(total: u64, request: callscope_domain::PageRequest) -> Self {
        Self { total, page: request.page, page_size: request.page_size, total_pages: request.pages_for(total) }
    }
}

/// A page of projects (same envelope as the calls list).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPage {
    /// The projects of this page, newest first.
    pub data: Vec<ProjectView>,
    /// Where the page stands.
    #[serde(flatten)]
    pub page: PageInfo,
}

impl ProjectPage {
    /// The envelope for one page.
    pub fn new(page: Page<Project>, request: callscope_domain::PageRequest) -> Self {
        Self { page: PageInfo::new(page.total, request), data: page.items.into_iter().map(Into::into).collect() }
    }
}

/// `page` and `pageSize` of the 1-based lists (projects, calls, search).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page number, from 1. Default 1.
    #[param(minimum = 1, default = 1)]
    pub page: Option<i64>,
    /// Items per page, 1–100. Default 25.
    #[param(minimum = 1, maximum = 100, default = 25)]
    pub page_size: Option<i64>,
}

/// `from` and `to`: the inclusive bounds of a dated list or figure (what is dated is the
/// route's: a call's creation, an item's call date). A route takes it beside its own query; each
/// reads the parameters it knows from the one query string.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DateRangeQuery {
    /// At or after this instant (RFC 3339); omitted: no lower bound.
    #[param(value_type = Option<String>, format = DateTime)]
    pub from: Option<String>,
    /// At or before this instant (RFC 3339); omitted: no upper bound.
    #[param(value_type = Option<String>, format = DateTime)]
    pub to: Option<String>,
}

impl DateRangeQuery {
    /// The bounds, checked.
    ///
    /// # Errors
    /// See [`time_bounds`].
    pub fn bounds(&self) -> Result<(Option<Timestamp>, Option<Timestamp>), ApiError> {
        time_bounds(self.from.as_deref(), self.to.as_deref())
    }
}

/// Parses the inclusive `from`/`to` bounds.
///
/// # Errors
/// 400 for a value that is not an RFC 3339 date-time; 422 when `from` is after `to`.
pub fn time_bounds(from: Option<&str>, to: Option<&str>) -> Result<(Option<Timestamp>, Option<Timestamp>), ApiError> {
    let parse = |name: &str, raw: Option<&str>| {
        raw.map(|r| {
            chrono::DateTime::parse_from_rfc3339(r.trim())
                .map(|t| t.with_timezone(&chrono::Utc))
                .map_err(|_| ApiError::BadRequest(format!("{name}: expected an RFC 3339 date-time such as 2026-11-21T00:00:00Z, got {r:?}")))
        })
        .transpose()
    };
    let (from, to) = (parse("from", from)?, parse("to", to)?);
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            return Err(ApiError::invalid("from", "must not be after to"));
        }
    }
    Ok((from, to))
}

impl PageQuery {
    /// Default page size of the 1-based lists.
    pub const DEFAULT_PAGE_SIZE: i64 = 25;
    /// Largest page size of the 1-based lists.
    pub const MAX_PAGE_SIZE: i64 = 100;

    /// Checks the bounds of decisions §11.
    ///
    /// # Errors
    /// 422 naming each parameter out of bounds.
    pub fn validate(&self) -> Result<callscope_domain::PageRequest, ApiError> {
        let mut v = callscope_domain::Validator::default();
        let page = self.page.unwrap_or(1);
        let page_size = self.page_size.unwrap_or(Self::DEFAULT_PAGE_SIZE);
        if page < 1 {
            v.error("page", "must be at least 1");
        } else if page > i64::from(i32::MAX) {
            v.error("page", format!("must be at most {}", i32::MAX));
        }
        if !(1..=Self::MAX_PAGE_SIZE).contains(&page_size) {
            v.error("pageSize", format!("must be between 1 and {}", Self::MAX_PAGE_SIZE));
        }
        v.finish()?;
        Ok(callscope_domain::PageRequest { page: page as u32, page_size: page_size as u32 })
    }
}

/// A response that says where its resource lives: `201 Created` with a new resource, or
/// `202 Accepted` with queued work, each with `Location` and the resource as JSON.
#[derive(Debug)]
pub struct Located<T> {
    status: StatusCode,
    location: String,
    body: T,
}

impl<T> Located<T> {
    /// `201 Created`: `body` was made and lives at `location`.
    pub fn created(location: String, body: T) -> Self {
        Self { status: StatusCode::CREATED, location, body }
    }

    /// `202 Accepted`: `body` is queued work, followed at `location`.
    pub fn accepted(location: String, body: T) -> Self {
        Self { status: StatusCode::ACCEPTED, location, body }
    }
}

impl<T: Serialize> IntoResponse for Located<T> {
    fn into_response(self) -> Response {
        (self.status, [(header::LOCATION, self.location)], Json(self.body)).into_response()
    }
}
