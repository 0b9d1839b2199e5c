//! Webhooks, the outbox of events, and the deliveries made from it for the dispatcher.

use async_trait::async_trait;
use callscope_domain::{DeliveryStatus, ProjectId, Timestamp, Webhook, WebhookDelivery, WebhookDeliveryId, WebhookId};

use crate::StoreResult;

/// Webhooks, the event outbox and deliveries. The SQL is in `sql/webhooks.rs`.
#[async_trait]
pub trait WebhookStore: Send + Sync {
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

    /// Takes due deliveries (PENDING or RETRYING, due, not leased by a live dispatcher) for
    /// `worker` until the lease runs out, oldest due first, within `limits`: a webhook that has
    /// its fill in flight already is passed over, so that its backlog does not stand before
    /// other webhooks' deliveries.
    async fn claim_deliveries(&self, worker: &str, lease: std::time::Duration, limits: &ClaimLimits) -> StoreResult<Vec<ClaimedDelivery>>;

    /// Records an attempt of a delivery `worker` holds; false when it no longer holds it, and then
    /// the attempt is only counted, its outcome left out.
    async fn finish_delivery(&self, id: WebhookDeliveryId, worker: &str, attempt: &DeliveryAttempt) -> StoreResult<bool>;

    /// The outbox, oldest first (for the dispatcher and tests).
    async fn list_events(&self, project: ProjectId) -> StoreResult<Vec<(String, serde_json::Value)>>;

    /// Deletes the events written before `before`, with their deliveries (sent, failed or never
    /// sent); returns how many events went. What the retention setting keeps is what is left.
    async fn prune_events(&self, before: Timestamp) -> StoreResult<u64>;
}

/// How much one claim of deliveries may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimLimits {
    /// Deliveries in all.
    pub total: u32,
    /// Deliveries of one webhook in flight at once, those the claimant holds already included.
    pub per_webhook: u32,
    /// What the claimant holds already, per webhook.
    pub in_flight: std::collections::HashMap<WebhookId, u32>,
}

impl ClaimLimits {
    /// Up to `total` deliveries, whatever their webhook.
    pub fn total(total: u32) -> Self {
        Self { total, per_webhook: u32::MAX, in_flight: std::collections::HashMap::new() }
    }

    /// How many more of `webhook`'s deliveries may be taken.
    pub fn allowance(&self, webhook: WebhookId) -> u32 {
        self.per_webhook.saturating_sub(self.in_flight.get(&webhook).copied().unwrap_or(0))
    }
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
    /// Succeeded, retrying or failed.
    pub status: DeliveryStatus,
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
