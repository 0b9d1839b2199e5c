//! Every event callscope emits (decisions §9) and its payload. An event is built by the code that
//! makes the change and written to the outbox by the store in the change's transaction; the
//! webhook envelope (`type`, `data`) is made from [`Event::kind`] and [`Event::data`].

use serde::Serialize;
use serde_json::{json, Value};

use crate::{ActionItemId, ActionItemView, CallId, CallListing, CategoryId, Job, JobId, RuleMatch};

/// A change other systems hear about through webhooks.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A call was transcribed and analysed: the call as the calls list shows it, and its job.
    CallCompleted(CallCompleted),
    /// A job failed for good: the job as `GET /jobs/{id}` shows it.
    CallFailed(Box<Job>),
    /// A call's primary category changed, by hand or because its category was deleted.
    CallCategoryChanged(CategoryChange),
    /// An analysis made an action item: the item as the API shows it.
    ActionItemCreated(Box<ActionItemView>),
    /// Someone edited an action item: the item as the API shows it after the edit.
    ActionItemUpdated(Box<ActionItemView>),
    /// An action item was deleted, by hand or because a re-analysis replaced its call's items.
    ActionItemDeleted(ActionItemId),
    /// `POST /webhooks/{id}/test`: the data it was sent with.
    WebhookTest(Value),
    /// A call newly matched a rule (beyond the spec): on processing, re-analysis, or a rule
    /// made or changed.
    CallRuleMatched(RuleMatched),
}

/// `call.rule_matched`: the call, and the rule it matched with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleMatched {
    /// The call.
    pub call_id: CallId,
    /// The rule, its label and the evidence.
    #[serde(flatten)]
    pub matched: RuleMatch,
}

/// `call.completed`'s data: the call's summary as `GET /calls` lists it, plus the job.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallCompleted {
    /// The call as the list shows it.
    #[serde(flatten)]
    pub call: CallListing,
    pub job_id: JobId,
}

/// `call.category_changed`'s data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryChange {
    pub call_id: CallId,
    pub previous_category_id: Option<CategoryId>,
    pub category_id: Option<CategoryId>,
}

impl Event {
    /// The event's name, as webhooks subscribe to it and the envelope's `type` says.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::CallCompleted(_) => "call.completed",
            Self::CallFailed(_) => "call.failed",
            Self::CallCategoryChanged(_) => "call.category_changed",
            Self::ActionItemCreated(_) => "action_item.created",
            Self::ActionItemUpdated(_) => "action_item.updated",
            Self::ActionItemDeleted(_) => "action_item.deleted",
            Self::WebhookTest(_) => "webhook.test",
            Self::CallRuleMatched(_) => "call.rule_matched",
        }
    }

    /// The envelope's `data`.
    pub fn data(&self) -> Value {
        let value = match self {
            Self::CallCompleted(call) => serde_json::to_value(call),
            Self::CallFailed(job) => serde_json::to_value(job),
            Self::CallCategoryChanged(change) => serde_json::to_value(change),
            Self::ActionItemCreated(item) | Self::ActionItemUpdated(item) => serde_json::to_value(item),
            Self::WebhookTest(data) => Ok(data.clone()),
            Self::ActionItemDeleted(id) => Ok(json!({ "id": id })),
            Self::CallRuleMatched(matched) => serde_json::to_value(matched),
        };
        // Every payload is plain data (strings, numbers, ids, maps with string keys), which
        // serde_json always serialises.
        value.unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EVENT_TYPES;

    #[test]
    fn every_kind_but_the_test_is_a_subscribable_event_type() {
        let events = [
            Event::CallCategoryChanged(CategoryChange { call_id: CallId::new(), previous_category_id: None, category_id: None }),
            Event::ActionItemCreated(Box::new(ActionItemView::new(&crate::action_item::tests::item(), chrono::Utc::now()))),
            Event::ActionItemUpdated(Box::new(ActionItemView::new(&crate::action_item::tests::item(), chrono::Utc::now()))),
            Event::ActionItemDeleted(ActionItemId::new()),
            Event::CallRuleMatched(RuleMatched {
                call_id: CallId::new(),
                matched: RuleMatch { rule_id: crate::RuleId::new(), label: "Escalation".into(), evidence: Vec::new() },
            }),
        ];
        for event in events {
            assert!(EVENT_TYPES.contains(&event.kind()), "{}", event.kind());
        }
    }

    #[test]
    fn category_change_data_names_the_call_and_both_categories() {
        let (call, category) = (CallId::new(), CategoryId::new());
        let data = Event::CallCategoryChanged(CategoryChange { call_id: call, previous_category_id: Some(category), category_id: None }).data();
        assert_eq!(data, json!({ "callId": call, "previousCategoryId": category, "categoryId": null }));
        assert_eq!(Event::ActionItemDeleted(ActionItemId(uuid::Uuid::nil())).data(), json!({ "id": "00000000-0000-0000-0000-000000000000" }));
    }
}
