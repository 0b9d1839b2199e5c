//! The per-key request budget of decisions §11: a token bucket per API key, holding one
//! minute's worth of requests and refilling continuously. Buckets are keyed by the key's digest
//! (plain keys are not kept in memory) and counted before the key is checked, so floods of
//! invalid keys do not reach the database either. The budget is per process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use callscope_domain::KeyDigest;

use crate::extract::API_KEY_HEADER;
use crate::{ApiError, AppState};

/// Buckets kept before idle (full) ones are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// Token buckets, one per key.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    /// A limiter allowing `per_minute` requests per key per minute; 0 allows everything.
    pub fn per_minute(per_minute: u32) -> Self {
        Self { per_minute, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request from `key`'s budget at `now`, or says how long to wait.
    ///
    /// # Errors
    /// The time until the next request would be allowed.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let per_second = capacity / 60.0;
        let mut buckets = self.buckets.lock().expect("rate limiter lock");
        if buckets.len() > PRUNE_ABOVE {
            buckets.retain(|_, b| b.tokens + now.duration_since(b.updated).as_secs_f64() * per_second < capacity);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: capacity, updated: now });
        let refill = now.saturating_duration_since(bucket.updated).as_secs_f64() * per_second;
        bucket.tokens = (bucket.tokens + refill).min(capacity);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
        }
    }
}

/// Middleware on `/v1`: answers 429 with `Retry-After` when the key's budget is spent.
pub async fn enforce(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let key = request.headers().get(API_KEY_HEADER).map(|v| KeyDigest::of(&String::from_utf8_lossy(v.as_bytes())));
    if let Some(key) = key {
        let now = Instant::now();
        let is_upload = request.method() == axum::http::Method::POST && request.uri().path().ends_with("/calls/upload");
        let mut verdict = state.limiter.check(key.as_str(), now);
        if verdict.is_ok() && is_upload {
            verdict = state.upload_limiter.check(key.as_str(), now);
        }
        if let Err(wait) = verdict {
            let retry_after_s = wait.as_secs_f64().ceil().max(1.0) as u64;
            return ApiError::RateLimited { retry_after_s }.into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_a_minute_of_requests_then_waits_for_refill() {
        let limiter = RateLimiter::per_minute(60);
        let t0 = Instant::now();
        for _ in 0..60 {
            assert!(limiter.check("a", t0).is_ok());
        }
        let wait = limiter.check("a", t0).unwrap_err();
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-6, "one token a second: {wait:?}");
        assert!(limiter.check("b", t0).is_ok(), "keys have separate budgets");
        assert!(limiter.check("a", t0 + Duration::from_millis(1000)).is_ok());
        assert!(limiter.check("a", t0 + Duration::from_millis(1000)).is_err());
    }

    #[test]
    fn zero_turns_the_limit_off() {
        let limiter = RateLimiter::per_minute(0);
        let t0 = Instant::now();
        assert!((0..10_000).all(|_| limiter.check("a", t0).is_ok()));
    }
}
