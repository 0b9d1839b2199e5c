//! The error model of decisions §2: every failure is an RFC 9457 `application/problem+json`
//! body with a stable machine-readable `code`, and the request id. Internals go to the log,
//! never to the client.

use std::any::Any;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use callscope_domain::ValidationErrors;
use callscope_store::{Rejection, StoreError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::context::current_request_id;

/// Machine-readable error codes. A code is API contract: renaming one breaks clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed JSON, a query parameter of the wrong type, a body without a required part.
    BadRequest,
    /// A search query that cannot be parsed.
    InvalidQuery,
    /// `X-API-Key` missing, unknown or revoked.
    Unauthorized,
    /// No such resource in the caller's organization.
    NotFound,
    /// The route exists but not with this method.
    MethodNotAllowed,
    /// The same audio was uploaded to the project before.
    DuplicateUpload,
    /// A category move would create a cycle.
    CategoryCycle,
    /// A sibling category has the same name.
    DuplicateCategory,
    /// Only a FAILED job can be deleted on its own.
    JobNotFailed,
    /// The request's body arrived too slowly.
    RequestTimeout,
    /// The body is over the size limit.
    PayloadTooLarge,
    /// The body is not of a type the endpoint accepts.
    UnsupportedMediaType,
    /// Well-formed input that breaks a rule.
    ValidationFailed,
    /// A `Range` that lies outside the content.
    RangeNotSatisfiable,
    /// The key's request budget is spent.
    RateLimited,
    /// A bug.
    Internal,
    /// The database or the object store cannot be reached.
    Unavailable,
}

impl ErrorCode {
    /// The HTTP status of the code.
    pub fn status(self) -> StatusCode {
        use ErrorCode::*;
        match self {
            BadRequest | InvalidQuery => StatusCode::BAD_REQUEST,
            Unauthorized => StatusCode::UNAUTHORIZED,
            NotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            DuplicateUpload | CategoryCycle | DuplicateCategory | JobNotFailed => StatusCode::CONFLICT,
            PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ValidationFailed => StatusCode::UNPROCESSABLE_ENTITY,
            RangeNotSatisfiable => StatusCode::RANGE_NOT_SATISFIABLE,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The problem `title`: a fixed summary of the code.
    pub fn title(self) -> &'static str {
        use ErrorCode::*;
        match self {
            BadRequest => "Bad request",
            InvalidQuery => "Invalid search query",
            Unauthorized => "Unauthorized",
            NotFound => "Not found",
            MethodNotAllowed => "Method not allowed",
            DuplicateUpload => "Duplicate upload",
            CategoryCycle => "Category cycle",
            DuplicateCategory => "Duplicate category",
            JobNotFailed => "Job not failed",
            PayloadTooLarge => "Payload too large",
            UnsupportedMediaType => "Unsupported media type",
            ValidationFailed => "Validation failed",
            RangeNotSatisfiable => "Range not satisfiable",
            RequestTimeout => "Request timeout",
            RateLimited => "Rate limited",
            Internal => "Internal error",
            Unavailable => "Service unavailable",
        }
    }
}

/// One broken rule in a `validation_failed` answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldErrorView {
    /// JSON path of the field, e.g. `name` or `fields[2].label`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// RFC 9457 problem details, the body of every non-2xx answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"type": "about:blank", "title": "Validation failed", "status": 422,
    "code": "validation_failed", "detail": "name: must be at most 200 characters",
    "errors": [{"field": "name", "message": "must be at most 200 characters"}],
    "requestId": "0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5b"}))]
pub struct Problem {
    /// Always `about:blank`: the `code` says what happened.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Fixed summary of the code.
    pub title: &'static str,
    /// The HTTP status.
    pub status: u16,
    /// Stable machine-readable code.
    pub code: ErrorCode,
    /// This occurrence, in words.
    pub detail: String,
    /// Broken rules (validation failures only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldErrorView>>,
    /// The request id (also in `X-Request-Id`), for finding the log lines.
    pub request_id: Option<String>,
    /// `duplicate_upload` only: the job that already has these bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing_job_id: Option<uuid::Uuid>,
    /// `duplicate_upload` only: that job's call, null until it completes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub transcript_id: Option<Option<uuid::Uuid>>,
}

