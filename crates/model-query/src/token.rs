//! Continuation tokens: the opaque, URL-safe, tamper-evident bookmark between two pages,
//! one machinery for both listings: [`ContinueToken`] for task pages and
//! [`RunContinueToken`] for run-history pages.
//!
//! Layout of the decoded bytes (format version 2, integers big-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 1 | format version (2) |
//! | 1 | listing: 1 for tasks, 2 for task runs |
//! | 8 | fingerprint of the query (filters and order, not the limit) |
//! | k | the last key of the page: see below |
//! | 8 | FNV-1a 64 checksum over everything above, with a domain prefix |
//!
//! The key of a task page is the creation time as seconds since the Unix epoch (i64) and
//! nanoseconds (u32), then the id's length (u16) and the id (UTF-8); the key of a run page is
//! the attempt number (u32). The whole is base64, URL-safe alphabet, without padding.

use std::{fmt, str::FromStr, sync::Arc};

use base64::{Engine as _, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::DateTime;
use model_ids::text::shorten;
use model_ids::{TASK_ID_MAX_LEN, TaskId};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::{error::QueryError, hash::Fnv64, order::SortKey};

/// The token format version this crate writes and reads.
pub const TOKEN_VERSION: u8 = 2;

/// Bytes of a decoded token before the key: version, listing, fingerprint.
const HEADER_LEN: usize = 1 + 1 + 8;
/// Bytes of the checksum at the end.
const CHECKSUM_LEN: usize = 8;
/// Domain prefix of the checksum.
const CHECKSUM_DOMAIN: &[u8] = b"taskmodel.continue.v2";
/// Bytes of a task key before its id: seconds, nanoseconds, id length.
const TASK_KEY_FIXED_LEN: usize = 8 + 4 + 2;
/// The longest decoded token: a task token with the longest id (run tokens are shorter).
const MAX_DECODED_LEN: usize = HEADER_LEN + TASK_KEY_FIXED_LEN + TASK_ID_MAX_LEN + CHECKSUM_LEN;

/// The longest continuation token accepted, of either listing, in bytes (384): the encoded
/// length of a task token whose id has [`TASK_ID_MAX_LEN`] bytes. Longer input is rejected
/// before it is decoded.
pub const MAX_TOKEN_LEN: usize = (MAX_DECODED_LEN * 4).div_ceil(3);

/// The parameter and field name of a continuation token.
pub(crate) const CONTINUE_FIELD: &str = "continue";

/// The key of the last item of a page, as a token of one listing writes and reads it.
pub(crate) trait PageKey: Sized {
    /// The listing's byte in the token.
    const LISTING: u8;
    /// The listing's name, for errors.
    const NAME: &'static str;
    /// Appends the key's bytes.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads a key from exactly `bytes`, or says what is wrong with them.
    fn decode(bytes: &[u8]) -> Result<Self, &'static str>;
}

/// The listing name of a listing byte, for errors.
fn listing_name(listing: u8) -> Option<&'static str> {
    match listing {
        SortKey::LISTING => Some(SortKey::NAME),
        RunKey::LISTING => Some(RunKey::NAME),
        _ => None,
    }
}

impl PageKey for SortKey {
    const LISTING: u8 = 1;
    const NAME: &'static str = "tasks";

    fn encode(&self, out: &mut Vec<u8>) {
        let id = self.id.as_str().as_bytes();
        // A TaskId is at most TASK_ID_MAX_LEN (256) bytes, so its length fits in u16.
        let id_len = u16::try_from(id.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&self.created_at.timestamp().to_be_bytes());
        out.extend_from_slice(&self.created_at.timestamp_subsec_nanos().to_be_bytes());
        out.extend_from_slice(&id_len.to_be_bytes());
        out.extend_from_slice(id);
    }

