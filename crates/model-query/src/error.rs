//! `QueryError`, the one error type of this crate.

use chrono::{DateTime, Utc};
use model_ids::{ErrorKind, IdError};
use model_selector::SelectorError;
use model_task::TaskError;

/// Why a query, a query parameter or a continuation token was rejected.
///
/// Every variant names the parameter or field that failed ([`QueryError::field`]): the
/// URL parameter name for [`TaskQuery::from_pairs`](crate::TaskQuery::from_pairs), the
/// camelCase JSON field otherwise (the two use the same names, except `phase`, which is
/// `phases[i]` in JSON). A caller embedding a query in a larger value can prefix it.
/// Quoted inputs are shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters.
///
/// ```
/// use model_query::{QueryError, TaskQuery};
///
/// let err = TaskQuery::from_pairs([("limit", "1001")]).unwrap_err();
/// assert!(matches!(err, QueryError::LimitOutOfRange { .. }));
/// assert_eq!(err.field(), Some("limit"));
/// assert_eq!(err.to_string(), r#"limit: "1001" is out of range (1 to 1000)"#);
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// A limit of zero, below zero or above [`MAX_LIMIT`](crate::MAX_LIMIT).
    #[error("{field}: {input:?} is out of range (1 to {max})")]
    #[non_exhaustive]
    LimitOutOfRange {
        /// The parameter or field.
        field: String,
        /// The value as given, shortened if long.
        input: String,
        /// The largest allowed limit.
        max: u32,
    },

    /// A value that does not have the expected form (a limit that is not an integer, an
    /// order that is not `asc` or `desc`, a time that is not RFC 3339).
    #[error("{field}: invalid value {input:?}, expected {expected}")]
    #[non_exhaustive]
    InvalidValue {
        /// The parameter or field.
        field: String,
        /// The value as given, shortened if long.
        input: String,
        /// What the value must look like.
        expected: &'static str,
    },

    /// The slot is not a valid [`Slot`](model_ids::Slot); the source says why.
    #[error("{field}: invalid slot")]
    #[non_exhaustive]
    InvalidSlot {
        /// The parameter or field.
        field: String,
        /// Why the slot is invalid.
        #[source]
        source: IdError,
    },

    /// The label selector does not parse; the source says where and why.
    #[error("{field}: invalid label selector")]
    #[non_exhaustive]
    InvalidSelector {
        /// The parameter or field.
        field: String,
        /// Why the selector is invalid.
        #[source]
        source: SelectorError,
    },

    /// A string that names no task phase; the source lists the phases.
    #[error("{field}: invalid task phase")]
    #[non_exhaustive]
    InvalidPhase {
        /// The parameter or field (`phase` in a URL, `phases[i]` in JSON).
        field: String,
        /// Why the phase is invalid.
        #[source]
        source: TaskError,
    },

    /// More phase values than [`MAX_PHASES`](crate::MAX_PHASES).
    #[error("{field}: more than {max} phases")]
    #[non_exhaustive]
    TooManyPhases {
        /// The parameter or field.
        field: String,
        /// The maximum number of phase values.
        max: usize,
    },

    /// More attempt state values than [`MAX_STATES`](crate::MAX_STATES).
    #[error("{field}: more than {max} states")]
    #[non_exhaustive]
    TooManyStates {
        /// The parameter or field.
        field: String,
        /// The maximum number of state values.
        max: usize,
    },

    /// An identifier (a tenant, a task or a runner) is invalid; the source says why.
    #[error("{field}: invalid identifier")]
    #[non_exhaustive]
    InvalidId {
        /// The parameter or field.
        field: String,
        /// Why the identifier is invalid.
        #[source]
        source: IdError,
    },

    /// A required parameter or field is missing: a query names its tenant (and a run query
    /// its task).
    #[error("{field}: required")]
    #[non_exhaustive]
    MissingParameter {
        /// The parameter or field.
        field: String,
    },

    /// A time range whose start is not before its end, so it could match nothing.
    #[error("{field}: empty time range, {since} is not before {before}")]
    #[non_exhaustive]
    EmptyTimeRange {
        /// The field holding the end of the range (`createdBefore` or `updatedBefore`).
        field: String,
        /// The inclusive start.
        since: DateTime<Utc>,
        /// The exclusive end.
        before: DateTime<Utc>,
    },

    /// A URL query parameter this crate does not know.
    #[error("{field:?}: unknown parameter (expected one of {expected})")]
    #[non_exhaustive]
    UnknownParameter {
        /// The parameter name, shortened if long.
        field: String,
        /// The accepted names.
        expected: &'static str,
    },

    /// A URL query parameter given more than once (only `phase` may repeat).
    #[error("{field}: given more than once")]
    #[non_exhaustive]
    DuplicateParameter {
        /// The parameter name.
        field: String,
    },

    /// More URL query pairs than [`MAX_QUERY_PAIRS`](crate::MAX_QUERY_PAIRS).
    #[error("more than {max} query parameters")]
    #[non_exhaustive]
    TooManyParameters {
        /// The maximum number of pairs.
        max: usize,
    },

    /// A value longer than [`MAX_VALUE_LEN`](crate::MAX_VALUE_LEN) bytes.
    #[error("{field}: value too long ({len} bytes, maximum {max})")]
    #[non_exhaustive]
    ValueTooLong {
        /// The parameter or field.
        field: String,
        /// The length of the value in bytes.
        len: usize,
        /// The maximum length in bytes.
        max: usize,
    },

    /// An empty continuation token.
    #[error("{field}: empty continuation token")]
    #[non_exhaustive]
    TokenEmpty {
        /// The parameter or field.
        field: String,
    },

    /// A continuation token longer than [`MAX_TOKEN_LEN`](crate::MAX_TOKEN_LEN); it was
    /// not decoded.
    #[error("{field}: continuation token too long ({len} bytes, maximum {max})")]
    #[non_exhaustive]
    TokenTooLong {
        /// The parameter or field.
        field: String,
        /// The length of the token in bytes.
        len: usize,
        /// The maximum length in bytes.
        max: usize,
    },

    /// A continuation token that is not URL-safe base64 without padding.
    #[error("{field}: continuation token {input:?} is not URL-safe base64")]
    #[non_exhaustive]
    TokenEncoding {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
    },

    /// A continuation token whose bytes do not have the token's structure (truncated,
    /// wrong length, a time or id out of range).
    #[error("{field}: continuation token {input:?} is malformed ({reason})")]
    #[non_exhaustive]
    TokenMalformed {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A continuation token of a format version this crate does not read.
    #[error("{field}: continuation token {input:?} has unsupported version {version}")]
    #[non_exhaustive]
    TokenVersion {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
        /// The version byte found.
        version: u8,
    },

    /// A continuation token whose checksum does not match its contents: it was edited
    /// or damaged.
    #[error("{field}: continuation token {input:?} fails its checksum (edited or damaged)")]
    #[non_exhaustive]
    TokenChecksum {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
    },

    /// A well-formed continuation token of another listing: a task listing's token given to
    /// a run-history query, or the reverse.
    #[error(
        "{field}: continuation token {input:?} belongs to a listing of {found}, not of {expected}"
    )]
    #[non_exhaustive]
    TokenListingMismatch {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
        /// The listing of the query it was given to (`tasks` or `task runs`).
        expected: &'static str,
        /// The listing that issued it.
        found: &'static str,
    },

    /// A well-formed continuation token that was issued for a different query (other
    /// filters or order). The limit may change between pages; nothing else may.
    #[error("{field}: continuation token {input:?} belongs to a different query")]
    #[non_exhaustive]
    TokenQueryMismatch {
        /// The parameter or field.
        field: String,
        /// The token, shortened.
        input: String,
    },
}

