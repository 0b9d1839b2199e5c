//! Request extractors whose failures share the problem+json shape: the calling organization
//! from `X-API-Key`, JSON bodies with field-level errors, typed queries, and uuid path ids
//! (a path id that is not a uuid names nothing, so it is a 404).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use callscope_domain::{KeyDigest, Principal, ValidationErrors};
use serde::de::DeserializeOwned;

use crate::context::record_org;
use crate::{ApiError, AppState};

/// Header carrying the organization's API key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The authenticated caller. Put it first among a handler's arguments: a request without a
/// valid key is answered 401 before anything else about it is looked at.
#[derive(Debug, Clone, Copy)]
pub struct Caller(pub Principal);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let raw = parts.headers.get(API_KEY_HEADER).ok_or(ApiError::Unauthorized)?;
        let raw = raw.to_str().map_err(|_| ApiError::Unauthorized)?;
        // Only digests are stored, so the lookup is by digest; unknown and revoked keys match nothing.
        let principal = state.store.authenticate(&KeyDigest::of(raw)).await?;
        if let Some(lookup) = parts.extensions.get::<crate::rate_limit::KeyLookup>() {
            lookup.found(principal.is_some());
        }
        let principal = principal.ok_or(ApiError::Unauthorized)?;
        record_org(principal.org_id);
        Ok(Caller(principal))
    }
}

/// A JSON body. Syntax errors are 400; a well-formed body with a missing field, a wrong type or an
/// unknown enum value is 422 naming the field.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(request.headers()) {
            return Err(not_json());
        }
        let bytes = read_body(request, state).await?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A JSON body that may be left out: an empty body is `None`; anything else must be JSON, as
/// for [`ApiJson`].
#[derive(Debug)]
pub struct OptionalApiJson<T>(pub Option<T>);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for OptionalApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let json = is_json(request.headers());
        let bytes = read_body(request, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self(None));
        }
        if !json {
            return Err(not_json());
        }
        parse_json(&bytes).map(|v| Self(Some(v)))
    }
}

/// The whole body, within the JSON size limit.
async fn read_body<S: Send + Sync>(request: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(request, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge(format!("JSON bodies are limited to {} bytes", crate::MAX_JSON_BYTES))
        } else {
            ApiError::BadRequest(format!("could not read the body: {rejection}"))
        }
    })
}

fn not_json() -> ApiError {
    ApiError::UnsupportedMediaType("expected a JSON body with Content-Type: application/json".into())
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Parses JSON, naming the offending field on data errors.
pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Well-formedness first (trailing bytes included), so that broken JSON is always a 400 even
    // when its beginning would already fail the typed parse.
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(|e| ApiError::BadRequest(format!("malformed JSON: {e}")))?;
    // JSON cannot hold a raw NUL byte, only its escape: a body without one needs no closer look.
    if bytes.windows(6).any(|w| w == b"\\u0000") {
        let whole: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| ApiError::BadRequest(format!("malformed JSON: {e}")))?;
        refuse_nul_in_json(&whole, "")?;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        match inner.classify() {
            serde_json::error::Category::Data => data_error(&path, &inner),
            _ => ApiError::BadRequest(format!("malformed JSON: {inner}")),
        }
    })?;
    Ok(value)
}

fn data_error(path: &str, err: &serde_json::Error) -> ApiError {
    let full = err.to_string();
    // serde_json appends the position; the field path says more to a client.
    let message = full.split(" at line ").next().unwrap_or(&full).to_owned();
    let parent = if path == "." { "" } else { path };
    if let Some(missing) = message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
        let field = if parent.is_empty() { missing.to_owned() } else { format!("{parent}.{missing}") };
        return ApiError::Validation(ValidationErrors::one(field, "is required"));
    }
    if parent.is_empty() {
        return ApiError::Validation(ValidationErrors::one("body", message));
    }
    ApiError::Validation(ValidationErrors::one(parent, message))
}

const NUL_REFUSED: &str = "must not contain the NUL character (U+0000)";

/// Refuses a string (or key) holding U+0000 anywhere in a JSON body, naming its field: no
/// field means it, and PostgreSQL cannot store it in text (the database error would be a 500).
fn refuse_nul_in_json(value: &serde_json::Value, path: &str) -> Result<(), ApiError> {
    let refused = |at: &str| ApiError::Validation(ValidationErrors::one(if at.is_empty() { "body" } else { at }, NUL_REFUSED));
    match value {
        serde_json::Value::String(text) if text.contains('\0') => Err(refused(path)),
        serde_json::Value::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| refuse_nul_in_json(item, &format!("{path}[{i}]"))),
        serde_json::Value::Object(fields) => fields.iter().try_for_each(|(key, item)| {
            // A NUL in a key is named as `\0`, so that the error itself stays storable text.
            let named = key.replace('\0', "\\0");
            let at = if path.is_empty() { named } else { format!("{path}.{named}") };
            if key.contains('\0') {
                return Err(refused(&at));
            }
            refuse_nul_in_json(item, &at)
        }),
        _ => Ok(()),
    }
}

/// Refuses a query parameter (name or value, once decoded) holding U+0000, naming it, as
/// [`refuse_nul_in_json`] does for bodies.
pub(crate) fn refuse_nul_in_query(raw: Option<&str>) -> Result<(), ApiError> {
    match url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).find(|(key, value)| key.contains('\0') || value.contains('\0')) {
        Some((key, _)) => Err(ApiError::Validation(ValidationErrors::one(key.replace('\0', "\\0"), NUL_REFUSED))),
        None => Ok(()),
    }
}