/// Every way a request can fail. Handlers return `Result<_, ApiError>`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400 `bad_request`.
    #[error("{0}")]
    BadRequest(String),
    /// 400 `invalid_query`: a search query that cannot be parsed; the message says where.
    #[error("{0}")]
    InvalidQuery(String),
    /// 401 `unauthorized`.
    #[error("a valid X-API-Key header is required")]
    Unauthorized,
    /// 401 `unauthorized` for an audio link that is malformed, forged, expired or made by a key
    /// since revoked (one answer for all four).
    #[error("this audio link is not valid or has expired; ask for a new one")]
    LinkNotValid,
    /// 404 `not_found`.
    #[error("{0}")]
    NotFound(String),
    /// 405 `method_not_allowed`.
    #[error("this route does not accept the method")]
    MethodNotAllowed,
    /// 409 `duplicate_upload`.
    #[error("the same audio was already uploaded to this project (job {existing_job}); add force=true to process it again")]
    DuplicateUpload {
        /// The earlier job.
        existing_job: uuid::Uuid,
        /// Its call, if completed.
        transcript_id: Option<uuid::Uuid>,
    },
    /// 409 with a specific code (`duplicate_category`, `category_cycle`, …).
    #[error("{1}")]
    Conflict(ErrorCode, String),
    /// 413 `payload_too_large`.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// 415 `unsupported_media_type`.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// 408 `request_timeout`: the body came too slowly.
    #[error("{0}")]
    RequestTimeout(String),
    /// 422 `validation_failed`.
    #[error("{0}")]
    Validation(ValidationErrors),
    /// 416 `range_not_satisfiable`, with the content's size.
    #[error("the requested range lies outside the {0} bytes of the content")]
    RangeNotSatisfiable(u64),
    /// 429 `rate_limited`.
    #[error("rate limit exceeded, retry in {retry_after_s} s")]
    RateLimited {
        /// Seconds until a request will be accepted again.
        retry_after_s: u64,
    },
    /// 503 `unavailable`.
    #[error("the database or the audio storage is unavailable, try again shortly")]
    Unavailable,
    /// 503 `unavailable` for a part of the service that is not ready yet; the message says which.
    #[error("{0}")]
    Busy(String),
    /// 500 `internal`: the cause is logged, never sent.
    #[error("internal error")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::BadRequest(_) => ErrorCode::BadRequest,
            ApiError::InvalidQuery(_) => ErrorCode::InvalidQuery,
            ApiError::Unauthorized | ApiError::LinkNotValid => ErrorCode::Unauthorized,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            ApiError::DuplicateUpload { .. } => ErrorCode::DuplicateUpload,
            ApiError::Conflict(code, _) => *code,
            ApiError::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            ApiError::UnsupportedMediaType(_) => ErrorCode::UnsupportedMediaType,
            ApiError::RequestTimeout(_) => ErrorCode::RequestTimeout,
            ApiError::Validation(_) => ErrorCode::ValidationFailed,
            ApiError::RangeNotSatisfiable(_) => ErrorCode::RangeNotSatisfiable,
            ApiError::RateLimited { .. } => ErrorCode::RateLimited,
            ApiError::Unavailable | ApiError::Busy(_) => ErrorCode::Unavailable,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// A 422 for a single field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError::Validation(ValidationErrors::one(field, message))
    }

    /// A 404 naming the missing thing.
    pub fn not_found(what: &str) -> Self {
        ApiError::NotFound(format!("{what} not found"))
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> Self {
        ApiError::Validation(errors)
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Unavailable(source) => {
                tracing::warn!(error = %source, "database unavailable");
                ApiError::Unavailable
            }
            StoreError::NotFound(what) => ApiError::not_found(what),
            StoreError::Rejected(rejection) => match rejection {
                Rejection::ParentNotFound => ApiError::invalid("parentId", "is not a category of this project"),
                Rejection::UnknownCategory => ApiError::invalid("categoryId", "is not a category of this project"),
                Rejection::DuplicateCategory => {
                    ApiError::Conflict(ErrorCode::DuplicateCategory, "a sibling category has the same name (names are compared ignoring case)".into())
                }
                Rejection::TooDeep => {
                    ApiError::invalid("parentId", format!("would give the category tree more than {} levels", callscope_domain::CATEGORY_LEVELS_MAX))
                }
                Rejection::CategoryCycle => {
                    ApiError::Conflict(ErrorCode::CategoryCycle, "a category cannot be moved under itself or one of its descendants".into())
                }
                Rejection::MergeAcrossCalls => ApiError::invalid("into", "must be another action item of the same call"),
                Rejection::UnknownSpeaker => ApiError::invalid("names", "names a speakerId that is not a speaker of this call"),
                Rejection::DuplicateRule => ApiError::invalid("name", "another rule of this project has this name (compared ignoring case)"),
                Rejection::TooManyRules => {
                    ApiError::invalid("name", format!("the project already has {} rules, as many as it may", callscope_domain::RULES_PER_PROJECT_MAX))
                }
            },
            other => ApiError::Internal(Box::new(other)),
        }
    }
}

/// Seconds a client should wait after a 503.
const UNAVAILABLE_RETRY_AFTER_S: u64 = 5;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.code();
        let request_id = current_request_id();
        if let ApiError::Internal(source) = &self {
            // The full chain goes to the log under the request id; the client gets none of it.
            tracing::error!(request_id = request_id.as_deref().unwrap_or("-"), error = ?source, "request failed");
        }
        let errors = match &self {
            ApiError::Validation(v) => Some(v.0.iter().map(|e| FieldErrorView { field: e.field.clone(), message: e.message.clone() }).collect()),
            _ => None,
        };
        let retry_after = match &self {
            ApiError::RateLimited { retry_after_s } => Some(*retry_after_s),
            ApiError::Unavailable | ApiError::Busy(_) => Some(UNAVAILABLE_RETRY_AFTER_S),
            _ => None,
        };
        let (existing_job_id, transcript_id) = match &self {
            ApiError::DuplicateUpload { existing_job, transcript_id } => (Some(*existing_job), Some(*transcript_id)),
            _ => (None, None),
        };
        let problem = Problem {
            kind: "about:blank",
            title: code.title(),
            status: code.status().as_u16(),
            code,
            detail: self.to_string(),
            errors,
            request_id,
            existing_job_id,
            transcript_id,
        };
        let mut response = problem_response(&problem);
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let ApiError::RangeNotSatisfiable(size) = self {
            if let Ok(value) = HeaderValue::from_str(&format!("bytes */{size}")) {
                response.headers_mut().insert(header::CONTENT_RANGE, value);
            }
        }
        response
    }
}

fn problem_response(problem: &Problem) -> Response {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(problem).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"))], body).into_response()
}

/// Fallback for paths no route matches.
pub async fn route_not_found() -> ApiError {
    ApiError::NotFound("no route matches this path".into())
}

/// Fallback for a known path with a method it does not take.
pub async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Turns a handler panic into a 500 problem (the panic message is logged, not sent).
pub fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let message = panic.downcast_ref::<String>().map(String::as_str).or_else(|| panic.downcast_ref::<&str>().copied()).unwrap_or("unknown panic");
    ApiError::Internal(format!("handler panicked: {message}").into()).into_response()
}
