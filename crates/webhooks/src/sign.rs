//! Standard Webhooks signatures and the event envelope.
//!
//! A delivery carries `webhook-id` (the event id), `webhook-timestamp` (Unix seconds) and
//! `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the
//! bytes of the secret after `whsec_`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A secret that is not `whsec_` + base64.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the webhook secret is not whsec_ followed by base64")]
pub struct SecretError;

/// The `webhook-signature` header value for one message.
///
/// # Errors
/// When the secret is not `whsec_` + base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, SecretError> {
    let key = STANDARD.decode(secret.strip_prefix("whsec_").ok_or(SecretError)?).map_err(|_| SecretError)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|_| SecretError)?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes())))
}

/// The body of a delivery: `{"id", "type", "createdAt", "projectId", "data"}`.
pub fn envelope(
    event_id: uuid::Uuid,
    event_type: &str,
    created_at: chrono::DateTime<chrono::Utc>,
    project_id: uuid::Uuid,
    data: &serde_json::Value,
) -> Vec<u8> {
    let value = serde_json::json!({
        "id": event_id,
        "type": event_type,
        "createdAt": created_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "projectId": project_id,
        "data": data,
    });
    serde_json::to_vec(&value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vector published with the Standard Webhooks specification.
    #[test]
    fn matches_the_specifications_test_vector() {
        let signature = sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, br#"{"test": 2432232314}"#);
        assert_eq!(signature.as_deref(), Ok("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
    }

    #[test]
    fn any_change_changes_the_signature() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let base = sign(secret, "msg_1", 1_614_265_330, b"{}").unwrap();
        assert_ne!(base, sign(secret, "msg_2", 1_614_265_330, b"{}").unwrap());
        assert_ne!(base, sign(secret, "msg_1", 1_614_265_331, b"{}").unwrap());
        assert_ne!(base, sign(secret, "msg_1", 1_614_265_330, b"{ }").unwrap());
        assert_ne!(base, sign("whsec_AfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", 1_614_265_330, b"{}").unwrap());
    }

    #[test]
    fn secrets_must_be_whsec_base64() {
        assert_eq!(sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "m", 1, b""), Err(SecretError));
        assert_eq!(sign("whsec_not base64!", "m", 1, b""), Err(SecretError));
    }

    #[test]
    fn the_envelope_has_the_five_fields() {
        let id = uuid::Uuid::now_v7();
        let project = uuid::Uuid::now_v7();
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-21T10:00:00.5Z").unwrap().to_utc();
        let body = envelope(id, "call.completed", at, project, &serde_json::json!({"jobId": "j"}));
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"id": id, "type": "call.completed", "createdAt": "2026-11-21T10:00:00.500Z",
                "projectId": project, "data": {"jobId": "j"}})
        );
    }
}