    fn decode(bytes: &[u8]) -> Result<Self, &'static str> {
        let mut reader = Reader(bytes);
        let (Some(secs), Some(nanos), Some(id_len)) = (
            reader.array().map(i64::from_be_bytes),
            reader.array().map(u32::from_be_bytes),
            reader.array().map(u16::from_be_bytes),
        ) else {
            return Err("truncated");
        };
        if reader.0.len() != usize::from(id_len) {
            return Err("length does not match the id length");
        }
        let created_at = DateTime::from_timestamp(secs, nanos).ok_or("time out of range")?;
        let id = std::str::from_utf8(reader.0)
            .ok()
            .and_then(|id| TaskId::new(id).ok())
            .ok_or("invalid task id")?;
        Ok(SortKey::new(created_at, id))
    }
}

/// The key of a run page: the attempt number of its last run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RunKey(pub(crate) u32);

impl PageKey for RunKey {
    const LISTING: u8 = 2;
    const NAME: &'static str = "task runs";

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_be_bytes());
    }

    fn decode(bytes: &[u8]) -> Result<Self, &'static str> {
        let attempt: [u8; 4] = bytes.try_into().map_err(|_| "wrong length")?;
        match u32::from_be_bytes(attempt) {
            0 => Err("attempt zero"),
            attempt => Ok(RunKey(attempt)),
        }
    }
}

/// A token of one listing: its text, the fingerprint of the query that issued it, and the
/// last key of the page that issued it. Both public token types are this.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Cursor<K> {
    /// The encoded form, as issued or parsed.
    encoded: Arc<str>,
    fingerprint: u64,
    after: K,
}

impl<K: PageKey> Cursor<K> {
    /// Encodes a token for the query with `fingerprint`, resuming after `after`.
    fn issue(fingerprint: u64, after: K) -> Self {
        let mut bytes = Vec::with_capacity(MAX_DECODED_LEN);
        bytes.push(TOKEN_VERSION);
        bytes.push(K::LISTING);
        bytes.extend_from_slice(&fingerprint.to_be_bytes());
        after.encode(&mut bytes);
        let checksum = checksum(&bytes);
        bytes.extend_from_slice(&checksum.to_be_bytes());
        Cursor {
            encoded: Arc::from(URL_SAFE_NO_PAD.encode(&bytes)),
            fingerprint,
            after,
        }
    }

