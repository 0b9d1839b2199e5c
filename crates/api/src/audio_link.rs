//! Audio links: short-lived URLs that let a browser's `<audio>` element stream one call's audio
//! with HTTP Range requests, which it cannot send an `X-API-Key` header with.
//!
//! A link is `v1.KEY.PROJECT.CALL.EXPIRES.SIGNATURE`: the id of the key that asked for it, the
//! project and call (uuids in simple hex), the expiry in Unix seconds, and an HMAC-SHA256 of all
//! that. The HMAC's key is made from the service's audio link secret and the asking key's stored
//! digest, so:
//! - nothing is stored per link, and any server process with the secret can check one;
//! - neither a key's holder nor a reader of the database can make a link (or stretch one's life):
//!   both lack the secret;
//! - revoking the key ends every link it made.
//!
//! The link is not the key and cannot be turned back into it; it opens one call's audio, for a
//! short while.

use std::fmt;

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

/// The service's secret for audio links: from `audio_link_secret`, or made on first start and
/// kept in the data directory. Every server process of one deployment must share it.
#[derive(Clone, PartialEq, Eq)]
pub struct AudioLinkSecret(Vec<u8>);

impl AudioLinkSecret {
    /// A secret from its bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }

    /// The HMAC of the links `digest`'s key makes: the secret and that key together.
    fn signer(&self, digest: &KeyDigest) -> Hmac<Sha256> {
        let mut derive = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        derive.update(digest.as_str().as_bytes());
        let key = derive.finalize().into_bytes();
        let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes keys of any length");
        mac.update(CONTEXT);
        mac
    }
}

impl fmt::Debug for AudioLinkSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AudioLinkSecret(…)")
    }
}

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

    /// The link's token, signed for the key that asked for it.
    pub fn sign(&self, secret: &AudioLinkSecret, digest: &KeyDigest) -> String {
        let payload = self.payload();
        let mut mac = secret.signer(digest);
        mac.update(payload.as_bytes());
        format!("{payload}.{}", hex::encode(mac.finalize().into_bytes()))
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
        let signature = hex::decode(signature).ok().filter(|bytes| hex::encode(bytes) == signature)?;
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

    /// The grant, when the signature is the service's for this key (compared in constant time)
    /// and the link is live at `now`: not expired, and not claiming a longer life than links are
    /// given (with a few minutes for clocks of several servers that disagree).
    pub fn verify(self, secret: &AudioLinkSecret, digest: &KeyDigest, now: Timestamp) -> Option<AudioLinkGrant> {
        let mut mac = secret.signer(digest);
        mac.update(self.grant.payload().as_bytes());
        mac.verify_slice(&self.signature).ok()?;
        let live = now < self.grant.expires_at && self.grant.expires_at <= now + AUDIO_LINK_LIFETIME + CLOCK_SKEW;
        live.then_some(self.grant)
    }
}

/// How far the clocks of a deployment's servers may disagree.
const CLOCK_SKEW: Duration = Duration::minutes(5);

#[cfg(test)]
mod tests {
    use super::*;

    fn grant_at(now: Timestamp) -> AudioLinkGrant {
        AudioLinkGrant::new(ApiKeyId(Uuid::now_v7()), ProjectId(Uuid::now_v7()), CallId(Uuid::now_v7()), now)
    }

    #[test]
    fn a_signed_link_verifies_with_its_key_until_it_expires() {
        let now = Utc::now();
        let (secret, digest) = (AudioLinkSecret::new(*b"server"), KeyDigest::of("csk_one"));
        let grant = grant_at(now);
        let token = grant.sign(&secret, &digest);
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.'), "path-safe: {token}");
        let parsed = AudioLinkGrant::parse(&token).expect("parses");
        assert_eq!(parsed.key_id(), grant.key_id);
        assert_eq!(parsed.verify(&secret, &digest, now), Some(grant.clone()));
        let just_before = grant.expires_at - Duration::seconds(1);
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&secret, &digest, just_before).is_some());
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&secret, &digest, grant.expires_at).is_none(), "expired");
    }

    #[test]
    fn another_key_or_any_changed_character_is_refused() {
        let now = Utc::now();
        let (secret, digest) = (AudioLinkSecret::new(*b"server"), KeyDigest::of("csk_one"));
        let token = grant_at(now).sign(&secret, &digest);
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&secret, &KeyDigest::of("csk_two"), now).is_none(), "another key");
        let elsewhere = AudioLinkSecret::new(*b"another deployment");
        assert!(AudioLinkGrant::parse(&token).unwrap().verify(&elsewhere, &digest, now).is_none(), "another secret");
        for position in 0..token.len() {
            let mut bytes = token.clone().into_bytes();
            bytes[position] = if bytes[position] == b'1' { b'2' } else { b'1' };
            let changed = String::from_utf8(bytes).unwrap();
            let accepted = AudioLinkGrant::parse(&changed).and_then(|link| link.verify(&secret, &digest, now));
            assert!(accepted.is_none(), "a change at {position} must not verify: {changed}");
        }
    }

    #[test]
    fn malformed_tokens_do_not_parse() {
        let token = grant_at(Utc::now()).sign(&AudioLinkSecret::new(*b"server"), &KeyDigest::of("csk_one"));
        for bad in ["", "v1", "v2.a.b.c.1.00", &token.replacen("v1", "v2", 1), &format!("{token}.00"), &token.to_uppercase()] {
            assert!(AudioLinkGrant::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_key_holder_cannot_sign_a_longer_life_even_knowing_the_digest() {
        let now = Utc::now();
        let (secret, digest) = (AudioLinkSecret::new(*b"server"), KeyDigest::of("csk_one"));
        // Signed without the secret, as someone with only the key (and so its digest) could.
        let mut forever = grant_at(now);
        forever.expires_at = now + Duration::days(3650);
        let forged = forever.sign(&AudioLinkSecret::new(Vec::new()), &digest);
        assert!(AudioLinkGrant::parse(&forged).unwrap().verify(&secret, &digest, now).is_none());
        // And a link the service itself signed too far ahead (no code does) is not honoured.
        let too_long = forever.sign(&secret, &digest);
        assert!(AudioLinkGrant::parse(&too_long).unwrap().verify(&secret, &digest, now).is_none());
        forever.expires_at = now + AUDIO_LINK_LIFETIME;
        let normal = forever.sign(&secret, &digest);
        assert!(AudioLinkGrant::parse(&normal).unwrap().verify(&secret, &digest, now).is_some());
    }
}
