//! Time as the service sees it: UTC with millisecond precision, from a clock tests can set.

use std::sync::Mutex;

use chrono::{DateTime, DurationRound, TimeDelta, Utc};

/// Every timestamp the service stores or returns.
pub type Timestamp = DateTime<Utc>;

/// Source of "now". Stores and handlers take it instead of calling `Utc::now()` so that tests can
/// pin time (overdue items, retry schedules, lease expiry).
pub trait Clock: Send + Sync + 'static {
    /// The current time, truncated to whole milliseconds (the precision of the API).
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        truncate_to_millis(Utc::now())
    }
}

/// A clock that only moves when told to.
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    /// A clock standing at `at`.
    pub fn new(at: Timestamp) -> Self {
        Self(Mutex::new(truncate_to_millis(at)))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: Timestamp) {
        *self.0.lock().expect("clock lock") = truncate_to_millis(at);
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: TimeDelta) {
        let mut now = self.0.lock().expect("clock lock");
        *now = truncate_to_millis(*now + by);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().expect("clock lock")
    }
}

/// Serialises a timestamp as the API writes them: `2026-11-21T12:00:00.000Z`.
pub fn rfc3339_millis<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&rfc3339_millis_text(t))
}

/// A time as the API writes it: RFC 3339, milliseconds, UTC (`2026-11-26T17:00:00.000Z`).
pub fn rfc3339_millis_text(t: &Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Like [`rfc3339_millis`], `null` when absent.
pub fn rfc3339_millis_opt<S: serde::Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => rfc3339_millis(t, s),
        None => s.serialize_none(),
    }
}

fn truncate_to_millis(t: Timestamp) -> Timestamp {
    t.duration_trunc(TimeDelta::milliseconds(1)).unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_clock_has_millisecond_precision() {
        let now = SystemClock.now();
        assert_eq!(now.timestamp_subsec_nanos() % 1_000_000, 0);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.678901Z").unwrap().to_utc();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now().to_rfc3339(), "2026-01-02T03:04:05.678+00:00");
        clock.advance(TimeDelta::seconds(10));
        assert_eq!(clock.now().to_rfc3339(), "2026-01-02T03:04:15.678+00:00");
    }
}
