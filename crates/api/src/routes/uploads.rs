//! Uploads and their jobs (decisions §4). The upload streams the `file` part to the object store
//! while hashing and counting it: memory stays flat whatever the size, the first bytes decide
//! whether it is audio at all, and nothing is kept of a refused upload.

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{header, StatusCode};
use axum::Json;
use callscope_audio::sniff;
use callscope_domain::{parse_channel_roles, Job, JobId, JobKind, JobStatus, Language, NewJob, Timestamp, Validator};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::{ErrorCode, Problem};
use crate::extract::{ApiQuery, InProject, ProjectPath, ProjectScope};
use crate::views::{rfc3339, Located};
use crate::{ApiError, AppState};

/// Bytes needed to recognise a container.
const SNIFF_BYTES: usize = 16;
/// Multipart framing allowed on top of the file itself before the early size check refuses.
const MULTIPART_SLACK: u64 = 64 * 1024;
/// Longest kept file name.
const FILENAME_MAX: usize = 255;

/// Query of an upload.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// Speaker roles in channel order, comma-separated (`agent,customer`). Each channel is then
    /// transcribed on its own and named by its role; the count must match the file's channels.
    /// Files of more than two channels are mixed down to one signal (speakers told apart by
    /// voice), so they take no roles.
    pub channel_roles: Option<String>,
    /// `pl` or `en`; omitted: the project's default language.
    pub language: Option<String>,
    /// Process bytes that were uploaded to this project before as a new call.
    pub force: Option<bool>,
    /// When the call took place (RFC 3339); deadlines in it are resolved against this date.
    pub recorded_at: Option<String>,
}

/// Multipart body of an upload.
#[derive(ToSchema)]
#[allow(dead_code)] // documents the body; the handler reads it as a stream
pub struct UploadForm {
    /// The audio: WAV (PCM, float, µ-law, A-law), MP3, FLAC, OGG/Vorbis or M4A/AAC.
    #[schema(format = Binary, content_media_type = "application/octet-stream")]
    file: String,
}

/// Answer to an accepted upload.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadAccepted {
    /// The job that processes it.
    pub job_id: Uuid,
    /// `PENDING`.
    pub status: JobStatus,
    /// When it was accepted.
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub submitted_at: Timestamp,
}

/// The slowest an upload's body may arrive: at least `min_bytes_per_second` on average over
/// every `window` (0: no floor). A client that sends a byte a second holds a connection, a
/// request slot and a storage write open for as long as it likes otherwise.
#[derive(Debug, Clone, Copy)]
pub struct UploadPace {
    /// The floor, in bytes a second.
    pub min_bytes_per_second: u64,
    /// What the floor is averaged over.
    pub window: std::time::Duration,
}

/// The `file` part, read at no less than its pace.
struct PacedField<'a> {
    field: axum::extract::multipart::Field<'a>,
    pace: UploadPace,
    window_start: std::time::Instant,
    window_bytes: u64,
}

impl<'a> PacedField<'a> {
    fn new(field: axum::extract::multipart::Field<'a>, pace: UploadPace) -> Self {
        Self { field, pace, window_start: std::time::Instant::now(), window_bytes: 0 }
    }

    /// The next chunk, or a 408 once a window passes with too little.
    async fn chunk(&mut self) -> Result<Option<Bytes>, ApiError> {
        if self.pace.min_bytes_per_second == 0 || self.pace.window.is_zero() {
            return self.field.chunk().await.map_err(bad_body);
        }
        loop {
            let window_end = self.window_start + self.pace.window;
            // Waiting ends with the window: a client that sends nothing is judged then too.
            if let Ok(read) = tokio::time::timeout_at(window_end.into(), self.field.chunk()).await {
                let chunk = read.map_err(bad_body)?;
                self.window_bytes += chunk.as_ref().map_or(0, |c| c.len() as u64);
                self.judge()?;
                return Ok(chunk);
            }
            self.judge()?;
        }
    }

    /// Once a window has passed: too little in it is a 408; enough starts the next one.
    fn judge(&mut self) -> Result<(), ApiError> {
        let now = std::time::Instant::now();
        if now < self.window_start + self.pace.window {
            return Ok(());
        }
        let needed = self.pace.min_bytes_per_second.saturating_mul(self.pace.window.as_secs().max(1));
        if self.window_bytes < needed {
            return Err(ApiError::RequestTimeout(format!(
                "the upload arrived at {} bytes in {} s, slower than the {} bytes a second the server waits for",
                self.window_bytes,
                self.pace.window.as_secs(),
                self.pace.min_bytes_per_second
            )));
        }
        (self.window_start, self.window_bytes) = (now, 0);
        Ok(())
    }
}

fn bad_body(e: axum::extract::multipart::MultipartError) -> ApiError {
    ApiError::BadRequest(format!("could not read the upload: {}", e.body_text()))
}

