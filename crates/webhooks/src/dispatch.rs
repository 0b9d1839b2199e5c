//! The dispatcher: claims due deliveries, sends them, records every attempt and schedules the
//! next. Everything it knows is in the database, so any number of dispatchers in any number of
//! processes share the work, and one that dies leaves its deliveries to the others once its
//! lease runs out.
//!
//! It sends continuously: a slot that frees is filled at once, so a slow attempt holds up only
//! itself, and each endpoint (webhook) has at most `per_endpoint` attempts in flight, so one
//! organization's dead endpoint, its attempts each waiting out the time-out, takes a few slots
//! and never the dispatcher.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use callscope_domain::{Clock, DeliveryStatus, WebhookDeliveryId, WebhookId};
use callscope_store::{ClaimLimits, ClaimedDelivery, DeliveryAttempt, Store, StoreResult};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::send::{Outcome, Sender};
use crate::sign::{envelope, sign};

/// Waits before each retry: the n-th failed attempt is followed by the n-th delay; after the
/// last one the delivery has FAILED.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(pub Vec<Duration>);

/// A schedule that does not read as delays.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("retry delay {0:?} is not a number with a unit (ms, s, m, h), like 5s or 30m")]
pub struct ScheduleError(pub String);

impl Default for RetrySchedule {
    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h (decisions §9).
    fn default() -> Self {
        Self([5, 300, 1_800, 7_200, 18_000, 36_000].into_iter().map(Duration::from_secs).collect())
    }
}

impl RetrySchedule {
    /// Reads `"5s,5m,30m,2h,5h,10h"` (an empty text: no retries).
    ///
    /// # Errors
    /// The first delay that is not a number with a unit.
    pub fn parse(text: &str) -> Result<Self, ScheduleError> {
        let mut delays = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let split = part.find(|c: char| !c.is_ascii_digit()).ok_or_else(|| ScheduleError(part.into()))?;
            let (number, unit) = part.split_at(split);
            let n: u64 = number.parse().map_err(|_| ScheduleError(part.into()))?;
            let delay = match unit.trim() {
                "ms" => Duration::from_millis(n),
                "s" => Duration::from_secs(n),
                "m" | "min" => Duration::from_secs(n * 60),
                "h" => Duration::from_secs(n * 3_600),
                _ => return Err(ScheduleError(part.into())),
            };
            delays.push(delay);
        }
        Ok(Self(delays))
    }

    /// The wait after failed attempt number `failed` (from 1), or none: give up.
    pub fn after(&self, failed: usize) -> Option<Duration> {
        failed.checked_sub(1).and_then(|i| self.0.get(i)).copied()
    }
}

/// How a dispatcher works.
#[derive(Debug, Clone)]
pub struct DispatcherSettings {
    /// Waits between attempts.
    pub retries: RetrySchedule,
    /// How long a dispatcher looks for due deliveries when it found none.
    pub poll_interval: Duration,
    /// Attempts in flight at once.
    pub batch: u32,
    /// Attempts in flight at once to one endpoint (webhook).
    pub per_endpoint: u32,
    /// How long a claim holds; longer than an attempt can take.
    pub lease: Duration,
}

impl Default for DispatcherSettings {
    fn default() -> Self {
        Self {
            retries: RetrySchedule::default(),
            poll_interval: Duration::from_millis(500),
            batch: 16,
            per_endpoint: 4,
            lease: Duration::from_secs(60),
        }
    }
}

/// Sends the deliveries the store holds.
pub struct Dispatcher {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    sender: Arc<Sender>,
    settings: DispatcherSettings,
    id: String,
}

