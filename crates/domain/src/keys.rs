//! Organization API keys. The plain key (`csk_` + base62 of 32 random bytes) exists only when it
//! is created; everything stored is its SHA-256 digest, so a leaked database holds no usable key.

use std::fmt;

use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::{ApiKeyId, OrgId, Timestamp};

const PREFIX: &str = "csk_";
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A freshly generated plain API key. Shown once, never stored.
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    /// Generates a key from 32 bytes of the operating system's randomness.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(format!("{PREFIX}{}", base62(&bytes)))
    }

    /// The plain key, for showing to its owner exactly once.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The digest to store.
    pub fn digest(&self) -> KeyDigest {
        KeyDigest::of(&self.0)
    }
}

impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKeySecret(…)")
    }
}

/// A server-side secret: 32 bytes of the operating system's randomness, as lower-case hex.
pub fn random_secret_hex() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Lower-case hex SHA-256 of a plain key: what the database stores and looks keys up by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyDigest(String);

impl KeyDigest {
    /// Digest of whatever a client sent; unknown keys simply match nothing.
    pub fn of(plain: &str) -> Self {
        Self(hex::encode(Sha256::digest(plain.as_bytes())))
    }

    /// Wraps a digest read back from storage.
    pub fn from_hex(hex: String) -> Self {
        Self(hex)
    }

    /// The hex digest.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A stored API key, without its secret.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKey {
    /// The key's id (what `key revoke` takes, and a template's `userId`).
    pub id: ApiKeyId,
    /// The organization the key acts for.
    pub org_id: OrgId,
    /// A label for people.
    pub name: String,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it was revoked, if it was.
    pub revoked_at: Option<Timestamp>,
}

/// Who is calling: the organization a valid key belongs to, and the key itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Principal {
    /// The tenant every query of this request is scoped to.
    pub org_id: OrgId,
    /// The key that authenticated the request.
    pub key_id: ApiKeyId,
}

/// Base62 of a big-endian unsigned integer, by repeated division.
fn base62(bytes: &[u8]) -> String {
    let mut number: Vec<u8> = bytes.iter().copied().skip_while(|&b| b == 0).collect();
    let mut digits = Vec::new();
    while !number.is_empty() {
        let mut remainder: u32 = 0;
        let mut quotient = Vec::with_capacity(number.len());
        for &byte in &number {
            let acc = (remainder << 8) | u32::from(byte);
            let q = acc / 62;
            remainder = acc % 62;
            if !(quotient.is_empty() && q == 0) {
                quotient.push(q as u8);
            }
        }
        digits.push(BASE62[remainder as usize]);
        number = quotient;
    }
    if digits.is_empty() {
        digits.push(BASE62[0]);
    }
    digits.reverse();
    String::from_utf8(digits).expect("base62 alphabet is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base62_matches_known_values() {
        assert_eq!(base62(&[0]), "0");
        assert_eq!(base62(&[61]), "z");
        assert_eq!(base62(&[62]), "10");
        assert_eq!(base62(&[0x01, 0x00]), "48"); // 256 = 4*62 + 8
        assert_eq!(base62(&[0xff; 8]), "LygHa16AHYF"); // u64::MAX
    }

    #[test]
    fn generated_keys_have_the_documented_shape() {
        let key = ApiKeySecret::generate();
        let body = key.expose().strip_prefix("csk_").expect("prefix");
        // 32 random bytes are at most 43 base62 digits.
        assert!((40..=43).contains(&body.len()), "{body}");
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(key.expose(), ApiKeySecret::generate().expose());
    }

    #[test]
    fn digest_is_lowercase_hex_sha256() {
        assert_eq!(KeyDigest::of("abc").as_str(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let key = ApiKeySecret::generate();
        assert_eq!(key.digest(), KeyDigest::of(key.expose()));
        assert!(!format!("{key:?}").contains(key.expose()));
    }
}