/// What the query of an upload says, checked.
struct UploadOptions {
    language: Language,
    channel_roles: Option<Vec<String>>,
    recorded_at: Option<Timestamp>,
    force: bool,
}

fn check_query(query: UploadQuery, default_language: Language) -> Result<UploadOptions, ApiError> {
    let mut v = Validator::default();
    let language = match query.language.as_deref() {
        None => default_language,
        Some(raw) => raw.parse().unwrap_or_else(|_| {
            v.error("language", "must be pl or en");
            default_language
        }),
    };
    let channel_roles = match query.channel_roles.as_deref().map(parse_channel_roles) {
        Some(Ok(roles)) => Some(roles),
        Some(Err(errors)) => {
            errors.0.into_iter().for_each(|e| v.error(e.field, e.message));
            None
        }
        None => None,
    };
    let recorded_at = query.recorded_at.as_deref().and_then(|raw| match chrono::DateTime::parse_from_rfc3339(raw) {
        Ok(t) => Some(t.to_utc()),
        Err(_) => {
            v.error("recorded_at", "must be an RFC 3339 date-time, e.g. 2026-11-21T09:30:00Z");
            None
        }
    });
    v.finish()?;
    Ok(UploadOptions { language, channel_roles, recorded_at, force: query.force.unwrap_or(false) })
}

fn clean_filename(raw: Option<&str>) -> String {
    let base = raw.unwrap_or_default().rsplit(['/', '\\']).next().unwrap_or_default().trim();
    let cleaned: String = base.chars().filter(|c| !c.is_control()).take(FILENAME_MAX).collect();
    if cleaned.is_empty() {
        "upload".into()
    } else {
        cleaned
    }
}

/// Upload a call recording.
#[utoipa::path(post, path = "/v1/projects/{projectId}/calls/upload", tag = "Calls", params(ProjectPath, UploadQuery),
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 202, description = "Accepted and queued", body = UploadAccepted, headers(("Location" = String, description = "Path of the job"))),
        (status = 400, description = "Not a multipart body with a `file` part", body = Problem),
        (status = 408, description = "`request_timeout`: the body arrived slower than the server waits for (`upload_min_bytes_per_second` over `upload_pace_window_seconds`)", body = Problem),
        (status = 409, description = "`duplicate_upload`: these bytes were uploaded before (`existingJobId`, `transcriptId`)", body = Problem),
        (status = 413, description = "Over the size limit", body = Problem),
        (status = 415, description = "Not audio in a format the service decodes", body = Problem),
        (status = 422, description = "A bad `language`, `channel_roles` or `recorded_at`", body = Problem),
        (status = 429, description = "Upload budget of the key spent", body = Problem)))]
pub async fn upload_call(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(query): ApiQuery<UploadQuery>,
    request: Request,
) -> Result<Located<UploadAccepted>, ApiError> {
    let options = check_query(query, scope.project.default_language)?;
    let limit = state.max_upload_bytes;
    let too_large = || ApiError::PayloadTooLarge(format!("uploads are limited to {limit} bytes"));
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit + MULTIPART_SLACK) {
        return Err(too_large());
    }
    let mut multipart = Multipart::from_request(request, &state)
        .await
        .map_err(|e| ApiError::BadRequest(format!("expected a multipart/form-data body with a part named file ({})", e.body_text())))?;
    // What comes before the file (the framing, parts that are ignored) is a few hundred bytes:
    // it must arrive within one window of the pace, or a client could trickle it for ever.
    let pace = state.upload_pace;
    let deadline = (pace.min_bytes_per_second > 0 && !pace.window.is_zero()).then(|| tokio::time::Instant::now() + pace.window);
    let field = loop {
        let next = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, multipart.next_field()).await.map_err(|_| {
                ApiError::RequestTimeout(format!("the upload's parts before its file did not arrive within {} s", pace.window.as_secs()))
            })?,
            None => multipart.next_field().await,
        };
        match next.map_err(bad_body)? {
            Some(field) if field.name() == Some("file") => break field,
            Some(_) => continue, // other parts are ignored
            None => return Err(ApiError::BadRequest("the multipart body has no part named file".into())),
        }
    };
    let mut field = PacedField::new(field, state.upload_pace);
    let filename = clean_filename(field.field.file_name());
    let job_id = JobId::new();

    // Collect enough bytes to recognise the format before anything is stored.
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let mut rest = Vec::new();
    while head.len() < SNIFF_BYTES {
        match field.chunk().await? {
            Some(chunk) => {
                let take = (SNIFF_BYTES - head.len()).min(chunk.len());
                head.extend_from_slice(&chunk[..take]);
                rest.extend_from_slice(&chunk[take..]);
            }
            None => break,
        }
    }
    let container = sniff(&head).ok_or_else(|| {
        ApiError::UnsupportedMediaType("the file is not audio in a format callscope decodes (WAV, MP3, FLAC, OGG/Vorbis, M4A/AAC)".into())
    })?;
    let storage_path = format!("projects/{}/{}.{}", scope.id(), job_id, container.extension());
    let mut writer = state.storage.writer(&storage_path).await.map_err(storage_error)?;
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut pending: Vec<Bytes> = vec![Bytes::from(head), Bytes::from(rest)];
    loop {
        for chunk in pending.drain(..) {
            size += chunk.len() as u64;
            if size > limit {
                writer.abort().await;
                return Err(too_large());
            }
            hasher.update(&chunk);
            if let Err(e) = writer.write(&chunk).await {
                writer.abort().await;
                return Err(storage_error(e));
            }
        }
        match field.chunk().await {
            Ok(Some(chunk)) => pending.push(chunk),
            Ok(None) => break,
            Err(e) => {
                writer.abort().await;
                return Err(e);
            }
        }
    }
    writer.finish().await.map_err(storage_error)?;
    let sha256 = hex::encode(hasher.finalize());

    let keep_or_discard = async {
        if !options.force {
            if let Some(existing) = state.store.find_duplicate_job(scope.id(), &sha256).await? {
                return Err(ApiError::DuplicateUpload { existing_job: existing.id.0, transcript_id: existing.transcript_id.map(|c| c.0) });
            }
        }
        let new = NewJob {
            id: job_id,
            original_filename: filename,
            content_type: container.media_type().to_owned(),
            size_bytes: i64::try_from(size).unwrap_or(i64::MAX),
            sha256,
            storage_path: storage_path.clone(),
            language: options.language,
            channel_roles: options.channel_roles,
            recorded_at: options.recorded_at,
        };
        Ok(state.store.create_job(scope.id(), &new).await?)
    };
    let job = match keep_or_discard.await {
        Ok(job) => job,
        Err(e) => {
            // Nothing is kept of a refused upload.
            let _ = state.storage.delete(&storage_path).await;
            return Err(e);
        }
    };
    tracing::info!(job_id = %job.id, size, container = container.extension(), "upload accepted");
    let location = format!("/v1/projects/{}/calls/jobs/{}", scope.id(), job.id);
    let body = UploadAccepted { job_id: job.id.0, status: job.status, submitted_at: job.submitted_at };
    Ok(Located::accepted(location, body))
}

