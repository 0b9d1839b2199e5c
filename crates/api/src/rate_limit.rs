//! The per-key request budget of decisions §11: a token bucket per API key, holding one
//! minute's worth of requests and refilling continuously. Buckets are keyed by the key's digest
//! (plain keys are not kept in memory). The budget is per process.
//!
//! A key gets a bucket of its own once it is known to be valid: every active key when the
//! service starts, and any other the first time it authenticates. Until then its requests are
//! counted against the client's address: were every key sent given a fresh bucket, a flood of
//! made-up keys would pass the limit and cost one database lookup each. So the lookups a client
//! can cause with unknown keys are bounded by its address's budget, and such a flood holds up
//! only keys made after the service started, only from the flooding address, and only until
//! their first request gets through.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use callscope_domain::KeyDigest;

use crate::extract::API_KEY_HEADER;
use crate::{ApiError, AppState};

/// Buckets kept before idle (full) ones are dropped.
const PRUNE_ABOVE: usize = 10_000;
/// Keys remembered as valid; past this no more are learnt (those go on sharing their address's
/// budget) rather than forgetting ones already known.
const KNOWN_KEYS_MAX: usize = 100_000;

/// What the key lookup of one request found, told by the authentication extractor to this
/// middleware through the request's extensions.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyLookup(Arc<AtomicU8>);

impl KeyLookup {
    const NOT_LOOKED_UP: u8 = 0;
    const VALID: u8 = 1;
    const INVALID: u8 = 2;

    /// Records the lookup's answer.
    pub(crate) fn found(&self, valid: bool) {
        self.0.store(if valid { Self::VALID } else { Self::INVALID }, Ordering::SeqCst);
    }

    fn answer(&self) -> Option<bool> {
        match self.0.load(Ordering::SeqCst) {
            Self::NOT_LOOKED_UP => None,
            found => Some(found == Self::VALID),
        }
    }
}

/// Digests of keys that authenticated in this process.
#[derive(Debug, Default)]
pub struct KnownKeys(Mutex<HashSet<KeyDigest>>);

impl KnownKeys {
    fn contains(&self, key: &KeyDigest) -> bool {
        self.0.lock().expect("known keys lock").contains(key)
    }

    fn learn(&self, key: KeyDigest) {
        self.learn_all([key]);
    }

    /// Remembers keys known to be valid: the store's active keys when the service starts, so
    /// that no key in use has to win its first request on its address's budget.
    pub fn learn_all(&self, keys: impl IntoIterator<Item = KeyDigest>) {
        let mut known = self.0.lock().expect("known keys lock");
        for key in keys {
            if known.len() >= KNOWN_KEYS_MAX {
                break;
            }
            known.insert(key);
        }
    }

    fn forget(&self, key: &KeyDigest) {
        self.0.lock().expect("known keys lock").remove(key);
    }
}

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

/// Addresses of reverse proxies whose `X-Forwarded-For` is believed, as networks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// Reads a comma-separated list of addresses and networks (`10.0.0.0/8`, `::1`); empty is
    /// none.
    ///
    /// # Errors
    /// An entry that is not an address, or a prefix longer than its address.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut networks = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (address, prefix) = entry.split_once('/').unwrap_or((entry, ""));
            let address: IpAddr = address.parse().map_err(|_| format!("{entry} is not an IP address or network"))?;
            let most = if address.is_ipv4() { 32 } else { 128 };
            let prefix = if prefix.is_empty() {
                most
            } else {
                prefix.parse::<u8>().ok().filter(|p| *p <= most).ok_or_else(|| format!("{entry} has no valid prefix length"))?
            };
            networks.push((address, prefix));
        }
        Ok(Self(networks))
    }

    fn contains(&self, address: IpAddr) -> bool {
        self.0.iter().any(|&(network, prefix)| match (network, address) {
            (IpAddr::V4(n), IpAddr::V4(a)) => prefix == 0 || (u32::from(n) ^ u32::from(a)) >> (32 - u32::from(prefix)) == 0,
            (IpAddr::V6(n), IpAddr::V6(a)) => prefix == 0 || (u128::from(n) ^ u128::from(a)) >> (128 - u32::from(prefix)) == 0,
            _ => false,
        })
    }

    /// The client behind a request from `peer`: `peer` itself, unless it is a trusted proxy; then
    /// the nearest address in `X-Forwarded-For` (read from the right, where each proxy appends
    /// the address it took the request from) that is not one. A client can write anything at
    /// the left of that header, so nothing left of the first untrusted hop counts, and a hop
    /// that is not an address stops the walk at the proxy it came through.
    pub fn client(&self, peer: IpAddr, headers: &axum::http::HeaderMap) -> IpAddr {
        // A server listening on [::] sees IPv4 peers as IPv4-mapped IPv6 addresses.
        let peer = peer.to_canonical();
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).collect();
        let mut nearest = peer;
        for hop in hops.iter().rev() {
            let Ok(address) = hop.trim().parse::<IpAddr>().map(|a| a.to_canonical()) else { return nearest };
            if !self.contains(address) {
                return address;
            }
            nearest = address;
        }
        nearest
    }
}

