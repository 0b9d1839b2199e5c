//! Action items: what someone on a call committed to or was asked to do, with its status and
//! priority as the board tracks them.

use serde::{Deserialize, Serialize};

use crate::{ActionItemId, CallId, ProjectId, Timestamp};

/// Where an item is in its life; the declaration order is the list's sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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

    /// Open (pending or in progress) with its due time passed at `now`.
    pub fn is_overdue(&self, now: Timestamp) -> bool {
        self.due_at.is_some_and(|due| due < now) && self.status.is_open()
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
            "isOverdue": self.is_overdue(now),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