impl Dispatcher {
    /// A dispatcher with a fresh identity for its leases.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, sender: Arc<Sender>, settings: DispatcherSettings) -> Self {
        let id = format!("dispatcher-{}", uuid::Uuid::now_v7().simple());
        Self { store, clock, sender, settings, id }
    }

    /// Sends deliveries until `stop` turns true: whenever a slot is free it claims what is
    /// due (within the per-endpoint cap) and starts it, and records each attempt as it ends.
    /// Attempts under way when it stops are finished and recorded.
    pub async fn run(self, mut stop: watch::Receiver<bool>) {
        tracing::info!(dispatcher = %self.id, "webhook dispatcher running");
        let mut in_flight = InFlight::default();
        while !*stop.borrow() {
            let started = if in_flight.len() < self.settings.batch as usize {
                match self.claim(&in_flight).await {
                    Ok(claimed) => {
                        let n = claimed.len();
                        claimed.into_iter().for_each(|d| self.start(&mut in_flight, d));
                        n
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "webhook dispatcher cannot read its deliveries; trying again");
                        0
                    }
                }
            } else {
                0
            };
            if started > 0 {
                continue; // more may be due, and there may be room for them
            }
            tokio::select! {
                Some(done) = in_flight.attempts.join_next_with_id(), if !in_flight.attempts.is_empty() => self.finish(&mut in_flight, done).await,
                () = tokio::time::sleep(self.settings.poll_interval) => {}
                _ = stop.changed() => {}
            }
        }
        while let Some(done) = in_flight.attempts.join_next_with_id().await {
            self.finish(&mut in_flight, done).await;
        }
        tracing::info!(dispatcher = %self.id, "webhook dispatcher stopped");
    }

    /// One round: claims the due deliveries (up to a batch, and the per-endpoint cap), sends
    /// them at once and records each attempt. Returns how many it attempted.
    ///
    /// # Errors
    /// When the store cannot be read; a failed attempt is recorded, not returned.
    pub async fn run_once(&self) -> StoreResult<usize> {
        let mut in_flight = InFlight::default();
        let claimed = self.claim(&in_flight).await?;
        let count = claimed.len();
        claimed.into_iter().for_each(|d| self.start(&mut in_flight, d));
        while let Some(done) = in_flight.attempts.join_next_with_id().await {
            self.finish(&mut in_flight, done).await;
        }
        Ok(count)
    }

    /// What is due and fits beside what is in flight.
    async fn claim(&self, in_flight: &InFlight) -> StoreResult<Vec<ClaimedDelivery>> {
        let limits = ClaimLimits {
            total: self.settings.batch.saturating_sub(u32::try_from(in_flight.len()).unwrap_or(u32::MAX)),
            per_webhook: self.settings.per_endpoint.max(1),
            in_flight: in_flight.per_webhook.clone(),
        };
        if limits.total == 0 {
            return Ok(Vec::new());
        }
        self.store.claim_deliveries(&self.id, self.settings.lease, &limits).await
    }

    fn start(&self, in_flight: &mut InFlight, delivery: ClaimedDelivery) {
        let webhook = delivery.delivery.webhook_id;
        *in_flight.per_webhook.entry(webhook).or_insert(0) += 1;
        let (sender, clock) = (self.sender.clone(), self.clock.clone());
        let task = in_flight.attempts.spawn(async move { attempt(&sender, clock.as_ref(), delivery).await });
        in_flight.webhook_of.insert(task.id(), webhook);
    }

    /// Records an attempt that ended and frees its slot, whatever ended it (an attempt that
    /// panicked frees its slot too; its delivery is sent again once its lease runs out).
    async fn finish(&self, in_flight: &mut InFlight, done: Result<(tokio::task::Id, AttemptEnd), tokio::task::JoinError>) {
        let task = match &done {
            Ok((task, _)) => *task,
            Err(error) => error.id(),
        };
        if let Some(webhook) = in_flight.webhook_of.remove(&task) {
            if let Some(count) = in_flight.per_webhook.get_mut(&webhook) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    in_flight.per_webhook.remove(&webhook);
                }
            }
        }
        let Ok((_, (id, outcome, retry_step))) = done else {
            tracing::error!("a webhook attempt stopped on an internal error; it will be made again when its lease runs out");
            return;
        };
        let record = self.record(outcome, retry_step);
        match self.store.finish_delivery(id, &self.id, &record).await {
            Ok(true) => tracing::debug!(delivery = %id, status = record.status.as_str(), "webhook attempt recorded"),
            Ok(false) => tracing::warn!(delivery = %id, "webhook delivery was taken over before its attempt was recorded"),
            Err(e) => tracing::warn!(delivery = %id, error = %e, "cannot record a webhook attempt; it will be made again"),
        }
    }

    fn record(&self, outcome: Outcome, retry_step: i32) -> DeliveryAttempt {
        let now = self.clock.now();
        match outcome {
            Outcome::Delivered { status } => DeliveryAttempt {
                status: DeliveryStatus::Succeeded,
                response_code: Some(i32::from(status)),
                error_message: None,
                attempted_at: now,
                next_attempt_at: None,
                retry_step,
            },
            Outcome::Failed { status, message, permanent } => {
                let failed = retry_step.saturating_add(1);
                let wait = if permanent { None } else { self.settings.retries.after(usize::try_from(failed).unwrap_or(usize::MAX)) };
                let next = wait.map(|w| now + chrono::TimeDelta::from_std(w).unwrap_or(chrono::TimeDelta::MAX));
                DeliveryAttempt {
                    status: if next.is_some() { DeliveryStatus::Retrying } else { DeliveryStatus::Failed },
                    response_code: status.map(i32::from),
                    error_message: Some(message),
                    attempted_at: now,
                    next_attempt_at: next,
                    retry_step: failed,
                }
            }
        }
    }
}