impl QueryError {
    /// The category of this error: [`ErrorKind::UnknownTaskPhase`] for a phase name that
    /// names no phase (as when a phase is parsed alone), [`ErrorKind::Invalid`] for
    /// everything else, continuation tokens included (empty, damaged, or issued for another
    /// query): an input to fix.
    ///
    /// ```
    /// use model_ids::ErrorKind;
    /// use model_query::TaskQuery;
    ///
    /// let err = TaskQuery::from_pairs([("phase", "sleeping")]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnknownTaskPhase);
    /// let err = TaskQuery::from_pairs([("limit", "0")]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Invalid);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            // The source is a failed `TaskPhase` parse; model-task classifies it.
            QueryError::InvalidPhase { source, .. } => source.kind(),
            QueryError::LimitOutOfRange { .. }
            | QueryError::InvalidValue { .. }
            | QueryError::InvalidSlot { .. }
            | QueryError::InvalidSelector { .. }
            | QueryError::TooManyPhases { .. }
            | QueryError::TooManyStates { .. }
            | QueryError::InvalidId { .. }
            | QueryError::MissingParameter { .. }
            | QueryError::EmptyTimeRange { .. }
            | QueryError::UnknownParameter { .. }
            | QueryError::DuplicateParameter { .. }
            | QueryError::TooManyParameters { .. }
            | QueryError::ValueTooLong { .. }
            | QueryError::TokenEmpty { .. }
            | QueryError::TokenTooLong { .. }
            | QueryError::TokenEncoding { .. }
            | QueryError::TokenMalformed { .. }
            | QueryError::TokenVersion { .. }
            | QueryError::TokenChecksum { .. }
            | QueryError::TokenListingMismatch { .. }
            | QueryError::TokenQueryMismatch { .. } => ErrorKind::Invalid,
        }
    }

    /// The parameter or field that failed, or `None` for an error about the whole input
    /// ([`QueryError::TooManyParameters`]).
    pub fn field(&self) -> Option<&str> {
        match self {
            QueryError::LimitOutOfRange { field, .. }
            | QueryError::InvalidValue { field, .. }
            | QueryError::InvalidSlot { field, .. }
            | QueryError::InvalidSelector { field, .. }
            | QueryError::InvalidPhase { field, .. }
            | QueryError::TooManyPhases { field, .. }
            | QueryError::TooManyStates { field, .. }
            | QueryError::InvalidId { field, .. }
            | QueryError::MissingParameter { field }
            | QueryError::EmptyTimeRange { field, .. }
            | QueryError::UnknownParameter { field, .. }
            | QueryError::DuplicateParameter { field }
            | QueryError::ValueTooLong { field, .. }
            | QueryError::TokenEmpty { field }
            | QueryError::TokenTooLong { field, .. }
            | QueryError::TokenEncoding { field, .. }
            | QueryError::TokenMalformed { field, .. }
            | QueryError::TokenVersion { field, .. }
            | QueryError::TokenChecksum { field, .. }
            | QueryError::TokenListingMismatch { field, .. }
            | QueryError::TokenQueryMismatch { field, .. } => Some(field),
            QueryError::TooManyParameters { .. } => None,
        }
    }

    /// Whether this error is about a continuation token (any `Token*` variant).
    pub fn is_token_error(&self) -> bool {
        matches!(
            self,
            QueryError::TokenEmpty { .. }
                | QueryError::TokenTooLong { .. }
                | QueryError::TokenEncoding { .. }
                | QueryError::TokenMalformed { .. }
                | QueryError::TokenVersion { .. }
                | QueryError::TokenChecksum { .. }
                | QueryError::TokenListingMismatch { .. }
                | QueryError::TokenQueryMismatch { .. }
        )
    }
}

#[cfg(test)]
mod tests;
