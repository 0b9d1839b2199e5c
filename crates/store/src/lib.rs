//! Persistence behind one trait, [`Store`], with two backends: SQLite (the embedded default, a
//! file in the data directory) and PostgreSQL (for several processes and large deployments).
//!
//! Both backends run the same SQL, written once in `sql_common.rs` and compiled for each
//! database's concrete types, so they cannot drift apart; each has its own migrations because
//! the schemas use each database's native types (uuid/timestamptz/jsonb on PostgreSQL).
//! Every tenant-facing method takes the [`OrgId`] first: no query can forget the tenant.

use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use std::collections::HashMap;

use callscope_domain::{
    AnalysisTemplate, ApiKey, ApiKeyId, CallId, Category, CategoryId, CategoryMove, CategoryPatch, Clock, Job, JobId, JobStage, KeyDigest,
    NewCategory, NewJob, NewProject, OrgId, Organization, Page, PageRequest, PresetInput, Principal, Project, ProjectId, ProjectPatch, SpeakerPreset,
    SpeakerPresetId, TemplateId, TemplateInput, Timestamp, Webhook, WebhookDeliveryId, WebhookId,
};
use uuid::Uuid;

mod classification;
mod item_index;
mod postgres;
mod rows;
mod sqlite;

/// Result of every store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or did not answer in time: worth retrying later.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// A uniqueness rule was broken; the string names the constraint when the database told.
    #[error("conflicts with an existing row ({0})")]
    Conflict(String),
    /// The database URL is not one this build understands.
    #[error("unsupported database URL: {0}")]
    BadUrl(String),
    /// Applying migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored value this build cannot read (e.g. an enum value from a newer version).
    #[error("unreadable stored value: {0}")]
    Corrupt(String),
    /// The thing named does not exist (in the project the request is scoped to).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The change breaks a rule that only the stored data can tell.
    #[error("{0}")]
    Rejected(Rejection),
    /// Any other database error: a bug or a broken database.
    #[error("database error: {0}")]
    Other(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => {
                StoreError::Unavailable(err)
            }
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.constraint().unwrap_or("unique").to_owned()),
            _ => StoreError::Other(err),
        }
    }
}

/// A change refused because of what is already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// `parentId` is not a category of the project.
    #[error("parentId is not a category of this project")]
    ParentNotFound,
    /// A sibling has the same name, ignoring case.
    #[error("a sibling category has the same name")]
    DuplicateCategory,
    /// The move would put a category under itself or a descendant.
    #[error("a category cannot move under itself or its descendants")]
    CategoryCycle,
    /// `categoryId` is not a category of the project.
    #[error("categoryId is not a category of this project")]
    UnknownCategory,
}

/// An event to put in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// Event name (`call.completed`, …).
    pub kind: &'static str,
    /// The event's `data`.
    pub payload: serde_json::Value,
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

/// What analysis found about a call, as stored: the JSON objects in the spec's shapes, and the
/// action items to create with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallAnalysisRecord {
    /// A short title.
    pub title: Option<String>,
    /// `positive`, `neutral`, `negative` or `unknown`.
    pub sentiment_level: String,
    /// The sentiment's confidence (0–1), when there is a sentiment.
    pub sentiment_confidence: Option<f64>,
    /// The classification's primary category.
    pub primary_category: Option<CategoryId>,
    /// `classification` (null without categories).
    pub classification: Option<serde_json::Value>,
    /// The `summary` block, without its action items (they are rows of their own).
    pub summary: Option<serde_json::Value>,
    /// `templateAnalysis`.
    pub template_analysis: Option<serde_json::Value>,
    /// Action items, in the order of the call's `summary.actionItems`.
    pub action_items: Vec<NewActionItem>,
}

/// An action item found by analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct NewActionItem {
    pub id: callscope_domain::ActionItemId,
    pub description: String,
    pub responsible_party: Option<String>,
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<Timestamp>,
    pub evidence: Option<String>,
    /// `LOW`, `MEDIUM`, `HIGH`.
    pub priority: String,
}

