//! Webhook registrations (decisions §9): where events go, which ones, and the signing secret.
//! Delivery is the dispatcher's business; this module holds what registration checks.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use base64::Engine;
use rand::RngCore;

use uuid::Uuid;

use crate::{ProjectId, Timestamp, ValidationErrors, Validator, WebhookDeliveryId, WebhookId};

/// Longest webhook URL.
pub const WEBHOOK_URL_MAX: usize = 2048;

/// The event names a webhook can subscribe to (or `*` for all).
pub const EVENT_TYPES: [&str; 7] = [
    "call.completed", "call.failed", "call.category_changed", "call.rule_matched", "action_item.created", "action_item.updated",
    "action_item.deleted",
];

/// Where one event's delivery to one webhook is (decisions §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// No attempt yet, or sent again by hand.
    Pending,
    /// A 2xx answer.
    Succeeded,
    /// Failed; tried again at `next_attempt_at`.
    Retrying,
    /// Gave up.
    Failed,
}

text_enum!(DeliveryStatus { Pending = "PENDING", Succeeded = "SUCCEEDED", Retrying = "RETRYING", Failed = "FAILED" });

/// Subscribes to every event.
pub const ALL_EVENTS: &str = "*";

/// A registered webhook (never with its secret).
#[derive(Debug, Clone, PartialEq)]
pub struct Webhook {
    /// The webhook's id.
    pub id: WebhookId,
    /// Its project.
    pub project_id: ProjectId,
    /// Target URL.
    pub url: String,
    /// Subscribed event names, or `["*"]`.
    pub events: Vec<String>,
    /// False while paused.
    pub active: bool,
    /// When it was registered.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks).
pub fn generate_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Checks and normalises the subscribed events: non-empty, known names or `*`, no repeats.
///
/// # Errors
/// Each unknown name, by position.
pub fn parse_events(events: &[String]) -> Result<Vec<String>, ValidationErrors> {
    let mut v = Validator::default();
    if events.is_empty() {
        v.error("events", "must name at least one event (or \"*\" for all)");
    }
    let mut out: Vec<String> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let event = event.trim();
        if event != ALL_EVENTS && !EVENT_TYPES.contains(&event) {
            v.error(format!("events[{i}]"), format!("unknown event {event:?}; known: * or {}", EVENT_TYPES.join(", ")));
        } else if !out.iter().any(|e| e == event) {
            out.push(event.to_owned());
        }
    }
    v.finish()?;
    if out.iter().any(|e| e == ALL_EVENTS) {
        out = vec![ALL_EVENTS.to_owned()];
    }
    Ok(out)
}

/// Whether an address may receive webhooks: public unicast only. Loopback, private, link-local,
/// carrier-grade NAT, multicast, documentation, benchmarking, reserved and cloud metadata
/// addresses are refused, in IPv4 and IPv6; IPv4 embedded in IPv6 (mapped, NAT64, 6to4) is
/// refused as well rather than trusted.
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(net)) & mask)
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    const BLOCKED: [([u8; 4], u32); 16] = [
        ([0, 0, 0, 0], 8),       // "this network"
        ([10, 0, 0, 0], 8),      // private
        ([100, 64, 0, 0], 10),   // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
        ([127, 0, 0, 0], 8),     // loopback
        ([169, 254, 0, 0], 16),  // link-local, cloud metadata 169.254.169.254
        ([172, 16, 0, 0], 12),   // private
        ([192, 0, 0, 0], 24),    // IETF protocol assignments
        ([192, 0, 2, 0], 24),    // documentation TEST-NET-1
        ([192, 88, 99, 0], 24),  // 6to4 relay anycast
        ([192, 168, 0, 0], 16),  // private
        ([198, 18, 0, 0], 15),   // benchmarking
        ([198, 51, 100, 0], 24), // documentation TEST-NET-2
        ([203, 0, 113, 0], 24),  // documentation TEST-NET-3
        ([224, 0, 0, 0], 4),     // multicast
        ([240, 0, 0, 0], 4),     // reserved, broadcast
        ([255, 255, 255, 255], 32),
    ];
    !BLOCKED.iter().any(|(net, prefix)| in_v4(ip, *net, *prefix))
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
    (u128::from(ip) & mask) == (u128::from(Ipv6Addr::from(net)) & mask)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // Only global unicast (2000::/3) can be public at all.
    if !in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        return false;
    }
    const BLOCKED: [([u16; 8], u32); 4] = [
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),      // IETF protocol assignments (Teredo, benchmarking, ORCHID)
        ([0x2001, 0x0db8, 0, 0, 0, 0, 0, 0], 32), // documentation
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16),      // 6to4: embeds an IPv4 address
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20),      // documentation (RFC 9637)
    ];
    !BLOCKED.iter().any(|(net, prefix)| in_v6(ip, *net, *prefix))
}

/// One event's delivery to one webhook, as the deliveries log shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookDelivery {
    pub id: WebhookDeliveryId,
    pub webhook_id: WebhookId,
    pub event_id: Uuid,
    pub event_type: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    /// HTTP status of the last attempt, when it got one.
    pub response_code: Option<i32>,
    /// Why the last attempt failed, in words.
    pub error_message: Option<String>,
    pub last_attempt_at: Option<Timestamp>,
    /// When the next attempt is due (PENDING and RETRYING only).
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(s: &str) -> bool {
        is_public_ip(s.parse().unwrap())
    }

    #[test]
    fn only_public_unicast_addresses_pass() {
        for ok in ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"] {
            assert!(public(ok), "{ok} is public");
        }
        for blocked in [
            "0.0.0.0", "10.1.2.3", "100.64.0.1", "100.100.100.200", "127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1",
            "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.168.1.1", "198.18.0.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
            "240.0.0.1", "255.255.255.255", "::", "::1", "::ffff:127.0.0.1", "::ffff:8.8.8.8", "64:ff9b::808:808", "fe80::1", "fc00::1",
            "fd00:ec2::254", "ff02::1", "2001:db8::1", "2001::1", "2002:c0a8:0101::1", "3fff::1", "100::1",
        ] {
            assert!(!public(blocked), "{blocked} is not public");
        }
        assert!(public("172.32.0.1") && public("100.128.0.1") && public("11.0.0.1"), "edges of blocked ranges");
    }

    #[test]
    fn events_are_known_names_or_star() {
        assert_eq!(parse_events(&["call.completed".into(), "call.completed".into()]).unwrap(), ["call.completed"]);
        assert_eq!(parse_events(&["call.failed".into(), "*".into()]).unwrap(), ["*"]);
        let err = parse_events(&["call.completed".into(), "webhook.test".into()]).unwrap_err();
        assert_eq!(err.0[0].field, "events[1]");
        assert_eq!(parse_events(&[]).unwrap_err().0[0].field, "events");
    }

    #[test]
    fn secrets_carry_32_random_bytes() {
        let secret = generate_secret();
        let raw = base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(raw.len(), 32);
        assert_ne!(secret, generate_secret());
    }
}
