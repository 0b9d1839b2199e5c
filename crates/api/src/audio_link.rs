//! Audio links: short-lived URLs that let a browser's `<audio>` element stream one call's audio
//! with HTTP Range requests, which it cannot send an `X-API-Key` header with.
//!
//! A link is `v1.KEY.PROJECT.CALL.EXPIRES.SIGNATURE`: the id of the key that asked for it, the
//! project and call (uuids in simple hex), the expiry in Unix seconds, and an HMAC-SHA256 of all
//! that keyed by the asking key's stored digest. Nothing is stored per link, so any server
//! process can check one, and revoking the key ends every link it made. The link is not the key
//! and cannot be turned back into it; it opens one call's audio, for a short while.

use callscope_domain::{ApiKeyId, CallId, KeyDigest, ProjectId, Timestamp};
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

/// How long a link lasts. A page that is left open longer asks for a new one when the old one
/// is refused.
pub const AUDIO_LINK_LIFETIME: Duration = Duration::hours(1);

/// Version tag, so that the format can change without old links being misread.
const VERSION: &str = "v1";

/// Domain separation: a signature over a link can never stand for anything else signed with
/// the same digest.
const CONTEXT: &[u8] = b"callscope audio link\n";

/// What a link grants: one call's audio, asked for by one key, until a moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioLinkGrant {
    /// The key that made the link; it must still be active when the link is used.
    pub key_id: ApiKeyId,
    /// The call's project.
    pub project_id: ProjectId,
    /// The call.
    pub call_id: CallId,
    /// When the link stops working.
    pub expires_at: DateTime<Utc>,
}

impl AudioLinkGrant {
    /// A grant that lasts [`AUDIO_LINK_LIFETIME`] from `now`, to whole seconds.
    pub fn new(key_id: ApiKeyId, project_id: ProjectId, call_id: CallId, now: Timestamp) -> Self {
        let expires = now + AUDIO_LINK_LIFETIME;
        let expires_at = DateTime::from_timestamp(expires.timestamp(), 0).unwrap_or(expires);
        Self { key_id, project_id, call_id, expires_at }
    }

    /// The link's token, signed with the digest of the key that asked for it.
    pub fn sign(&self, digest: &KeyDigest) -> String {
        let payload = self.payload();
        let signature = signature(digest, &payload);
        format!("{payload}.{}", hex::encode(signature))
    }

    fn payload(&self) -> String {
        format!("{VERSION}.{}.{}.{}.{}", self.key_id.0.simple(), self.project_id.0.simple(), self.call_id.0.simple(), self.expires_at.timestamp())
    }

    /// Reads a token's claims without trusting them: the caller looks up the key it names and
    /// then calls [`UnverifiedLink::verify`] with that key's digest.
    pub fn parse(token: &str) -> Option<UnverifiedLink> {
        let (payload, signature) = token.rsplit_once('.')?;
        let mut parts = payload.split('.');
        if parts.next()? != VERSION {
            return None;
        }
        let id = |part: Option<&str>| part.filter(|p| p.len() == 32).and_then(|p| Uuid::try_parse(p).ok());
        let key_id = ApiKeyId(id(parts.next())?);
        let project_id = ProjectId(id(parts.next())?);
        let call_id = CallId(id(parts.next())?);
        let expires = parts.next()?.parse::<i64>().ok()?;
        if parts.next().is_some() {
            return None;
        }
        let expires_at = DateTime::from_timestamp(expires, 0)?;
        let signature = hex::decode(signature).ok()?;
        let grant = AudioLinkGrant { key_id, project_id, call_id, expires_at };
        // The payload must be exactly what signing writes, so one grant has one token.
        (grant.payload() == payload).then_some(UnverifiedLink { grant, signature })
    }
}

/// A token's claims before its signature and expiry are checked.
#[derive(Debug)]
pub struct UnverifiedLink {
    grant: AudioLinkGrant,
    signature: Vec<u8>,
}

impl UnverifiedLink {
    /// The key the token says made it.
    pub fn key_id(&self) -> ApiKeyId {
        self.grant.key_id
    }

    /// The grant, when the signature is the key's (compared in constant time) and the link has
    /// not expired at `now`.
    pub fn verify(self, digest: &KeyDigest, now: Timestamp) -> Option<AudioLinkGrant> {
        let mut mac = keyed(digest);
        mac.update(CONTEXT);
        mac.update(self.grant.payload().as_bytes());
        mac.verify_slice(&self.signature).ok()?;
        (now < self.grant.expires_at).then_some(self.grant)
    }
}

fn keyed(digest: &KeyDigest) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(digest.as_str().as_bytes()).expect("HMAC takes keys of any length")
}

fn signature(digest: &KeyDigest, payload: &str) -> Vec<u8> {
    let mut mac = keyed(digest);
    mac.update(CONTEXT);
    mac.update(payload.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant_at(now: Timestamp) -> AudioLinkGrant {
        AudioLinkGrant::new(ApiKeyId(Uuid::now_v7()), ProjectId(Uuid::now_v7()), CallId(Uuid::now_v7()), now)
    }

    #[test]
    fn a_signed_link_verifies_with_its_key_until_it_expires() {
        let now = Utc::now();
        let digest = KeyDigest::of("csk_one");
        let grant = grant_at(now);
        let token = grant.sign(&digest);
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.'), "path-safe: {token}");
        let parsed = AudioLinkGrant::parse(&token).expect("parses");
        assert_eq!(parsed.key_id(), grant.key_id);
        assert_eq!(parsed.verify(&digest, now), Some(grant.clone()));
        let just_before = grant.expires_at - Duration::seconds(1);
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&digest, just_before).is_some());
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&digest, grant.expires_at).is_none(), "expired");
    }

    #[test]
    fn another_key_or_any_changed_character_is_refused() {
        let now = Utc::now();
        let digest = KeyDigest::of("csk_one");
        let token = grant_at(now).sign(&digest);
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&KeyDigest::of("csk_two"), now).is_none());
        for position in 0..token.len() {
            let mut bytes = token.clone().into_bytes();
            bytes[position] = if bytes[position] == b'1' { b'2' } else { b'1' };
            let changed = String::from_utf8(bytes).unwrap();
            let accepted = AudioLinkGrant::parse(&changed).and_then(|link| link.verify(&digest, now));
            assert!(accepted.is_none(), "a change at {position} must not verify: {changed}");
        }
    }

    #[test]
    fn malformed_tokens_do_not_parse() {
        let token = grant_at(Utc::now()).sign(&KeyDigest::of("csk_one"));
        for bad in ["", "v1", "v2.a.b.c.1.00", &token.replacen("v1", "v2", 1), &format!("{token}.00"), &token.to_uppercase()] {
            assert!(AudioLinkGrant::parse(bad).is_none(), "{bad}");
        }
    }
}