/// A stored action item.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionItem {
    pub id: callscope_domain::ActionItemId,
    pub project_id: ProjectId,
    pub call_id: CallId,
    pub transcript_index: i32,
    pub call_date: Timestamp,
    pub call_filename: String,
    pub description: String,
    pub responsible_party: Option<String>,
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<Timestamp>,
    pub evidence: Option<String>,
    pub status: String,
    pub priority: String,
    pub notes: Option<String>,
    pub completed_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ActionItem {
    /// A new item of `call` as extraction makes it: PENDING, no notes, made `now`.
    pub fn extracted(
        project: ProjectId,
        call: CallId,
        index: usize,
        call_date: Timestamp,
        call_filename: &str,
        new: &NewActionItem,
        now: Timestamp,
    ) -> Self {
        Self {
            id: new.id,
            project_id: project,
            call_id: call,
            transcript_index: i32::try_from(index).unwrap_or(i32::MAX),
            call_date,
            call_filename: call_filename.to_owned(),
            description: new.description.clone(),
            responsible_party: new.responsible_party.clone(),
            deadline_mentioned: new.deadline_mentioned.clone(),
            due_at: new.due_at,
            evidence: new.evidence.clone(),
            status: "PENDING".into(),
            priority: new.priority.clone(),
            notes: None,
            completed_at: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// The item as the API shows it and the `action_item.*` events carry it.
    pub fn to_json(&self, now: Timestamp) -> serde_json::Value {
        let stamp = |t: Timestamp| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        serde_json::json!({
            "id": self.id,
            "projectId": self.project_id,
            "transcriptId": self.call_id,
            "transcriptIndex": self.transcript_index,
            "callDate": stamp(self.call_date),
            "callFilename": self.call_filename,
            "description": self.description,
            "responsibleParty": self.responsible_party,
            "deadlineMentioned": self.deadline_mentioned,
            "dueAt": self.due_at.map(stamp),
            "evidence": self.evidence,
            "status": self.status,
            "priority": self.priority,
            "notes": self.notes,
            "completedAt": self.completed_at.map(stamp),
            "createdAt": stamp(self.created_at),
            "updatedAt": stamp(self.updated_at),
            "isOverdue": self.due_at.is_some_and(|d| d < now) && matches!(self.status.as_str(), "PENDING" | "IN_PROGRESS"),
        })
    }
}

/// Statuses of an action item, in their sort order.
pub const ACTION_ITEM_STATUSES: [&str; 4] = ["PENDING", "IN_PROGRESS", "DONE", "CANCELLED"];

/// A value's place in its sort order (the last place for an unknown one).
pub(crate) fn rank(order: &[&str], value: &str) -> u8 {
    order.iter().position(|v| *v == value).unwrap_or(order.len()) as u8
}

/// Priorities of an action item, in their sort order.
pub const ACTION_ITEM_PRIORITIES: [&str; 3] = ["LOW", "MEDIUM", "HIGH"];

/// What the action item list sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActionItemSort {
    /// When the item was made.
    #[default]
    CreatedAt,
    /// The date of its call.
    CallDate,
    /// LOW < MEDIUM < HIGH.
    Priority,
    /// PENDING < IN_PROGRESS < DONE < CANCELLED.
    Status,
}

/// Filters, order and page of the action item list (decisions §5).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionItemQuery {
    /// Any of these statuses (none: all).
    pub statuses: Vec<String>,
    /// Any of these priorities (none: all).
    pub priorities: Vec<String>,
    /// Exactly this responsible party, ignoring case.
    pub responsible_party: Option<String>,
    /// Items of this call.
    pub call: Option<CallId>,
    /// `callDate` at or after.
    pub from: Option<Timestamp>,
    /// `callDate` at or before.
    pub to: Option<Timestamp>,
    /// A substring of the description, responsible party, notes, evidence or call file name,
    /// ignoring case.
    pub search: Option<String>,
    /// Sort key; ties go by id in the same direction.
    pub sort: ActionItemSort,
    /// Largest first.
    pub descending: bool,
    /// Page from 0.
    pub page: u32,
    /// Items per page.
    pub page_size: u32,
}

