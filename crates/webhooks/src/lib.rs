//! Webhook delivery (decisions §9): events become signed POSTs to the webhooks registered for
//! them, retried on a schedule, each attempt recorded, and never sent to an address that is not
//! public.
//!
//! The store makes one delivery per (event, webhook) in the transaction that writes the event.
//! [`Dispatcher`]s, in `serve` and in `worker`, as many processes as there are, claim due
//! deliveries with a lease, send them through the [`Sender`] and record what happened; a
//! dispatcher that stops mid-way leaves its lease to run out and another picks the delivery up.

mod dispatch;
mod send;
pub mod sign;
#[cfg(feature = "testing")]
pub mod testing;

pub use dispatch::{Dispatcher, DispatcherSettings, RetrySchedule, ScheduleError};
pub use send::{Outcome, Resolve, Sender, SenderSettings, SystemResolver};
pub use sign::{envelope, sign, SecretError};