    /// Parses a token of this listing; errors name `field`.
    fn parse(field: &str, input: &str) -> Result<Self, QueryError> {
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
        let (Some([listing]), Some(fingerprint)) =
            (reader.array::<1>(), reader.array().map(u64::from_be_bytes))
        else {
            return Err(malformed("truncated"));
        };
        let Some(key_len) = reader.0.len().checked_sub(CHECKSUM_LEN) else {
            return Err(malformed("truncated"));
        };
        let (checked, sum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
        if sum != checksum(checked).to_be_bytes() {
            return Err(QueryError::TokenChecksum {
                field: field.to_owned(),
                input: shorten(input),
            });
        }
        if listing != K::LISTING {
            return Err(match listing_name(listing) {
                Some(found) => QueryError::TokenListingMismatch {
                    field: field.to_owned(),
                    input: shorten(input),
                    expected: K::NAME,
                    found,
                },
                None => malformed("unknown listing"),
            });
        }
        let key = reader.0.get(..key_len).unwrap_or_default();
        let after = K::decode(key).map_err(malformed)?;
        Ok(Cursor {
            encoded: Arc::from(input),
            fingerprint,
            after,
        })
    }

    /// Whether this token was issued by a query with this fingerprint.
    fn check_fingerprint(&self, field: &str, fingerprint: u64) -> Result<(), QueryError> {
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

/// An opaque continuation token of a task listing: where the next page starts, bound to its
/// query.
///
/// A page that has more after it carries one ([`TaskPage::next`](crate::TaskPage)).
/// It holds the last returned [`SortKey`] and a fingerprint of the query's filters
/// and order, and is a URL-safe string (base64 URL-safe alphabet, no padding, at most
/// [`MAX_TOKEN_LEN`] bytes) that needs no escaping in a query string.
///
/// Parsing checks the length before decoding, then the format version, the structure,
/// a checksum, and the listing, so a truncated, edited or random string, or a token of a
/// run-history page ([`RunContinueToken`]), is a typed [`QueryError`], never a panic. Using
/// a token with a query other than the one that issued it is
/// [`QueryError::TokenQueryMismatch`]; the limit may differ.
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
pub struct ContinueToken(Cursor<SortKey>);

impl ContinueToken {
    /// Encodes a token for the task query with `fingerprint`, resuming after `after`.
    pub(crate) fn issue(fingerprint: u64, after: SortKey) -> Self {
        Self(Cursor::issue(fingerprint, after))
    }

    /// [`ContinueToken::parse`] with the errors naming `field`.
    pub(crate) fn parse_for(field: &str, input: &str) -> Result<Self, QueryError> {
        Cursor::parse(field, input).map(Self)
    }

    /// The key of the last task of the page that issued this token: the next page
    /// starts strictly after it. A store uses it in its keyset condition (see
    /// `docs/keyset-pagination.md`).
    pub fn after(&self) -> &SortKey {
        &self.0.after
    }
}

/// An opaque continuation token of a run-history listing ([`TaskRunQuery`](crate::TaskRunQuery)):
/// the same machinery, format and guarantees as [`ContinueToken`], with the attempt number of
/// the page's last run as its key. A task listing's token is refused here, and this one by a
/// task listing ([`QueryError::TokenListingMismatch`]).
///
/// ```
/// use model_query::{QueryError, RunContinueToken};
///
/// let err = "".parse::<RunContinueToken>().unwrap_err();
/// assert!(matches!(err, QueryError::TokenEmpty { .. }));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RunContinueToken(Cursor<RunKey>);

impl RunContinueToken {
    /// Encodes a token for the run query with `fingerprint`, resuming after `attempt`.
    pub(crate) fn issue(fingerprint: u64, attempt: u32) -> Self {
        Self(Cursor::issue(fingerprint, RunKey(attempt)))
    }

    /// [`RunContinueToken::parse`] with the errors naming `field`.
    pub(crate) fn parse_for(field: &str, input: &str) -> Result<Self, QueryError> {
        Cursor::parse(field, input).map(Self)
    }

    /// The attempt number of the last run of the page that issued this token: the next page
    /// starts strictly after it, in the query's order.
    pub fn after(&self) -> u32 {
        self.0.after.0
    }
}

/// The methods and traits both token types share, by delegation to their [`Cursor`].
macro_rules! token_api {
    ($ty:ident) => {
        impl $ty {
            /// Parses a token; errors name the parameter `continue`.
            ///
            /// # Errors
            ///
            /// [`QueryError::TokenEmpty`], [`TokenTooLong`](QueryError::TokenTooLong),
            /// [`TokenEncoding`](QueryError::TokenEncoding),
            /// [`TokenVersion`](QueryError::TokenVersion),
            /// [`TokenMalformed`](QueryError::TokenMalformed),
            /// [`TokenChecksum`](QueryError::TokenChecksum) or
            /// [`TokenListingMismatch`](QueryError::TokenListingMismatch).
            pub fn parse(input: &str) -> Result<Self, QueryError> {
                Self::parse_for(CONTINUE_FIELD, input)
            }

            /// The token as a URL-safe string.
            pub fn as_str(&self) -> &str {
                &self.0.encoded
            }

            /// Whether this token was issued by a query with this fingerprint.
            pub(crate) fn check_fingerprint(
                &self,
                field: &str,
                fingerprint: u64,
            ) -> Result<(), QueryError> {
                self.0.check_fingerprint(field, fingerprint)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($ty))
                    .field(&self.as_str())
                    .finish()
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = QueryError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl AsRef<str> for $ty {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visitor;
                impl de::Visitor<'_> for Visitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a continuation token of at most {MAX_TOKEN_LEN} bytes")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        $ty::parse(v).map_err(E::custom)
                    }
                }
                deserializer.deserialize_str(Visitor)
            }
        }
    };
}

token_api!(ContinueToken);
token_api!(RunContinueToken);

#[cfg(test)]
mod tests;