/// A page of action items with the list's counters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionItemList {
    /// This page's items.
    pub items: Vec<ActionItem>,
    /// Items matching every filter.
    pub total: u64,
    /// Items matching every filter but the status one, per status.
    pub pending: u64,
    pub in_progress: u64,
    pub done: u64,
    pub cancelled: u64,
    /// Items matching every filter but the status one that are overdue.
    pub overdue: u64,
}

/// A change to an action item; `None` leaves a field as it is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionItemPatch {
    pub status: Option<String>,
    pub priority: Option<String>,
    pub description: Option<String>,
    /// `Some(None)` clears it.
    pub responsible_party: Option<Option<String>>,
    pub notes: Option<String>,
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<Timestamp>,
    /// Clears the notes.
    pub clear_notes: bool,
    /// Clears `deadline_mentioned` and `due_at`.
    pub clear_deadline: bool,
}

impl ActionItemPatch {
    /// The item with the patch applied at `now`: entering DONE sets `completed_at`, leaving it
    /// clears it; `updated_at` moves.
    pub fn apply(&self, item: &ActionItem, now: Timestamp) -> ActionItem {
        let mut next = item.clone();
        if let Some(status) = &self.status {
            if status != &item.status {
                next.completed_at = (status == "DONE").then_some(now);
            }
            next.status.clone_from(status);
        }
        if let Some(priority) = &self.priority {
            next.priority.clone_from(priority);
        }
        if let Some(description) = &self.description {
            next.description.clone_from(description);
        }
        if let Some(party) = &self.responsible_party {
            next.responsible_party.clone_from(party);
        }
        if self.clear_notes {
            next.notes = None;
        } else if let Some(notes) = &self.notes {
            next.notes = Some(notes.clone());
        }
        if self.clear_deadline {
            next.deadline_mentioned = None;
            next.due_at = None;
        } else {
            if let Some(deadline) = &self.deadline_mentioned {
                next.deadline_mentioned = Some(deadline.clone());
            }
            if let Some(due) = self.due_at {
                next.due_at = Some(due);
            }
        }
        next.updated_at = now;
        next
    }
}

/// The lower-cased keys the action item list filters on: the responsible party, and the text
/// its search looks through (description, responsible party, notes, evidence, call file name,
/// one per line so that no match spans two of them).
pub fn action_item_keys(
    description: &str,
    responsible_party: Option<&str>,
    notes: Option<&str>,
    evidence: Option<&str>,
    call_filename: &str,
) -> (Option<String>, String) {
    let party = responsible_party.map(str::to_lowercase);
    let text = [Some(description), responsible_party, notes, evidence, Some(call_filename)]
        .into_iter()
        .flatten()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("\n");
    (party, text)
}

/// A call's stored analysis with its action items.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAnalysis {
    pub title: Option<String>,
    pub sentiment_level: String,
    pub primary_category: Option<CategoryId>,
    pub classification: Option<serde_json::Value>,
    pub summary: Option<serde_json::Value>,
    pub template_analysis: Option<serde_json::Value>,
    pub action_items: Vec<ActionItem>,
}

/// A call's transcript: text, speaker turns, per-speaker statistics and the timed words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTranscript {
    /// Turns' text, one turn per line.
    pub full_text: String,
    /// Speaker turns in time order.
    pub turns: Vec<callscope_domain::Turn>,
    /// Who spoke, and how much.
    pub speakers: Vec<callscope_domain::SpeakerStats>,
    /// Recognised words with timing and speaker.
    pub words: Vec<callscope_domain::TimedWord>,
    /// The speech model that made it.
    pub speech_model: Option<String>,
    /// Personal data found, by type.
    pub pii_statistics: callscope_domain::PiiStatistics,
    /// Where the personal data was.
    pub pii_spans: Vec<callscope_domain::PiiSpan>,
}