/// Get an upload job.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/jobs/{id}", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The job")),
    responses((status = 200, description = "The job", body = Job)))]
pub async fn get_job(State(state): State<AppState>, InProject { scope, id }: InProject<JobId>) -> Result<Json<Job>, ApiError> {
    Ok(Json(state.store.get_job(scope.id(), id).await?))
}

/// Delete a FAILED job with its audio (beyond the spec). A failed upload is never processed, but
/// its audio and its `call.failed` event (which names the file) would otherwise stay for good; a
/// completed job's audio goes with its call (`DELETE …/calls/{id}`).
#[utoipa::path(delete, path = "/v1/projects/{projectId}/calls/jobs/{id}", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The job")),
    responses((status = 204, description = "The job, its audio and its call.failed event (with its webhook deliveries) are deleted"),
        (status = 409, description = "`job_not_failed`: the job is pending, processing or completed", body = Problem),
        (status = 503, description = "The audio could not be deleted; nothing was", body = Problem)))]
pub async fn delete_job(State(state): State<AppState>, InProject { scope, id }: InProject<JobId>) -> Result<StatusCode, ApiError> {
    let job = state.store.get_job(scope.id(), id).await?;
    if job.status != JobStatus::Failed {
        let hint = if job.status == JobStatus::Completed { "; a completed job's audio is deleted with its call" } else { "" };
        return Err(ApiError::Conflict(
            ErrorCode::JobNotFailed,
            format!("the job is {}: only a FAILED job can be deleted{hint}", job.status.as_str()),
        ));
    }
    // The audio first: a FAILED job is never touched again, so if the audio cannot go the job
    // stays as it was and the client can retry. Only an upload's: a re-analysis names its
    // call's audio, which stays with the call.
    if job.kind == JobKind::Transcribe {
        super::calls::delete_audio(&state, std::slice::from_ref(&job.storage_path)).await?;
    }
    if !state.store.delete_failed_job(scope.id(), id).await? {
        return Err(ApiError::not_found("job"));
    }
    Ok(StatusCode::NO_CONTENT)
}

fn storage_error(error: callscope_storage::StorageError) -> ApiError {
    tracing::warn!(%error, "object storage failed");
    ApiError::Unavailable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_lose_their_directories_and_control_characters() {
        assert_eq!(clean_filename(Some("../../etc/passwd")), "passwd");
        assert_eq!(clean_filename(Some("C:\\calls\\rozmowa 1.wav")), "rozmowa 1.wav");
        assert_eq!(clean_filename(Some("a\u{0}b\nc.mp3")), "abc.mp3");
        assert_eq!(clean_filename(None), "upload");
        assert_eq!(clean_filename(Some(&"x".repeat(400))).len(), 255);
    }
}