/// Query parameters; a value of the wrong type is a 400.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        refuse_nul_in_query(parts.uri.query())?;
        Query::<T>::try_from_uri(&parts.uri)
            .map(|Query(v)| ApiQuery(v))
            .map_err(|e| ApiError::BadRequest(format!("invalid query string: {}", e.body_text())))
    }
}

/// Path ids. They are all uuids, and one that does not parse names nothing: 404.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(v)| ApiPath(v))
            .map_err(|_| ApiError::NotFound("no such resource (path ids are uuids)".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        inner: Option<Inner>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        count: u32,
    }

    fn field_of(err: ApiError) -> (String, String) {
        match err {
            ApiError::Validation(v) => (v.0[0].field.clone(), v.0[0].message.clone()),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn json_errors_name_the_field() {
        assert!(matches!(parse_json::<Body>(b"{\"name\": "), Err(ApiError::BadRequest(_))));
        assert!(matches!(parse_json::<Body>(b"{} x"), Err(ApiError::BadRequest(_))));
        assert_eq!(field_of(parse_json::<Body>(b"{}").unwrap_err()), ("name".into(), "is required".into()));
        let (field, message) = field_of(parse_json::<Body>(br#"{"name": 5}"#).unwrap_err());
        assert_eq!(field, "name");
        assert!(message.starts_with("invalid type: integer `5`, expected a string"), "{message}");
        let (field, _) = field_of(parse_json::<Body>(br#"{"name": "a", "inner": {"count": -1}}"#).unwrap_err());
        assert_eq!(field, "inner.count");
        let (field, _) = field_of(parse_json::<Body>(br#"{"name": "a", "inner": {}}"#).unwrap_err());
        assert_eq!(field, "inner.count");
        let (field, _) = field_of(parse_json::<Body>(b"\"text\"").unwrap_err());
        assert_eq!(field, "body");
    }

    #[test]
    fn nul_characters_are_refused_by_field_in_bodies_and_queries() {
        let (field, message) = field_of(parse_json::<Body>(br#"{"name": "a\u0000b"}"#).unwrap_err());
        assert_eq!((field.as_str(), message.as_str()), ("name", NUL_REFUSED));
        let (field, _) = field_of(parse_json::<serde_json::Value>(br#"{"fields": [{"prompt": "ok"}, {"options": ["x\u0000"]}]}"#).unwrap_err());
        assert_eq!(field, "fields[1].options[0]");
        let (field, _) = field_of(parse_json::<serde_json::Value>(br#"{"a\u0000": 1}"#).unwrap_err());
        assert_eq!(field, "a\\0");
        assert!(parse_json::<Body>(br#"{"name": "a\\u0000b"}"#).is_ok(), "an escaped backslash before u0000 is text");
        let (field, _) = field_of(refuse_nul_in_query(Some("page=1&responsibleParty=a%00b")).unwrap_err());
        assert_eq!(field, "responsibleParty");
        assert!(refuse_nul_in_query(Some("q=a%2500b")).is_ok(), "%2500 decodes to the text %00");
        assert!(refuse_nul_in_query(None).is_ok());
    }
}

/// The caller plus the project named by `{projectId}` in the path, found within the caller's
/// organization. Every project-scoped handler takes this; a project of another organization
/// is the same 404 as one that does not exist.
#[derive(Debug, Clone)]
pub struct ProjectScope {
    /// Who is calling.
    pub caller: Principal,
    /// The project, owned by the caller's organization.
    pub project: callscope_domain::Project,
}

impl ProjectScope {
    /// The project's id.
    pub fn id(&self) -> callscope_domain::ProjectId {
        self.project.id
    }
}

impl FromRequestParts<AppState> for ProjectScope {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Caller(caller) = Caller::from_request_parts(parts, state).await?;
        let ApiPath(ProjectPath { project_id }) = ApiPath::<ProjectPath>::from_request_parts(parts, state).await?;
        let project = state.store.get_project(caller.org_id, project_id).await?.ok_or_else(|| ApiError::not_found("project"))?;
        Ok(ProjectScope { caller, project })
    }
}

/// The `{projectId}` of every route under a project.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Path)]
pub struct ProjectPath {
    /// The project
    #[param(value_type = uuid::Uuid)]
    project_id: callscope_domain::ProjectId,
}

/// A resource nested in the caller's project, `/v1/projects/{projectId}/…/{id}`: the project is
/// checked as [`ProjectScope`] checks it (so a missing key still answers 401 before a malformed
/// id answers 400), the id only parsed; the store answers whether it belongs to the project.
pub struct InProject<T> {
    pub scope: ProjectScope,
    pub id: T,
}

impl<T: serde::de::DeserializeOwned + Send> FromRequestParts<AppState> for InProject<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let scope = ProjectScope::from_request_parts(parts, state).await?;
        let ApiPath(IdPath { id }) = ApiPath::<IdPath<T>>::from_request_parts(parts, state).await?;
        Ok(InProject { scope, id })
    }
}

/// The `{id}` of a resource nested in a project.
#[derive(Debug, serde::Deserialize)]
pub struct IdPath<T> {
    /// The nested resource's id.
    pub id: T,
}