/// A call as lists show it (decisions §4's call summary), plus when it last changed and where
/// its audio is.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct CallSummary {
    pub id: CallId,
    pub filename: String,
    pub language: callscope_domain::Language,
    pub size_bytes: i64,
    pub duration_s: Option<f64>,
    pub sentiment_level: String,
    /// The primary category's name.
    pub primary_category: Option<String>,
    pub action_items_count: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub title: Option<String>,
    /// Object-store key of the audio.
    pub storage_path: String,
}

/// What search indexes of a call: its text in three parts, its language and dates.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDocument {
    pub id: CallId,
    pub project_id: ProjectId,
    pub language: callscope_domain::Language,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The title, empty when there is none.
    pub title: String,
    /// The transcript.
    pub full_text: String,
    /// The summary's text (executive summary, key points, resolution, next steps), one per line.
    pub summary: String,
}

/// A stored call's audio, as the audio endpoints show it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAudio {
    /// Upload file name.
    pub filename: String,
    /// Media type.
    pub content_type: String,
    /// Bytes.
    pub size_bytes: i64,
    /// Length in seconds.
    pub duration_s: Option<f64>,
    /// Sample rate of the file.
    pub sample_rate: Option<i32>,
    /// Channels of the file.
    pub channels: Option<i32>,
    /// Codec short name.
    pub codec: Option<String>,
    /// SHA-256 of the bytes.
    pub sha256: String,
    /// Object-store key.
    pub storage_path: String,
}

/// Delivery statuses (decisions §9): waiting for its first attempt, delivered, waiting for a
/// retry, given up.
pub const DELIVERY_STATUSES: [&str; 4] = ["PENDING", "SUCCEEDED", "RETRYING", "FAILED"];

/// One event's delivery to one webhook, as the deliveries log shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookDelivery {
    pub id: WebhookDeliveryId,
    pub webhook_id: WebhookId,
    pub event_id: Uuid,
    pub event_type: String,
    /// One of [`DELIVERY_STATUSES`].
    pub status: String,
    pub attempts: i32,
    /// HTTP status of the last attempt, when it got one.
    pub response_code: Option<i32>,
    /// Why the last attempt failed, in words.
    pub error_message: Option<String>,
    pub last_attempt_at: Option<Timestamp>,
    /// When the next attempt is due (PENDING and RETRYING only).
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// A delivery a dispatcher holds, with what sending it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedDelivery {
    pub delivery: WebhookDelivery,
    /// Failed attempts since it was made or redelivered.
    pub retry_step: i32,
    pub url: String,
    /// The webhook's `whsec_…` secret.
    pub secret: String,
    pub project_id: ProjectId,
    /// When the event happened.
    pub event_created_at: Timestamp,
    /// The event's `data`.
    pub data: serde_json::Value,
}

/// What one attempt of a delivery came to.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryAttempt {
    /// SUCCEEDED, RETRYING or FAILED.
    pub status: &'static str,
    pub response_code: Option<i32>,
    pub error_message: Option<String>,
    /// When the attempt's outcome was known (stored as `lastAttemptAt`): the same reading of the
    /// clock that `next_attempt_at` is counted from, so the two lie exactly one delay apart.
    pub attempted_at: Timestamp,
    /// When to try again (RETRYING only).
    pub next_attempt_at: Option<Timestamp>,
    /// Failed attempts since it was made or redelivered, this one included.
    pub retry_step: i32,
}

/// Which database a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite file.
    Sqlite,
    /// PostgreSQL server.
    Postgres,
}

impl Backend {
    /// `sqlite` or `postgres`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }

