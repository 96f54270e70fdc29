//! `ContinueToken`: the opaque, URL-safe, tamper-evident bookmark between two pages.
//!
//! Layout of the decoded bytes (format version 1, integers big-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 1 | format version (1) |
//! | 8 | fingerprint of the query (filters and order, not the limit) |
//! | 8 | last key's creation time: seconds since the Unix epoch (i64) |
//! | 4 | last key's creation time: nanoseconds (u32) |
//! | 2 | length n of the last key's id |
//! | n | the id (UTF-8) |
//! | 8 | FNV-1a 64 checksum over everything above, with a domain prefix |
//!
//! The whole is base64, URL-safe alphabet, without padding.

use model_ids::text::shorten;
use std::{fmt, str::FromStr, sync::Arc};

use base64::{Engine as _, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::DateTime;
use model_ids::{TASK_ID_MAX_LEN, TaskId};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::{error::QueryError, hash::Fnv64, order::SortKey};

/// The token format version this crate writes and reads.
pub const TOKEN_VERSION: u8 = 1;

/// Bytes of a decoded token before the id.
const HEADER_LEN: usize = 1 + 8 + 8 + 4 + 2;
/// Bytes of the checksum at the end.
const CHECKSUM_LEN: usize = 8;
/// Domain prefix of the checksum.
const CHECKSUM_DOMAIN: &[u8] = b"taskmodel.continue.v1";
/// The longest decoded token: header, the longest id, checksum.
const MAX_DECODED_LEN: usize = HEADER_LEN + TASK_ID_MAX_LEN + CHECKSUM_LEN;

/// The longest continuation token accepted, in bytes (383): the encoded length of a
/// token whose id has [`TASK_ID_MAX_LEN`] bytes. Longer input is rejected before it
/// is decoded.
pub const MAX_TOKEN_LEN: usize = (MAX_DECODED_LEN * 4).div_ceil(3);

/// The parameter and field name of a continuation token.
pub(crate) const CONTINUE_FIELD: &str = "continue";

/// An opaque continuation token: where the next page starts, bound to its query.
///
/// A page that has more after it carries one ([`TaskPage::next`](crate::TaskPage)).
/// It holds the last returned [`SortKey`] and a fingerprint of the query's filters
/// and order, and is a URL-safe string (base64 URL-safe alphabet, no padding, at most
/// [`MAX_TOKEN_LEN`] bytes) that needs no escaping in a query string.
///
/// Parsing checks the length before decoding, then the format version, the structure,
/// and a checksum, so a truncated, edited or random string is a typed
/// [`QueryError`], never a panic. Using a token with a query other than the one that
/// issued it is [`QueryError::TokenQueryMismatch`]; the limit may differ.
///
/// **Tamper-evident, not secure.** The checksum and fingerprint are FNV-1a 64, which
/// catches accidental damage and a token pasted into the wrong query, but anyone can
/// decode a token, read the key, and forge a valid one. A token grants nothing: the
/// query itself decides what a caller may see. A server that must hide the key or
/// prove it issued the token should wrap the string (for example encrypt it, or add an
/// HMAC under a server key) and unwrap it before parsing.
///
/// ```
/// use model_query::{ContinueToken, QueryError};
///
/// for bad in ["", "not a token!", "AAAA"] {
///     let err = bad.parse::<ContinueToken>().unwrap_err();
///     assert!(err.is_token_error(), "{err}");
///     assert_eq!(err.field(), Some("continue"));
/// }
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ContinueToken {
    /// The encoded form, as issued or parsed.
    encoded: Arc<str>,
    /// The fingerprint of the query that issued it.
    fingerprint: u64,
    /// The last key returned by the page that issued it.
    after: SortKey,
}

impl ContinueToken {
    /// Encodes a token for the query with `fingerprint`, resuming after `after`.
    pub(crate) fn issue(fingerprint: u64, after: SortKey) -> Self {
        let id = after.id.as_str().as_bytes();
        // A TaskId is at most TASK_ID_MAX_LEN (256) bytes, so its length fits in u16.
        let id_len = u16::try_from(id.len()).unwrap_or(u16::MAX);
        let mut bytes = Vec::with_capacity(HEADER_LEN + id.len() + CHECKSUM_LEN);
        bytes.push(TOKEN_VERSION);
        bytes.extend_from_slice(&fingerprint.to_be_bytes());
        bytes.extend_from_slice(&after.created_at.timestamp().to_be_bytes());
        bytes.extend_from_slice(&after.created_at.timestamp_subsec_nanos().to_be_bytes());
        bytes.extend_from_slice(&id_len.to_be_bytes());
        bytes.extend_from_slice(id);
        let checksum = checksum(&bytes);
        bytes.extend_from_slice(&checksum.to_be_bytes());
        ContinueToken {
            encoded: Arc::from(URL_SAFE_NO_PAD.encode(&bytes)),
            fingerprint,
            after,
        }
    }

    /// Parses a token; errors name the parameter `continue`.
    ///
    /// # Errors
    ///
    /// [`QueryError::TokenEmpty`], [`TokenTooLong`](QueryError::TokenTooLong),
    /// [`TokenEncoding`](QueryError::TokenEncoding),
    /// [`TokenVersion`](QueryError::TokenVersion),
    /// [`TokenMalformed`](QueryError::TokenMalformed) or
    /// [`TokenChecksum`](QueryError::TokenChecksum).
    pub fn parse(input: &str) -> Result<Self, QueryError> {
        Self::parse_for(CONTINUE_FIELD, input)
    }

    /// [`ContinueToken::parse`] with the errors naming `field`.
    pub(crate) fn parse_for(field: &str, input: &str) -> Result<Self, QueryError> {
        let malformed = |reason| QueryError::TokenMalformed {
            field: field.to_owned(),
            input: shorten(input),
            reason,
        };
        if input.is_empty() {
            return Err(QueryError::TokenEmpty {
                field: field.to_owned(),
            });
        }
        if input.len() > MAX_TOKEN_LEN {
            return Err(QueryError::TokenTooLong {
                field: field.to_owned(),
                len: input.len(),
                max: MAX_TOKEN_LEN,
            });
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(input)
            .map_err(|_| QueryError::TokenEncoding {
                field: field.to_owned(),
                input: shorten(input),
            })?;
        let Some((&version, rest)) = bytes.split_first() else {
            return Err(malformed("no bytes"));
        };
        if version != TOKEN_VERSION {
            return Err(QueryError::TokenVersion {
                field: field.to_owned(),
                input: shorten(input),
                version,
            });
        }
        let mut reader = Reader(rest);
        let (Some(fingerprint), Some(secs), Some(nanos), Some(id_len)) = (
            reader.array().map(u64::from_be_bytes),
            reader.array().map(i64::from_be_bytes),
            reader.array().map(u32::from_be_bytes),
            reader.array().map(u16::from_be_bytes),
        ) else {
            return Err(malformed("truncated"));
        };
        let id_len = usize::from(id_len);
        if reader.0.len() != id_len + CHECKSUM_LEN {
            return Err(malformed("length does not match the id length"));
        }
        let checked_len = bytes.len() - CHECKSUM_LEN;
        let (checked, sum) = bytes.split_at(checked_len);
        if sum != checksum(checked).to_be_bytes() {
            return Err(QueryError::TokenChecksum {
                field: field.to_owned(),
                input: shorten(input),
            });
        }
        let created_at =
            DateTime::from_timestamp(secs, nanos).ok_or_else(|| malformed("time out of range"))?;
        let id = checked
            .get(HEADER_LEN..)
            .and_then(|id| std::str::from_utf8(id).ok())
            .and_then(|id| TaskId::new(id).ok())
            .ok_or_else(|| malformed("invalid task id"))?;
        Ok(ContinueToken {
            encoded: Arc::from(input),
            fingerprint,
            after: SortKey::new(created_at, id),
        })
    }

    /// The token as a URL-safe string.
    pub fn as_str(&self) -> &str {
        &self.encoded
    }

    /// The key of the last task of the page that issued this token: the next page
    /// starts strictly after it. A store uses it in its keyset condition (see
    /// `docs/keyset-pagination.md`).
    pub fn after(&self) -> &SortKey {
        &self.after
    }

    /// Whether this token was issued by a query with this fingerprint.
    pub(crate) fn check_fingerprint(
        &self,
        field: &str,
        fingerprint: u64,
    ) -> Result<(), QueryError> {
        if self.fingerprint == fingerprint {
            Ok(())
        } else {
            Err(QueryError::TokenQueryMismatch {
                field: field.to_owned(),
                input: shorten(&self.encoded),
            })
        }
    }
}

/// The checksum of a token's bytes (everything before the checksum).
fn checksum(bytes: &[u8]) -> u64 {
    let mut hasher = Fnv64::with_domain(CHECKSUM_DOMAIN);
    hasher.bytes(bytes);
    hasher.finish()
}

/// Reads fixed-size arrays from the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    /// The next `N` bytes, or `None` if fewer are left.
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, tail) = self.0.split_first_chunk::<N>()?;
        self.0 = tail;
        Some(*head)
    }
}

impl fmt::Debug for ContinueToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ContinueToken")
            .field(&&*self.encoded)
            .finish()
    }
}

impl fmt::Display for ContinueToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.encoded)
    }
}

impl FromStr for ContinueToken {
    type Err = QueryError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ContinueToken::parse(s)
    }
}

impl AsRef<str> for ContinueToken {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Serialize for ContinueToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ContinueToken {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = ContinueToken;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a continuation token of at most {MAX_TOKEN_LEN} bytes")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ContinueToken, E> {
                ContinueToken::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests;
