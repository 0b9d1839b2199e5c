//! A call's original audio (decisions §4): its facts, and the bytes themselves with HTTP Range
//! so that players can seek.

use std::ops::Range;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use callscope_domain::{CallAudio, CallId, Timestamp};
use futures::StreamExt;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

use crate::audio_link::AudioLinkGrant;
use crate::context::record_org;
use crate::error::Problem;
use crate::extract::{InProject, ProjectPath};
use crate::views::{rfc3339, Located};
use crate::{ApiError, AppState};

/// A call's audio file.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AudioInfoView {
    /// The file's facts.
    #[serde(flatten)]
    pub audio: CallAudio,
    /// Where the bytes are served (Range supported).
    pub content_url: String,
}

/// Facts about a call's audio.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/{id}/audio", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    responses((status = 200, description = "The audio file's facts", body = AudioInfoView)))]
pub async fn get_audio_info(State(state): State<AppState>, InProject { scope, id }: InProject<CallId>) -> Result<Json<AudioInfoView>, ApiError> {
    let audio = state.store.get_call_audio(scope.id(), id).await?;
    let content_url = format!("/v1/projects/{}/calls/{id}/audio/content", scope.id());
    Ok(Json(AudioInfoView { audio, content_url }))
}

/// The `Range` header the audio routes read, for the document only (the handlers parse it).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
struct RangeHeader {
    /// `bytes=START-END`, `bytes=START-` or `bytes=-SUFFIX`.
    #[param(rename = "Range")]
    range: Option<String>,
}

/// The original audio bytes. A single `Range: bytes=…` gives 206 with that part.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/{id}/audio/content", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call"), RangeHeader),
    responses((status = 200, description = "The whole file", content_type = "application/octet-stream"),
        (status = 206, description = "The requested range (`Content-Range`)", content_type = "application/octet-stream"),
        (status = 416, description = "`range_not_satisfiable`", body = Problem)))]
pub async fn get_audio_content(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let audio = state.store.get_call_audio(scope.id(), id).await?;
    audio_bytes(&state, audio, &headers).await
}

/// A link to a call's audio that works without `X-API-Key`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AudioLinkView {
    /// Path of the audio (Range supported), for an `<audio>` element's `src`. It opens this
    /// call's audio only, and stops working at `expiresAt` or when the key that made it is revoked.
    pub url: String,
    /// When the link stops working (one hour after it was made).
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: Timestamp,
}

/// Make a short-lived link to a call's audio, for players that cannot send `X-API-Key` (beyond
/// the spec). Nothing is stored: the link is signed with the calling key, lasts an hour, and ends
/// with the key.
#[utoipa::path(post, path = "/v1/projects/{projectId}/calls/{id}/audio/link", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    responses(
        (status = 201, description = "The link (also in `Location`)", body = AudioLinkView, headers(("Location" = String, description = "The link's path")))))]
pub async fn create_audio_link(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
) -> Result<Located<AudioLinkView>, ApiError> {
    state.store.get_call_audio(scope.id(), id).await?;
    // The key was checked a moment ago; if it was revoked since, the link would not open anyway.
    let (_, digest) = state.store.active_key_digest(scope.caller.key_id).await?.ok_or(ApiError::Unauthorized)?;
    let grant = AudioLinkGrant::new(scope.caller.key_id, scope.id(), id, state.clock.now());
    let url = format!("/audio/{}", grant.sign(&state.audio_link_secret, &digest));
    Ok(Located::created(url.clone(), AudioLinkView { url, expires_at: grant.expires_at }))
}

/// A call's audio through a link from `…/audio/link`, without `X-API-Key` (so outside `/v1`,
/// every route of which needs the key); Range as for `…/audio/content`.
#[utoipa::path(get, path = "/audio/{token}", tag = "Calls", security(()),
    params(("token" = String, Path, description = "The link's token"), RangeHeader),
    responses((status = 200, description = "The whole file", content_type = "application/octet-stream"),
        (status = 206, description = "The requested range (`Content-Range`)", content_type = "application/octet-stream"),
        (status = 401, description = "The link is malformed, forged, expired, or its key was revoked", body = Problem),
        (status = 404, description = "The call is gone", body = Problem), (status = 416, description = "`range_not_satisfiable`", body = Problem)))]
pub async fn get_linked_audio(State(state): State<AppState>, Path(token): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let link = AudioLinkGrant::parse(&token).ok_or(ApiError::LinkNotValid)?;
    let (org, digest) = state.store.active_key_digest(link.key_id()).await?.ok_or(ApiError::LinkNotValid)?;
    let grant = link.verify(&state.audio_link_secret, &digest, state.clock.now()).ok_or(ApiError::LinkNotValid)?;
    record_org(org);
    // The project is looked up within the key's organization, as for any request of that key.
    let project = state.store.get_project(org, grant.project_id).await?.ok_or_else(|| ApiError::not_found("call"))?;
    let audio = state.store.get_call_audio(project.id, grant.call_id).await?;
    let mut response = audio_bytes(&state, audio, &headers).await?;
    // Only the browser that holds the link may keep the bytes: a shared cache would go on
    // serving them after the link expired or its key was revoked.
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    Ok(response)
}

