//! Upload and re-analysis jobs, and the queue workers take them from. Every change a worker makes
//! applies only while it holds the job's lease, and says whether it did: a worker whose lease
//! expired and was taken over changes nothing. Completing a job writes its call (or the new
//! analysis) and its events in one transaction.

use async_trait::async_trait;
use callscope_domain::{
    CallId, CallTranscript, CategoryId, Classification, Event, Job, JobId, JobStage, NewActionItem, NewJob, ProjectId, SentimentLevel, StoredSummary,
    TemplateAnalysis, TemplateId, Timestamp,
};

use crate::StoreResult;

/// Jobs and their queue. The SQL is in `sql/jobs.rs`.
#[async_trait]
pub trait JobStore: Send + Sync {
    /// Queues an accepted upload (status PENDING, runnable now).
    async fn create_job(&self, project: ProjectId, new: &NewJob) -> StoreResult<Job>;

    /// One job of the project.
    async fn get_job(&self, project: ProjectId, id: JobId) -> StoreResult<Job>;

    /// The oldest job of the project with these bytes that has not failed.
    async fn find_duplicate_job(&self, project: ProjectId, sha256: &str) -> StoreResult<Option<Job>>;

    /// Takes the next runnable job (pending and due, or processing with an expired lease) for
    /// `lease`, counting an attempt.
    async fn claim_job(&self, worker: &str, lease: std::time::Duration) -> StoreResult<Option<Job>>;

    /// Extends the lease and records the stage and progress.
    async fn heartbeat_job(&self, id: JobId, worker: &str, lease: std::time::Duration, stage: JobStage, progress: f64) -> StoreResult<bool>;

    /// Puts the job back in the queue, runnable at `run_at`, keeping the error for people.
    async fn retry_job(&self, id: JobId, worker: &str, error: &str, run_at: Timestamp) -> StoreResult<bool>;

    /// Puts a job its worker is giving up unfinished (the process is stopping) back in the
    /// queue, runnable now, without counting the attempt: a deploy is not the job's fault.
    async fn release_job(&self, id: JobId, worker: &str) -> StoreResult<bool>;

    /// Keeps what the attempt `worker` holds heard before its analysis, for a retry to start
    /// from; false when it no longer holds the job.
    async fn save_checkpoint(&self, id: JobId, worker: &str, checkpoint: &serde_json::Value) -> StoreResult<bool>;

    /// What an earlier attempt of the job kept (see [`JobStore::save_checkpoint`]); none once the
    /// job has ended.
    async fn job_checkpoint(&self, id: JobId) -> StoreResult<Option<serde_json::Value>>;

    /// Deletes a FAILED job of the project with its `call.failed` events (and their deliveries);
    /// false when the project has no such job or it has not failed. Its audio is the caller's
    /// to delete (first: a FAILED job is never touched again).
    async fn delete_failed_job(&self, project: ProjectId, id: JobId) -> StoreResult<bool>;

    /// Fails the job for good and writes `event` to the outbox, in one transaction.
    async fn fail_job(&self, id: JobId, worker: &str, error: &str, event: &Event) -> StoreResult<bool>;

    /// Creates the call, completes the job and writes `events` to the outbox, in one transaction.
    async fn complete_job(&self, id: JobId, worker: &str, call: &NewCall, events: &[Event]) -> StoreResult<bool>;

    /// Queues a re-analysis of the project's call (a `REANALYZE` job with the call's file facts,
    /// its language and its date), with `template` or else the template active when it runs.
    async fn create_reanalysis_job(&self, project: ProjectId, call: CallId, template: Option<TemplateId>) -> StoreResult<Job>;

    /// Completes a re-analysis: the call's title, sentiment, summary and template answers are
    /// replaced, and its classification too unless it was chosen by hand; its action items are
    /// replaced (an `action_item.deleted` event for each old one); `events` go to the outbox. One
    /// transaction.
    async fn complete_reanalysis(&self, id: JobId, worker: &str, analysis: &CallAnalysisRecord, events: &[Event]) -> StoreResult<bool>;
}

/// The call a completed job creates (its audio facts; later stages add the analysis).
#[derive(Debug, Clone, PartialEq)]
pub struct NewCall {
    /// The call's id.
    pub id: CallId,
    /// Upload file name.
    pub filename: String,
    /// Spoken language.
    pub language: callscope_domain::Language,
    /// Bytes of the original audio.
    pub size_bytes: i64,
    /// Length in seconds.
    pub duration_s: f64,
    /// Object-store key of the audio.
    pub storage_path: String,
    /// SHA-256 of the audio.
    pub sha256: String,
    /// Media type of the audio.
    pub content_type: String,
    /// Sample rate of the file.
    pub sample_rate: u32,
    /// Channels of the file.
    pub channels: u32,
    /// Codec short name.
    pub codec: String,
    /// When the call took place, when known.
    pub recorded_at: Option<callscope_domain::Timestamp>,
    /// When the call record is made.
    pub created_at: callscope_domain::Timestamp,
    /// What speech recognition found.
    pub transcript: CallTranscript,
    /// What analysis found, if it ran.
    pub analysis: Option<CallAnalysisRecord>,
}

/// What analysis found about a call, as stored (the records are JSON columns in their API shape),
/// and the action items to create with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallAnalysisRecord {
    /// A short title.
    pub title: Option<String>,
    /// `positive`, `neutral`, `negative` or `unknown`.
    pub sentiment_level: SentimentLevel,
    /// The sentiment's confidence (0–1), when there is a sentiment.
    pub sentiment_confidence: Option<f64>,
    /// The classification's primary category.
    pub primary_category: Option<CategoryId>,
    /// `classification` (null without categories).
    pub classification: Option<Classification>,
    /// The `summary` block, without its action items (they are rows of their own).
    pub summary: Option<StoredSummary>,
    /// `templateAnalysis`.
    pub template_analysis: Option<TemplateAnalysis>,
    /// Action items, in the order of the call's `summary.actionItems`.
    pub action_items: Vec<NewActionItem>,
}
