//! Upload jobs (decisions §4): one per accepted upload, processed asynchronously by workers and
//! kept in the database so that none is lost when a process stops.

use serde::{Deserialize, Serialize};

use crate::{CallId, JobId, Language, ProjectId, TemplateId, Timestamp, ValidationErrors, Validator};

/// Most speaker roles in `channel_roles`.
pub const CHANNEL_ROLES_MAX: usize = 8;
/// Longest role name.
pub const CHANNEL_ROLE_MAX: usize = 100;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobStatus {
    /// Waiting for a worker.
    Pending,
    /// A worker has it.
    Processing,
    /// Done: `transcriptId` names the call.
    Completed,
    /// Gave up: `errorMessage` says why.
    Failed,
}

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobKind {
    /// An upload: decode, transcribe, find speakers and PII, analyse, store a new call.
    Transcribe,
    /// Re-run the analysis of a stored call (`transcriptId`).
    Reanalyze,
}

/// Which step a job is at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobStage {
    /// Not started.
    Queued,
    /// Reading the audio.
    Decoding,
    /// Speech recognition.
    Transcribing,
    /// Telling the speakers apart.
    Diarizing,
    /// PII, classification, summary, action items, template answers.
    Analyzing,
    /// Making the call searchable.
    Indexing,
    /// Finished.
    Done,
}

text_enum!(JobKind { Transcribe = "TRANSCRIBE", Reanalyze = "REANALYZE" });
text_enum!(JobStatus { Pending = "PENDING", Processing = "PROCESSING", Completed = "COMPLETED", Failed = "FAILED" });
text_enum!(JobStage {
    Queued = "QUEUED",
    Decoding = "DECODING",
    Transcribing = "TRANSCRIBING",
    Diarizing = "DIARIZING",
    Analyzing = "ANALYZING",
    Indexing = "INDEXING",
    Done = "DONE",
});

/// A job, as stored and as the API and the `call.failed` event show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// The job's id.
    #[serde(rename = "jobId")]
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub id: JobId,
    /// Its project.
    #[serde(skip)]
    pub project_id: ProjectId,
    /// What it does (beyond the spec: uploads are `TRANSCRIBE`).
    pub kind: JobKind,
    /// The template a re-analysis was asked to use (else the project's active one).
    #[serde(skip)]
    pub template_id: Option<TemplateId>,
    /// Life-cycle state.
    pub status: JobStatus,
    /// Current step.
    pub stage: JobStage,
    /// 0.0–1.0 over the whole pipeline.
    pub progress: f64,
    /// Times a worker has taken it.
    pub attempts: i32,
    /// Why it failed (or why the last attempt failed, while it is retried).
    pub error_message: Option<String>,
    /// File name of the uploaded part.
    pub original_filename: String,
    /// Media type sniffed from the bytes.
    pub content_type: String,
    /// Bytes uploaded.
    pub size_bytes: i64,
    /// Lower-case hex SHA-256 of the bytes.
    pub sha256: String,
    /// Object-store key of the audio.
    pub storage_path: String,
    /// Spoken language.
    pub language: Language,
    /// Speaker roles in channel order, when the upload named them.
    pub channel_roles: Option<Vec<String>>,
    /// When the call took place, when the upload said.
    #[serde(serialize_with = "crate::clock::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub recorded_at: Option<Timestamp>,
    /// The call, once completed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<uuid::Uuid>))]
    pub transcript_id: Option<CallId>,
    /// When the upload was accepted.
    #[serde(serialize_with = "crate::clock::rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub submitted_at: Timestamp,
    /// When a worker first took it.
    #[serde(serialize_with = "crate::clock::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub started_at: Option<Timestamp>,
    /// When it completed or failed.
    #[serde(serialize_with = "crate::clock::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub completed_at: Option<Timestamp>,
    /// When anything about it last changed.
    #[serde(skip)]
    pub updated_at: Timestamp,
}

/// An accepted upload to queue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// Its id (also part of the storage key).
    pub id: JobId,
    /// File name of the uploaded part.
    pub original_filename: String,
    /// Media type sniffed from the bytes.
    pub content_type: String,
    /// Bytes uploaded.
    pub size_bytes: i64,
    /// Lower-case hex SHA-256.
    pub sha256: String,
    /// Object-store key.
    pub storage_path: String,
    /// Spoken language.
    pub language: Language,
    /// Speaker roles in channel order.
    pub channel_roles: Option<Vec<String>>,
    /// When the call took place.
    pub recorded_at: Option<Timestamp>,
}

/// Parses `channel_roles`: comma-separated role names in channel order.
///
/// # Errors
/// Empty roles, too many, or too long.
pub fn parse_channel_roles(raw: &str) -> Result<Vec<String>, ValidationErrors> {
    let mut v = Validator::default();
    let roles: Vec<String> = raw.split(',').map(|r| v.text("channel_roles", r, 1, CHANNEL_ROLE_MAX)).collect();
    if roles.len() > CHANNEL_ROLES_MAX {
        v.error("channel_roles", format!("must name at most {CHANNEL_ROLES_MAX} roles"));
    }
    v.finish()?;
    Ok(roles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_roles_are_a_comma_list_of_names() {
        assert_eq!(parse_channel_roles("agent, customer").unwrap(), ["agent", "customer"]);
        assert!(parse_channel_roles("agent,").is_err());
        assert!(parse_channel_roles("").is_err());
        assert!(parse_channel_roles(&["a"; 9].join(",")).is_err());
        assert_eq!("PROCESSING".parse::<JobStatus>().unwrap(), JobStatus::Processing);
        assert_eq!(JobStage::Transcribing.as_str(), "TRANSCRIBING");
    }
}
