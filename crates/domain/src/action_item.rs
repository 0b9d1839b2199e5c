//! Action items: what someone on a call committed to or was asked to do, with its status and
//! priority as the board tracks them.

use serde::{Deserialize, Serialize};

use crate::{ActionItemId, CallId, ProjectId, Timestamp};

/// Where an item is in its life; the declaration order is the list's sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActionItemStatus {
    Pending,
    InProgress,
    Done,
    Cancelled,
}

text_enum!(ActionItemStatus { Pending = "PENDING", InProgress = "IN_PROGRESS", Done = "DONE", Cancelled = "CANCELLED" });

impl ActionItemStatus {
    /// Pending or in progress: still to be done, and so able to be overdue.
    pub fn is_open(self) -> bool {
        matches!(self, Self::Pending | Self::InProgress)
    }
}

/// How urgent an item is; the declaration order is the list's sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActionItemPriority {
    Low,
    Medium,
    High,
}

text_enum!(ActionItemPriority { Low = "LOW", Medium = "MEDIUM", High = "HIGH" });

/// An action item found by analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct NewActionItem {
    pub id: ActionItemId,
    pub description: String,
    pub responsible_party: Option<String>,
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<Timestamp>,
    pub evidence: Option<String>,
    pub priority: ActionItemPriority,
}

/// An action item as stored and as the rest of the code sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionItem {
    pub id: ActionItemId,
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
    pub status: ActionItemStatus,
    pub priority: ActionItemPriority,
    pub notes: Option<String>,
    pub completed_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The most a merge leaves in an item's notes (what the API accepts for notes).
pub const MERGED_NOTES_MAX: usize = 2_000;

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
            status: ActionItemStatus::Pending,
            priority: new.priority,
            notes: None,
            completed_at: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// This item with `other` (a duplicate of it) merged in: it keeps its own words and fields,
    /// takes the owner and deadline it lacks and the higher priority, and notes what `other`
    /// said, so nothing a person wrote is lost.
    pub fn merged_with(&self, other: &ActionItem, now: Timestamp) -> ActionItem {
        let mut merged = self.clone();
        if merged.responsible_party.is_none() {
            merged.responsible_party.clone_from(&other.responsible_party);
        }
        if merged.due_at.is_none() {
            merged.due_at = other.due_at;
            merged.deadline_mentioned.clone_from(&other.deadline_mentioned);
        }
        merged.priority = merged.priority.max(other.priority);
        let said = match &other.notes {
            Some(notes) => format!("Merged: {} ({notes})", other.description),
            None => format!("Merged: {}", other.description),
        };
        let notes = match &merged.notes {
            Some(notes) => format!("{notes}; {said}"),
            None => said,
        };
        // Within what an item's notes may hold.
        merged.notes = Some(notes.chars().take(MERGED_NOTES_MAX).collect());
        merged.updated_at = now;
        merged
    }

    /// Open (pending or in progress) with its due time passed at `now`.
    pub fn is_overdue(&self, now: Timestamp) -> bool {
        self.due_at.is_some_and(|due| due < now) && self.status.is_open()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ActionItemView;

    /// An item with every field set, for tests of its views.
    pub(crate) fn item() -> ActionItem {
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&chrono::Utc);
        ActionItem {
            id: ActionItemId::new(),
            project_id: ProjectId::new(),
            call_id: CallId::new(),
            transcript_index: 2,
            call_date: at("2026-11-20T09:30:00Z"),
            call_filename: "call.wav".into(),
            description: "Send the contract".into(),
            responsible_party: Some("Agent".into()),
            deadline_mentioned: Some("by Friday".into()),
            due_at: Some(at("2026-11-21T23:59:59.999Z")),
            evidence: Some("I'll send it by Friday".into()),
            status: ActionItemStatus::InProgress,
            priority: ActionItemPriority::High,
            notes: None,
            completed_at: None,
            created_at: at("2026-11-20T09:31:00.125Z"),
            updated_at: at("2026-11-20T09:32:00Z"),
        }
    }

    #[test]
    fn the_view_is_the_json_the_api_has_always_served() {
        // The hand-written JSON the view replaced, field by field: clients see the same bytes.
        let item = item();
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-25T00:00:00Z").unwrap().with_timezone(&chrono::Utc);
        let stamp = |t: Timestamp| crate::rfc3339_millis_text(&t);
        let before = serde_json::json!({
            "id": item.id, "projectId": item.project_id, "transcriptId": item.call_id, "transcriptIndex": item.transcript_index,
            "callDate": stamp(item.call_date), "callFilename": item.call_filename, "description": item.description,
            "responsibleParty": item.responsible_party, "deadlineMentioned": item.deadline_mentioned, "dueAt": item.due_at.map(stamp),
            "evidence": item.evidence, "status": item.status, "priority": item.priority, "notes": item.notes,
            "completedAt": item.completed_at.map(stamp), "createdAt": stamp(item.created_at), "updatedAt": stamp(item.updated_at),
            "isOverdue": item.is_overdue(now),
        });
        let view = ActionItemView::new(&item, now);
        assert_eq!(serde_json::to_string(&view).unwrap(), serde_json::to_string(&before).unwrap());
        assert!(view.is_overdue);
    }

    #[test]
    fn values_read_back_and_sort_as_the_list_does() {
        for status in ActionItemStatus::ALL {
            assert_eq!(status.as_str().parse::<ActionItemStatus>(), Ok(*status));
        }
        assert!(ActionItemStatus::Pending < ActionItemStatus::InProgress && ActionItemStatus::Done < ActionItemStatus::Cancelled);
        assert!(ActionItemPriority::Low < ActionItemPriority::Medium && ActionItemPriority::Medium < ActionItemPriority::High);
        assert!("in_progress".parse::<ActionItemStatus>().is_err(), "the text is exact; callers upper-case what people type");
        assert_eq!(ActionItemStatus::ALL.iter().filter(|s| s.is_open()).count(), 2);
    }
}
