//! What the search index reads to follow the database. Not tenant-scoped: the index holds every
//! project.

use async_trait::async_trait;
use callscope_domain::{CallId, ProjectId, Timestamp};

use crate::StoreResult;

/// What the search index reads. The SQL is in `sql/search_sync.rs`.
#[async_trait]
pub trait SearchSyncStore: Send + Sync {
    /// Calls changed after `after` (by `updated_at`, then id), oldest change first, at most
    /// `limit`: the keyset the search index pages through.
    async fn changed_calls(&self, after: (Timestamp, CallId), limit: u32) -> StoreResult<Vec<(CallId, Timestamp)>>;

    /// Calls erased at or after `since`, with when, and how far the log of erasures was pruned.
    async fn deleted_calls(&self, since: Timestamp) -> StoreResult<Erasures>;

    /// Deletes the erasures recorded before `before` (not tenant-scoped; housekeeping runs
    /// it), and records the newest of them as the log's horizon. Returns how many went.
    async fn prune_deleted_calls(&self, before: Timestamp) -> StoreResult<u64>;

    /// The searchable text of the calls named (those that exist; of `project` only, when given).
    async fn search_documents(&self, project: Option<ProjectId>, ids: &[CallId]) -> StoreResult<Vec<SearchDocument>>;
}

/// What the log of erasures holds from a time on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Erasures {
    /// The calls erased, with when, oldest first.
    pub calls: Vec<(CallId, Timestamp)>,
    /// The newest erasure ever pruned from the log (read after `calls`). An index that has not
    /// applied every erasure up to it has missed some, and must be built again.
    pub pruned_through: Option<Timestamp>,
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