/// What one attempt came to: the delivery, its outcome and the retry step it was made at.
type AttemptEnd = (WebhookDeliveryId, Outcome, i32);

/// The attempts under way, and how many of them each webhook has.
#[derive(Default)]
struct InFlight {
    attempts: JoinSet<AttemptEnd>,
    per_webhook: HashMap<WebhookId, u32>,
    /// Which webhook each attempt is for, by task.
    webhook_of: HashMap<tokio::task::Id, WebhookId>,
}

impl InFlight {
    fn len(&self) -> usize {
        self.attempts.len()
    }
}

/// Signs and sends one delivery; returns what to record.
async fn attempt(sender: &Sender, clock: &dyn Clock, claimed: ClaimedDelivery) -> AttemptEnd {
    let delivery = &claimed.delivery;
    let body = envelope(delivery.event_id, &delivery.event_type, claimed.event_created_at, claimed.project_id.0, &claimed.data);
    let id = delivery.event_id.to_string();
    let timestamp = clock.now().timestamp();
    let outcome = match sign(&claimed.secret, &id, timestamp, &body) {
        Ok(signature) => {
            let headers = [("webhook-id", id), ("webhook-timestamp", timestamp.to_string()), ("webhook-signature", signature)];
            sender.send(&claimed.url, &headers, body).await
        }
        Err(e) => Outcome::Failed { status: None, message: e.to_string(), permanent: true },
    };
    (delivery.id, outcome, claimed.retry_step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_read_and_run_out() {
        let s = RetrySchedule::parse("5s, 5m,30m,2h,5h,10h").unwrap();
        assert_eq!(s, RetrySchedule::default());
        assert_eq!(s.after(1), Some(Duration::from_secs(5)));
        assert_eq!(s.after(6), Some(Duration::from_secs(36_000)));
        assert_eq!(s.after(7), None, "seven failed attempts: given up");
        assert_eq!(RetrySchedule::parse("100ms,1s").unwrap().0, [Duration::from_millis(100), Duration::from_secs(1)]);
        assert_eq!(RetrySchedule::parse("").unwrap().after(1), None);
        assert_eq!(RetrySchedule::parse("5s,soon"), Err(ScheduleError("soon".into())));
        assert_eq!(RetrySchedule::parse("5 days"), Err(ScheduleError("5 days".into())));
    }
}