/// The bucket of requests from an address whose key is not known yet: the client's (behind a
/// trusted proxy, the address it forwarded). Without the peer's address (a router served
/// without connect info) all such requests share one bucket.
fn address_bucket(request: &Request, proxies: &TrustedProxies) -> String {
    let address = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| proxies.client(c.0.ip(), request.headers()));
    match address {
        // A whole IPv6 /64 is one client: it is what one subscriber is given.
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("addr:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Some(v4) => format!("addr:{v4}"),
        None => "addr:unknown".into(),
    }
}

/// Middleware on the link routes (`GET /audio/{token}`): a link is looked up like a key, and
/// carries none, so each request counts against the client address's budget.
pub async fn enforce_by_address(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Err(wait) = state.limiter.check(&address_bucket(&request, &state.trusted_proxies), Instant::now()) {
        return ApiError::RateLimited { retry_after_s: wait.as_secs_f64().ceil().max(1.0) as u64 }.into_response();
    }
    next.run(request).await
}

/// Middleware on `/v1`: answers 429 with `Retry-After` when the budget is spent: the key's, or
/// for a key not yet seen to authenticate, its address's.
pub async fn enforce(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let Some(key) = request.headers().get(API_KEY_HEADER).map(|v| KeyDigest::of(&String::from_utf8_lossy(v.as_bytes()))) else {
        // A request without a key is refused before any lookup.
        return next.run(request).await;
    };
    let now = Instant::now();
    let is_upload = request.method() == axum::http::Method::POST && request.uri().path().ends_with("/calls/upload");
    let known = state.known_keys.contains(&key);
    let bucket = if known { key.as_str().to_owned() } else { address_bucket(&request, &state.trusted_proxies) };
    let mut verdict = state.limiter.check(&bucket, now);
    if verdict.is_ok() && is_upload {
        verdict = state.upload_limiter.check(&bucket, now);
    }
    if let Err(wait) = verdict {
        let retry_after_s = wait.as_secs_f64().ceil().max(1.0) as u64;
        return ApiError::RateLimited { retry_after_s }.into_response();
    }
    let lookup = KeyLookup::default();
    request.extensions_mut().insert(lookup.clone());
    let response = next.run(request).await;
    match (known, lookup.answer()) {
        (false, Some(true)) => {
            // This request counts against the key's own budget too, now that it has one.
            state.known_keys.learn(key.clone());
            let _ = state.limiter.check(key.as_str(), now);
            if is_upload {
                let _ = state.upload_limiter.check(key.as_str(), now);
            }
        }
        (true, Some(false)) => state.known_keys.forget(&key),
        _ => {}
    }
    response
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append("x-forwarded-for", v.parse().unwrap());
        }
        headers
    }

    #[test]
    fn the_client_is_the_nearest_hop_a_trusted_proxy_names() {
        let proxies = TrustedProxies::parse("127.0.0.1, 10.0.0.0/8, fd00::/8").unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // Not from a proxy: the header is the client's to write, and ignored.
        assert_eq!(proxies.client(ip("203.0.113.5"), &forwarded(&["198.51.100.1"])), ip("203.0.113.5"));
        // Through two proxies: the nearest untrusted hop, whatever the client wrote before it.
        assert_eq!(proxies.client(ip("127.0.0.1"), &forwarded(&["6.6.6.6, 198.51.100.7, 10.1.2.3"])), ip("198.51.100.7"));
        assert_eq!(proxies.client(ip("127.0.0.1"), &forwarded(&["6.6.6.6", "198.51.100.7"])), ip("198.51.100.7"), "headers in order");
        // A hop that is not an address stops the walk at the proxy it came through.
        assert_eq!(proxies.client(ip("127.0.0.1"), &forwarded(&["nonsense, 10.9.9.9"])), ip("10.9.9.9"));
        assert_eq!(proxies.client(ip("127.0.0.1"), &HeaderMap::new()), ip("127.0.0.1"));
        assert_eq!(proxies.client(ip("fd12::1"), &forwarded(&["2001:db8::9"])), ip("2001:db8::9"));
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err() && TrustedProxies::parse("proxy.local").is_err());
        assert_eq!(TrustedProxies::parse(" ").unwrap(), TrustedProxies::default());
    }

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
