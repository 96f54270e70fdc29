//! `IdError`, the one error type of this crate.

use crate::{error_kind::ErrorKind, id::IdKind, text::shorten};

/// Why a string is not a valid identifier or base-36 slug.
///
/// Every variant says which [`IdKind`] was checked ([`IdError::kind`]) and, except
/// [`IdError::Empty`], quotes the input ([`IdError::input`]), shortened to
/// [`ERROR_INPUT_MAX_CHARS`](crate::ERROR_INPUT_MAX_CHARS) characters plus `…` when longer. Messages are lowercase and
/// quote the input with Rust string escapes, so control characters stay visible:
///
/// ```
/// use model_ids::{IdError, IdKind, Slot};
///
/// let err = Slot::new("a b").unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"invalid slot "a b": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ -)"#
/// );
/// assert_eq!(err.id_kind(), IdKind::Slot);
/// assert!(matches!(err, IdError::InvalidChar { ch: ' ', index: 1, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    /// The input is the empty string.
    #[error("invalid {kind} \"\": empty")]
    #[non_exhaustive]
    Empty {
        /// The kind of identifier checked.
        kind: IdKind,
    },

    /// The input is longer than the kind allows.
    #[error("invalid {kind} {input:?}: too long ({len} bytes, maximum {max})")]
    #[non_exhaustive]
    TooLong {
        /// The kind of identifier checked.
        kind: IdKind,
        /// The input, shortened if long.
        input: String,
        /// The length of the input in bytes.
        len: usize,
        /// The maximum length in bytes.
        max: usize,
    },

    /// The input holds a character the kind does not allow; this is the first one.
    #[error(
        "invalid {kind} {input:?}: invalid character {ch:?} at byte {index} (allowed: {allowed})",
        allowed = kind.allowed()
    )]
    #[non_exhaustive]
    InvalidChar {
        /// The kind of identifier checked.
        kind: IdKind,
        /// The input, shortened if long.
        input: String,
        /// The first character that is not allowed.
        ch: char,
        /// Its byte offset in the input.
        index: usize,
    },

    /// The input is `.` or `..`, which would name a directory in a path.
    #[error("invalid {kind} {input:?}: reserved name (\".\" and \"..\" are not allowed)")]
    #[non_exhaustive]
    Reserved {
        /// The kind of identifier checked.
        kind: IdKind,
        /// The input (`.` or `..`).
        input: String,
    },

    /// An input of a fixed-length kind ([`IdKind::ActionId`], [`IdKind::Uid`]) that is not
    /// that length.
    #[error("invalid {kind} {input:?}: wrong length ({len} bytes, expected {expected})")]
    #[non_exhaustive]
    WrongLength {
        /// The kind of identifier checked.
        kind: IdKind,
        /// The input, shortened if long.
        input: String,
        /// The length of the input in bytes.
        len: usize,
        /// The one length the kind allows, in bytes.
        expected: usize,
    },

    /// A base-36 slug whose value does not fit in a `u64`.
    #[error("invalid {kind} {input:?}: out of range (maximum {max})", max = crate::id::BASE36_U64_MAX)]
    #[non_exhaustive]
    Overflow {
        /// The kind checked (always [`IdKind::Base36Slug`] today).
        kind: IdKind,
        /// The input, shortened if long.
        input: String,
    },
}

impl IdError {
    /// The category of this error: always [`ErrorKind::Invalid`], an identifier to fix.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            IdError::Empty { .. }
            | IdError::TooLong { .. }
            | IdError::InvalidChar { .. }
            | IdError::Reserved { .. }
            | IdError::WrongLength { .. }
            | IdError::Overflow { .. } => ErrorKind::Invalid,
        }
    }

    /// The kind of identifier that failed the check.
    pub fn id_kind(&self) -> IdKind {
        match self {
            IdError::Empty { kind }
            | IdError::TooLong { kind, .. }
            | IdError::InvalidChar { kind, .. }
            | IdError::Reserved { kind, .. }
            | IdError::WrongLength { kind, .. }
            | IdError::Overflow { kind, .. } => *kind,
        }
    }

    /// The offending input, shortened to [`ERROR_INPUT_MAX_CHARS`](crate::ERROR_INPUT_MAX_CHARS) characters plus `…`
    /// when longer (`""` for [`IdError::Empty`]).
    pub fn input(&self) -> &str {
        match self {
            IdError::Empty { .. } => "",
            IdError::TooLong { input, .. }
            | IdError::InvalidChar { input, .. }
            | IdError::Reserved { input, .. }
            | IdError::WrongLength { input, .. }
            | IdError::Overflow { input, .. } => input,
        }
    }

    pub(crate) fn empty(kind: IdKind) -> Self {
        IdError::Empty { kind }
    }

    pub(crate) fn too_long(kind: IdKind, input: &str, max: usize) -> Self {
        IdError::TooLong {
            kind,
            input: shorten(input),
            len: input.len(),
            max,
        }
    }

    /// `index` is the byte offset of the first byte that is not allowed. Every allowed
    /// byte is ASCII, so `index` starts a character.
    pub(crate) fn invalid_char(kind: IdKind, input: &str, index: usize) -> Self {
        let ch = input
            .get(index..)
            .and_then(|rest| rest.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        IdError::InvalidChar {
            kind,
            input: shorten(input),
            ch,
            index,
        }
    }

    pub(crate) fn reserved(kind: IdKind, input: &str) -> Self {
        IdError::Reserved {
            kind,
            input: shorten(input),
        }
    }

    pub(crate) fn wrong_length(kind: IdKind, input: &str, expected: usize) -> Self {
        IdError::WrongLength {
            kind,
            input: shorten(input),
            len: input.len(),
            expected,
        }
    }

    pub(crate) fn overflow(kind: IdKind, input: &str) -> Self {
        IdError::Overflow {
            kind,
            input: shorten(input),
        }
    }
}

#[cfg(test)]
mod tests;