    /// Picks the backend from a URL's scheme.
    ///
    /// # Errors
    /// [`StoreError::BadUrl`] for any other scheme.
    pub fn from_url(url: &str) -> StoreResult<Self> {
        let scheme = url.split(':').next().unwrap_or_default().to_ascii_lowercase();
        match scheme.as_str() {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" | "postgresql" => Ok(Backend::Postgres),
            _ => Err(StoreError::BadUrl(format!("{scheme:?}: expected sqlite://… or postgres://…"))),
        }
    }
}

/// How to reach the database.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// `sqlite://path/to/file.db` or `postgres://user@host/db`.
    pub url: String,
    /// Connection pool size.
    pub max_connections: u32,
}

/// Opens a store for the URL's backend. Does not migrate: call [`Store::migrate`].
///
/// # Errors
/// A bad URL, or a database that cannot be reached.
pub async fn connect(options: &StoreOptions, clock: Arc<dyn Clock>) -> StoreResult<Arc<dyn Store>> {
    Ok(match Backend::from_url(&options.url)? {
        Backend::Sqlite => Arc::new(sqlite::connect(options, clock).await?),
        Backend::Postgres => Arc::new(postgres::connect(options, clock).await?),
    })
}

/// Everything callscope keeps in its database. Each method is one transaction.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Which database this is.
    fn backend(&self) -> Backend;

    /// Applies pending migrations.
    async fn migrate(&self) -> StoreResult<()>;

    /// Answers when the database is reachable.
    async fn ping(&self) -> StoreResult<()>;

    /// Closes the pool, waiting for connections in use to come back.
    async fn close(&self);

    // --- organizations and keys (administration, not tenant-scoped) ---

    /// Creates an organization.
    async fn create_organization(&self, name: &str) -> StoreResult<Organization>;

    /// All organizations, oldest first.
    async fn list_organizations(&self) -> StoreResult<Vec<Organization>>;

    /// On an empty database only, creates organization `org_name` with one key; `None` when any
    /// organization already exists. Safe when several processes start at once.
    async fn bootstrap(&self, org_name: &str, key_name: &str, digest: &KeyDigest) -> StoreResult<Option<(Organization, ApiKey)>>;

    /// Stores a new key of `org`; `None` when there is no such organization.
    async fn create_api_key(&self, org: OrgId, name: &str, digest: &KeyDigest) -> StoreResult<Option<ApiKey>>;

    /// The organization's keys, oldest first (revoked ones too).
    async fn list_api_keys(&self, org: OrgId) -> StoreResult<Vec<ApiKey>>;

    /// Revokes a key; revoking twice keeps the first time. `None` when there is no such key.
    async fn revoke_api_key(&self, id: ApiKeyId) -> StoreResult<Option<ApiKey>>;

    /// The principal of a valid (known, not revoked) key.
    async fn authenticate(&self, digest: &KeyDigest) -> StoreResult<Option<Principal>>;

    /// The digests of every key not revoked, of every organization: what the rate limiter
    /// starts from to tell keys it may give budgets of their own.
    async fn active_key_digests(&self) -> StoreResult<Vec<KeyDigest>>;

    // --- projects ---

    /// Creates a project in `org`.
    async fn create_project(&self, org: OrgId, new: &NewProject) -> StoreResult<Project>;

    /// One project of `org`; `None` when it does not exist there.
    async fn get_project(&self, org: OrgId, id: ProjectId) -> StoreResult<Option<Project>>;

    /// A project by id alone, for workers, which act for whichever organization owns the job.
    async fn project_of_job(&self, id: ProjectId) -> StoreResult<Option<Project>>;

    /// The organization's projects, newest first.
    async fn list_projects(&self, org: OrgId, page: PageRequest) -> StoreResult<Page<Project>>;

    /// Applies a patch; `None` when the project does not exist in `org`.
    async fn update_project(&self, org: OrgId, id: ProjectId, patch: &ProjectPatch) -> StoreResult<Option<Project>>;

    // --- categories. Project-scoped methods take a project the caller has already found in its
    // organization, and look every nested id up within that project. ---

    /// All categories of the project (unordered).
    async fn list_categories(&self, project: ProjectId) -> StoreResult<Vec<Category>>;

    /// Calls per primary category.
    async fn category_call_counts(&self, project: ProjectId) -> StoreResult<HashMap<CategoryId, u64>>;

    /// Creates a category, shifting the siblings at and after its position.
    async fn create_category(&self, project: ProjectId, new: &NewCategory) -> StoreResult<Category>;

    /// Renames or re-describes a category.
    async fn update_category(&self, project: ProjectId, id: CategoryId, patch: &CategoryPatch) -> StoreResult<Category>;

    /// Moves a category to a new parent and position, renumbering both sibling lists.
    async fn move_category(&self, project: ProjectId, id: CategoryId, to: &CategoryMove) -> StoreResult<Category>;

    /// Deletes a category and its subtree; their calls become uncategorized.
    async fn delete_category(&self, project: ProjectId, id: CategoryId) -> StoreResult<()>;

    /// Deletes the project's whole taxonomy.
    async fn clear_categories(&self, project: ProjectId) -> StoreResult<()>;

    // --- speaker presets ---

    /// The project's presets, by name.
    async fn list_presets(&self, project: ProjectId) -> StoreResult<Vec<SpeakerPreset>>;

    /// Creates a preset (not default). `input` has both name and speakers.
    async fn create_preset(&self, project: ProjectId, input: &PresetInput) -> StoreResult<SpeakerPreset>;

    /// Changes the name and/or speakers of a preset.
    async fn update_preset(&self, project: ProjectId, id: SpeakerPresetId, input: &PresetInput) -> StoreResult<SpeakerPreset>;

    /// Makes the preset the project's only default.
    async fn set_default_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<SpeakerPreset>;

    /// Deletes a preset.
    async fn delete_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<()>;

    // --- analysis templates ---

    /// The project's templates, newest first.
    async fn list_templates(&self, project: ProjectId) -> StoreResult<Vec<AnalysisTemplate>>;

    /// One template.
    async fn get_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<AnalysisTemplate>;

    /// Creates a template; when it is active, the others are deactivated.
    async fn create_template(&self, project: ProjectId, user: ApiKeyId, input: &TemplateInput) -> StoreResult<AnalysisTemplate>;

    /// Replaces a template's content (`is_active: None` keeps the state).
    async fn replace_template(&self, project: ProjectId, id: TemplateId, input: &TemplateInput) -> StoreResult<AnalysisTemplate>;

    /// Activates (deactivating the others) or deactivates a template.
    async fn set_template_active(&self, project: ProjectId, id: TemplateId, active: bool) -> StoreResult<AnalysisTemplate>;

    /// Deletes a template.
    async fn delete_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<()>;

    // --- webhooks ---

    /// Registers a webhook with its signing secret.
    async fn create_webhook(&self, project: ProjectId, url: &str, events: &[String], secret: &str) -> StoreResult<Webhook>;

    /// The project's webhooks, oldest first.
    async fn list_webhooks(&self, project: ProjectId) -> StoreResult<Vec<Webhook>>;

    /// Pauses an active webhook or resumes a paused one.
    async fn toggle_webhook(&self, project: ProjectId, id: WebhookId) -> StoreResult<Webhook>;

    /// Deletes a webhook.
    async fn delete_webhook(&self, project: ProjectId, id: WebhookId) -> StoreResult<()>;

    /// A webhook's deliveries, most recent first, at most `limit`.
    async fn list_deliveries(&self, project: ProjectId, webhook: WebhookId, limit: u32) -> StoreResult<Vec<WebhookDelivery>>;

    /// Writes a `webhook.test` event with `data` and one delivery of it to this webhook only,
    /// whether the webhook is paused or subscribed or not.
    async fn create_test_delivery(&self, project: ProjectId, webhook: WebhookId, data: &serde_json::Value) -> StoreResult<WebhookDelivery>;

    /// Sends a delivery again: back to PENDING, due now, at the start of the retry schedule
    /// (its attempts keep counting).
    async fn redeliver(&self, project: ProjectId, webhook: WebhookId, id: WebhookDeliveryId) -> StoreResult<WebhookDelivery>;

    /// Takes up to `limit` due deliveries (PENDING or RETRYING, due, not leased by a live
    /// dispatcher) for `worker` until the lease runs out, oldest due first.
    async fn claim_deliveries(&self, worker: &str, lease: std::time::Duration, limit: u32) -> StoreResult<Vec<ClaimedDelivery>>;

    /// Records an attempt of a delivery `worker` holds; false when it no longer holds it.
    async fn finish_delivery(&self, id: WebhookDeliveryId, worker: &str, attempt: &DeliveryAttempt) -> StoreResult<bool>;

    // --- upload jobs ---

    /// Queues an accepted upload (status PENDING, runnable now).
    async fn create_job(&self, project: ProjectId, new: &NewJob) -> StoreResult<Job>;

    /// One job of the project.
    async fn get_job(&self, project: ProjectId, id: JobId) -> StoreResult<Job>;

    /// The oldest job of the project with these bytes that has not failed.
    async fn find_duplicate_job(&self, project: ProjectId, sha256: &str) -> StoreResult<Option<Job>>;

    // --- the job queue. Every change below applies only while `worker` holds the job's lease,
    // and says whether it did: a worker whose lease expired and was taken over changes nothing. ---

    /// Takes the next runnable job (pending and due, or processing with an expired lease) for
    /// `lease`, counting an attempt.
    async fn claim_job(&self, worker: &str, lease: std::time::Duration) -> StoreResult<Option<Job>>;

    /// Extends the lease and records the stage and progress.
    async fn heartbeat_job(&self, id: JobId, worker: &str, lease: std::time::Duration, stage: JobStage, progress: f64) -> StoreResult<bool>;

    /// Puts the job back in the queue, runnable at `run_at`, keeping the error for people.
    async fn retry_job(&self, id: JobId, worker: &str, error: &str, run_at: Timestamp) -> StoreResult<bool>;

    /// Fails the job for good and writes `event` to the outbox, in one transaction.
    async fn fail_job(&self, id: JobId, worker: &str, error: &str, event: &NewEvent) -> StoreResult<bool>;

    /// Creates the call, completes the job and writes `events` to the outbox, in one transaction.
    async fn complete_job(&self, id: JobId, worker: &str, call: &NewCall, events: &[NewEvent]) -> StoreResult<bool>;

    /// Queues a re-analysis of the project's call (a `REANALYZE` job with the call's file facts,
    /// its language and its date), with `template` or else the template active when it runs.
    async fn create_reanalysis_job(&self, project: ProjectId, call: CallId, template: Option<TemplateId>) -> StoreResult<Job>;

    /// Completes a re-analysis: the call's title, sentiment, summary and template answers are
    /// replaced, and its classification too unless it was chosen by hand; its action items are
    /// replaced (an `action_item.deleted` event for each old one); `events` go to the outbox. One
    /// transaction.
    async fn complete_reanalysis(&self, id: JobId, worker: &str, analysis: &CallAnalysisRecord, events: &[NewEvent]) -> StoreResult<bool>;

    /// Sets (or with `None` clears) the call's category by hand: `classification` replaces the
    /// stored one, the call is marked so that re-analysis keeps it, and `call.category_changed`
    /// goes to the outbox. Returns the previous primary category.
    async fn set_call_category(
        &self,
        project: ProjectId,
        call: CallId,
        category: Option<CategoryId>,
        classification: Option<&serde_json::Value>,
    ) -> StoreResult<Option<CategoryId>>;

    /// Creation time, sentiment level and sentiment confidence of the project's calls created
    /// within the inclusive bounds given (for the sentiment dashboard).
    async fn call_sentiments(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, String, Option<f64>)>>;

    /// The project's calls, newest first, created within the inclusive bounds given.
    async fn list_calls(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        page: PageRequest,
    ) -> StoreResult<Page<CallSummary>>;

    /// Erases a call with its transcript and action items, and the jobs that made or re-analysed
    /// it (their file names are personal data too). The audio is the caller's to delete, first.
    async fn delete_call(&self, project: ProjectId, call: CallId) -> StoreResult<()>;

    /// A call of the project as lists show it.
    async fn get_call_summary(&self, project: ProjectId, call: CallId) -> StoreResult<CallSummary>;

    /// The audio facts of a call of the project.
    async fn get_call_audio(&self, project: ProjectId, call: CallId) -> StoreResult<CallAudio>;

    /// The transcript of a call of the project.
    async fn get_call_transcript(&self, project: ProjectId, call: CallId) -> StoreResult<CallTranscript>;

    /// A call's analysis and action items; `NotFound` when the call is not the project's.
    async fn get_call_analysis(&self, project: ProjectId, call: CallId) -> StoreResult<StoredAnalysis>;

    // --- what the search index reads (not tenant-scoped: the index holds every project) ---

    /// Calls changed after `after` (by `updated_at`, then id), oldest change first, at most
    /// `limit`: the keyset the search index pages through.
    async fn changed_calls(&self, after: (Timestamp, CallId), limit: u32) -> StoreResult<Vec<(CallId, Timestamp)>>;

    /// Calls erased at or after `since`, with when.
    async fn deleted_calls(&self, since: Timestamp) -> StoreResult<Vec<(CallId, Timestamp)>>;

    /// The searchable text of the calls named (those that exist; of `project` only, when given).
    async fn search_documents(&self, project: Option<ProjectId>, ids: &[CallId]) -> StoreResult<Vec<SearchDocument>>;

    /// The project's calls named, as lists show them (those that exist, in no order).
    async fn call_summaries(&self, project: ProjectId, ids: &[CallId]) -> StoreResult<Vec<CallSummary>>;

    // --- action items ---

    /// A page of the project's action items with the counters (decisions §5), `isOverdue`
    /// judged at `now`.
    async fn list_action_items(&self, project: ProjectId, query: &ActionItemQuery, now: Timestamp) -> StoreResult<ActionItemList>;

    /// One action item of the project.
    async fn get_action_item(&self, project: ProjectId, id: callscope_domain::ActionItemId) -> StoreResult<ActionItem>;

    /// Applies a patch and writes `action_item.updated` to the outbox, in one transaction.
    async fn update_action_item(&self, project: ProjectId, id: callscope_domain::ActionItemId, patch: &ActionItemPatch) -> StoreResult<ActionItem>;

    /// Deletes an action item and writes `action_item.deleted` to the outbox, in one transaction.
    async fn delete_action_item(&self, project: ProjectId, id: callscope_domain::ActionItemId) -> StoreResult<()>;

    /// The distinct non-empty responsible parties of the project's items, sorted.
    async fn responsible_parties(&self, project: ProjectId) -> StoreResult<Vec<String>>;

    /// PENDING and IN_PROGRESS items with `callDate` within the inclusive bounds: overdue at
    /// `now` first, then by `dueAt` (none last), then by `callDate`.
    async fn pending_action_items(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        now: Timestamp,
    ) -> StoreResult<Vec<ActionItem>>;

    /// The outbox, oldest first (for the dispatcher and tests).
    async fn list_events(&self, project: ProjectId) -> StoreResult<Vec<(String, serde_json::Value)>>;
}

fn parse_stored<T: FromStr>(column: &str, value: &str) -> StoreResult<T> {
    value.parse().map_err(|_| StoreError::Corrupt(format!("{column} = {value:?}")))
}

#[cfg(feature = "testing")]
pub mod testing;