/// The audio's bytes, or the part a single `Range` asks for.
async fn audio_bytes(state: &AppState, audio: CallAudio, headers: &HeaderMap) -> Result<Response, ApiError> {
    let size = u64::try_from(audio.size_bytes).unwrap_or_default();
    let requested = headers.get(header::RANGE).and_then(|v| v.to_str().ok()).map(|v| parse_range(v, size));
    let (status, range) = match requested {
        Some(RangeRequest::Satisfiable(range)) => (StatusCode::PARTIAL_CONTENT, range),
        Some(RangeRequest::Unsatisfiable) => return Err(ApiError::RangeNotSatisfiable(size)),
        // No Range, or one we do not serve (several ranges, other units): the whole file.
        Some(RangeRequest::Ignored) | None => (StatusCode::OK, 0..size),
    };
    let stream = if range.is_empty() {
        futures::stream::empty().boxed()
    } else {
        state.storage.read_range(&audio.storage_path, range.clone()).await.map_err(|e| {
            tracing::warn!(error = %e, "audio content unavailable");
            ApiError::Unavailable
        })?
    };
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    let set = |headers: &mut HeaderMap, name, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    };
    set(headers, header::CONTENT_TYPE, audio.content_type);
    set(headers, header::CONTENT_LENGTH, (range.end - range.start).to_string());
    set(headers, header::ACCEPT_RANGES, "bytes".into());
    let ascii_name: String = audio.filename.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '_' }).collect();
    set(headers, header::CONTENT_DISPOSITION, format!("inline; filename=\"{}\"", ascii_name.replace('"', "_")));
    if status == StatusCode::PARTIAL_CONTENT {
        set(headers, header::CONTENT_RANGE, format!("bytes {}-{}/{size}", range.start, range.end - 1));
    }
    Ok(response.into_response())
}

#[derive(Debug, PartialEq, Eq)]
enum RangeRequest {
    Satisfiable(Range<u64>),
    Unsatisfiable,
    Ignored,
}

/// One `bytes` range of RFC 9110 against content of `size` bytes.
fn parse_range(header: &str, size: u64) -> RangeRequest {
    let Some(spec) = header.trim().strip_prefix("bytes=") else { return RangeRequest::Ignored };
    if spec.contains(',') {
        return RangeRequest::Ignored;
    }
    let Some((start, end)) = spec.trim().split_once('-') else { return RangeRequest::Ignored };
    let (start, end) = (start.trim(), end.trim());
    let range = if start.is_empty() {
        // The last `end` bytes.
        let Ok(suffix) = end.parse::<u64>() else { return RangeRequest::Ignored };
        if suffix == 0 {
            return RangeRequest::Unsatisfiable;
        }
        size.saturating_sub(suffix)..size
    } else {
        let Ok(first) = start.parse::<u64>() else { return RangeRequest::Ignored };
        let last = if end.is_empty() {
            size.saturating_sub(1)
        } else {
            match end.parse::<u64>() {
                Ok(last) if last >= first => last.min(size.saturating_sub(1)),
                _ => return RangeRequest::Ignored,
            }
        };
        if first >= size {
            return RangeRequest::Unsatisfiable;
        }
        first..last + 1
    };
    if range.is_empty() {
        RangeRequest::Unsatisfiable
    } else {
        RangeRequest::Satisfiable(range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RangeRequest::*;

    #[test]
    fn ranges_follow_rfc_9110() {
        assert_eq!(parse_range("bytes=0-99", 1000), Satisfiable(0..100));
        assert_eq!(parse_range("bytes=900-", 1000), Satisfiable(900..1000));
        assert_eq!(parse_range("bytes=900-5000", 1000), Satisfiable(900..1000), "an end past the content is clamped");
        assert_eq!(parse_range("bytes=-10", 1000), Satisfiable(990..1000));
        assert_eq!(parse_range("bytes=-5000", 1000), Satisfiable(0..1000));
        assert_eq!(parse_range("bytes=1000-", 1000), Unsatisfiable);
        assert_eq!(parse_range("bytes=-0", 1000), Unsatisfiable);
        assert_eq!(parse_range("bytes=0-0", 0), Unsatisfiable);
        assert_eq!(parse_range("bytes=5-2", 1000), Ignored, "an invalid range is ignored");
        assert_eq!(parse_range("bytes=0-1,5-6", 1000), Ignored, "several ranges: the whole content");
        assert_eq!(parse_range("items=0-1", 1000), Ignored);
        assert_eq!(parse_range("bytes=a-b", 1000), Ignored);
    }
}
