//! The action items of a project's calls: the board's list with its counters, filters and
//! sorts, and edits and deletes, each written with its outbox event.

use async_trait::async_trait;
use callscope_domain::{ActionItem, ActionItemPriority, ActionItemStatus, CallId, ProjectId, Timestamp};

use crate::StoreResult;

/// Action items. The SQL is in `sql/action_items.rs`.
#[async_trait]
pub trait ActionItemStore: Send + Sync {
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

    /// Adds an item a person names to a call: after its other items, PENDING, kept by
    /// re-analysis; `action_item.created` goes to the outbox in the same transaction.
    async fn add_action_item(&self, project: ProjectId, call: CallId, item: &callscope_domain::NewActionItem) -> StoreResult<ActionItem>;

    /// Merges item `from` into item `into` of the same call: `into` keeps its words and takes
    /// what it lacks from `from` (owner, deadline), the higher priority, and `from`'s description
    /// (and notes) in its notes; `from` goes. `action_item.updated` and `action_item.deleted` go
    /// to the outbox in the same transaction.
    async fn merge_action_items(
        &self,
        project: ProjectId,
        from: callscope_domain::ActionItemId,
        into: callscope_domain::ActionItemId,
    ) -> StoreResult<ActionItem>;

    /// Prunes the action item change log (not tenant-scoped; housekeeping runs it): notes, by
    /// the store's clock, the rows whose item has gone since the last round, and deletes those
    /// noted before `before`. Each project's log then says how far it was pruned, and an index
    /// holding an older version reads the project again. Returns how many rows went.
    async fn prune_item_changes(&self, before: Timestamp) -> StoreResult<u64>;
}

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
    pub statuses: Vec<ActionItemStatus>,
    /// Any of these priorities (none: all).
    pub priorities: Vec<ActionItemPriority>,
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
    pub status: Option<ActionItemStatus>,
    pub priority: Option<ActionItemPriority>,
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
        if let Some(status) = self.status {
            if status != item.status {
                next.completed_at = (status == ActionItemStatus::Done).then_some(now);
            }
            next.status = status;
        }
        if let Some(priority) = self.priority {
            next.priority = priority;
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
