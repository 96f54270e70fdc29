//! `Token`: a bearer secret (a runner's or an agent's credential) that compares in constant
//! time, never prints, and is generated only from the caller's random source.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use model_policy::RandomSource;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use subtle::ConstantTimeEq as _;

use crate::error::{InvalidReason, TaskError};

/// The shortest token accepted, in bytes: short enough for any generated secret, long enough
/// to refuse a password-like word.
pub const MIN_TOKEN_BYTES: usize = 16;

/// The longest token accepted, in bytes.
pub const MAX_TOKEN_BYTES: usize = 512;

/// Random bytes in a generated token (256 bits).
pub const TOKEN_ENTROPY_BYTES: usize = 32;

/// The prefix of a generated token, so a secret scanner can recognise one.
pub const GENERATED_TOKEN_PREFIX: &str = "tm_";

/// The characters a token may hold, for error messages: RFC 6750's `b64token`.
const ALLOWED: &str = "A-Z a-z 0-9 - . _ ~ + /, then = only at the end";

/// What a token's length must be, for error messages.
const LENGTH_EXPECTED: &str = "at least 16 bytes";

/// A bearer token: the secret a runner or an agent presents (`Authorization: Bearer ...`).
///
/// - **Form.** [`MIN_TOKEN_BYTES`] to [`MAX_TOKEN_BYTES`] bytes of RFC 6750's `b64token`
///   alphabet (letters, digits, `-._~+/`, and `=` only at the end), so it passes unescaped in
///   an `Authorization` header. Nothing is trimmed: a caller that reads a token from a file
///   trims the line break itself.
/// - **Comparison.** `==` and [`verify`](Self::verify) take the same time for every token of
///   the same length, whatever bytes differ (subtle's `ConstantTimeEq`); tokens of different
///   lengths differ at once, so only the length can leak, and generated tokens all have the
///   same length. `Token` has no `Hash` and no `Ord`, which would compare by content.
/// - **Redaction.** `Debug` and `Display` print `Token(redacted)` and `redacted`; only
///   [`expose`](Self::expose) and serialization give the secret, for the moment it is handed
///   over (a registration answer, a configuration file).
/// - **Generation.** [`generate`](Self::generate) takes the caller's [`RandomSource`]; this
///   crate never draws randomness of its own, so the caller chooses a cryptographically secure
///   source (a seeded `SeededRandom` is for tests only).
///
/// ```
/// use model_policy::SeededRandom;
/// use model_task::Token;
///
/// let token = Token::generate(&mut SeededRandom::new(7));
/// assert!(token.expose().starts_with("tm_"));
/// assert!(token.verify(token.expose()));
/// assert!(!token.verify("tm_guess"));
/// assert_eq!(format!("{token:?} {token}"), "Token(redacted) redacted");
///
/// let err = Token::new("hunter2").unwrap_err();
/// assert_eq!(err.to_string(), "invalid token: expected at least 16 bytes");
/// # let _ = err;
/// ```
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// Checks and wraps a token.
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] at `token` when it is shorter than [`MIN_TOKEN_BYTES`], longer
    /// than [`MAX_TOKEN_BYTES`], or holds a character outside its alphabet. The error never
    /// quotes the token.
    pub fn new(token: impl Into<String>) -> Result<Self, TaskError> {
        let token = token.into();
        check(&token)?;
        Ok(Self(token))
    }

    /// A new token: [`GENERATED_TOKEN_PREFIX`] and [`TOKEN_ENTROPY_BYTES`] bytes drawn from
    /// `rng`, base64 URL-safe without padding (46 characters in all).
    pub fn generate<R: RandomSource + ?Sized>(rng: &mut R) -> Self {
        let mut bytes = [0_u8; TOKEN_ENTROPY_BYTES];
        for chunk in bytes.chunks_mut(8) {
            let draw = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(draw.get(..chunk.len()).unwrap_or(&draw));
        }
        let mut token = String::with_capacity(GENERATED_TOKEN_PREFIX.len() + 43);
        token.push_str(GENERATED_TOKEN_PREFIX);
        URL_SAFE_NO_PAD.encode_string(bytes, &mut token);
        Self(token)
    }

    /// Whether `candidate` is this token, in constant time for a candidate of the token's
    /// length. Use it for every check of a presented secret.
    pub fn verify(&self, candidate: &str) -> bool {
        self.0.as_bytes().ct_eq(candidate.as_bytes()).into()
    }

    /// The secret itself, to hand it over. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Its length in bytes (not secret: every generated token has the same).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always `false`: a token is never empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Checks a token's length and alphabet.
fn check(token: &str) -> Result<(), TaskError> {
    if token.len() < MIN_TOKEN_BYTES {
        return Err(TaskError::invalid(
            "token",
            InvalidReason::Format {
                expected: LENGTH_EXPECTED,
            },
        ));
    }
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TaskError::invalid(
            "token",
            InvalidReason::TooLong {
                len: token.len(),
                max: MAX_TOKEN_BYTES,
            },
        ));
    }
    let body = token.trim_end_matches('=');
    let allowed = |b: &u8| b.is_ascii_alphanumeric() || b"-._~+/".contains(b);
    let bad = if body.is_empty() {
        Some(0)
    } else {
        body.bytes().position(|b| !allowed(&b))
    };
    match bad {
        Some(index) => Err(TaskError::invalid(
            "token",
            InvalidReason::NotAllowed {
                index,
                allowed: ALLOWED,
            },
        )),
        None => Ok(()),
    }
}

/// In constant time for tokens of the same length ([`Token::verify`]).
impl PartialEq for Token {
    fn eq(&self, other: &Self) -> bool {
        self.verify(&other.0)
    }
}

impl Eq for Token {}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(redacted)")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("redacted")
    }
}

/// Writes the secret: serialize a token only to hand it over.
impl Serialize for Token {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Token;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a bearer token")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Token, E> {
                // The length is checked before the text is copied.
                check(v).map_err(E::custom)?;
                Ok(Token(v.to_owned()))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Token {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Token".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "model_task::Token".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A bearer token: RFC 6750 b64token characters.",
            "type": "string",
            "minLength": MIN_TOKEN_BYTES,
            "maxLength": MAX_TOKEN_BYTES,
            "pattern": "^[A-Za-z0-9._~+/-]+=*$",
            "writeOnly": true,
        })
    }
}

#[cfg(test)]
mod tests;
