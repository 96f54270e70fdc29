//! `ErrorKind`: the category every layer's error falls into, and `ErrorCode`, the code of
//! the API error envelope each category maps to.
//!
//! The mapping lives here, beside the enum, so that its `match` is exhaustive: `ErrorKind`
//! is `#[non_exhaustive]` for every other crate, and a kind added here does not compile
//! until it has a code.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// The category of an error of any taskmodel layer: what a caller branches on.
///
/// Every layer's error has a `kind()` that gives it; the facade's `Error::kind` forwards
/// to the layer. The enum lives in the lowest layer so that each layer classifies its own
/// errors.
///
/// The first four name the unknown-name errors of text forms; the rest are what a caller
/// branches on: fix the input ([`Invalid`](Self::Invalid), [`InvalidTransition`](Self::InvalidTransition)),
/// re-read and retry ([`Conflict`](Self::Conflict)), give up on a stale handle ([`Gone`](Self::Gone)),
/// look elsewhere ([`NotFound`](Self::NotFound)), authenticate ([`Unauthorized`](Self::Unauthorized)),
/// ask for a permission ([`Forbidden`](Self::Forbidden)), or report a fault
/// ([`Internal`](Self::Internal)). [`ErrorKind::code`] gives the API envelope's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An admission policy name is not one of the known ones.
    UnknownAdmission,
    /// A restart policy name is not one of the known ones.
    UnknownRestart,
    /// A jitter policy name is not one of the known ones.
    UnknownJitter,
    /// A task phase name is not one of the known ones.
    UnknownTaskPhase,
    /// A value breaks a validation rule (a field is malformed, missing, too long or out of range).
    Invalid,
    /// A write lost a race: a resource version mismatch, or a different result for an attempt
    /// that already has one. Re-read and decide again.
    Conflict,
    /// A phase or attempt-state change the lifecycle does not allow.
    InvalidTransition,
    /// The call names something that no longer holds, such as a stale lease.
    Gone,
    /// The call names something that does not exist, such as an unknown runner.
    NotFound,
    /// The caller did not say who it is, or its credentials do not hold.
    Unauthorized,
    /// The caller is known but may not do this (an access check denied it).
    Forbidden,
    /// A fault of the system, not of the input: a broken invariant or an unavailable store.
    Internal,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::UnknownAdmission,
        ErrorKind::UnknownRestart,
        ErrorKind::UnknownJitter,
        ErrorKind::UnknownTaskPhase,
        ErrorKind::Invalid,
        ErrorKind::Conflict,
        ErrorKind::InvalidTransition,
        ErrorKind::Gone,
        ErrorKind::NotFound,
        ErrorKind::Unauthorized,
        ErrorKind::Forbidden,
        ErrorKind::Internal,
    ];

    /// The code of the API error envelope for this kind.
    ///
    /// Input to fix is `invalid_request`; a lifecycle change that is not allowed is a
    /// `conflict` with the resource's current state, as a lost race is; a stale handle is
    /// `gone`; the other four have a code of their own.
    ///
    /// ```
    /// use model_ids::{ErrorCode, ErrorKind};
    ///
    /// assert_eq!(ErrorKind::UnknownRestart.code(), ErrorCode::InvalidRequest);
    /// assert_eq!(ErrorKind::InvalidTransition.code(), ErrorCode::Conflict);
    /// assert_eq!(ErrorKind::Gone.code().http_status(), 410);
    /// ```
    #[must_use]
    pub const fn code(self) -> ErrorCode {
        match self {
            ErrorKind::UnknownAdmission
            | ErrorKind::UnknownRestart
            | ErrorKind::UnknownJitter
            | ErrorKind::UnknownTaskPhase
            | ErrorKind::Invalid => ErrorCode::InvalidRequest,
            ErrorKind::Conflict | ErrorKind::InvalidTransition => ErrorCode::Conflict,
            ErrorKind::Gone => ErrorCode::Gone,
            ErrorKind::NotFound => ErrorCode::NotFound,
            ErrorKind::Unauthorized => ErrorCode::Unauthorized,
            ErrorKind::Forbidden => ErrorCode::Forbidden,
            ErrorKind::Internal => ErrorCode::Internal,
        }
    }
}

/// The code of the API error envelope (`{"error":{"code":"conflict","message":"..."}}`),
/// written in snake case, with the HTTP status that goes with it.
///
/// | code | HTTP status |
/// | --- | --- |
/// | `invalid_request` | 400 |
/// | `unauthorized` | 401 |
/// | `forbidden` | 403 |
/// | `not_found` | 404 |
/// | `conflict` | 409 |
/// | `gone` | 410 |
/// | `internal` | 500 |
///
/// ```
/// use model_ids::ErrorCode;
///
/// assert_eq!(ErrorCode::NotFound.as_str(), "not_found");
/// assert_eq!(ErrorCode::NotFound.http_status(), 404);
/// assert_eq!(ErrorCode::from_name("gone"), Some(ErrorCode::Gone));
/// assert_eq!(ErrorCode::from_name("teapot"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `invalid_request` (400): the request breaks a rule; fix it.
    InvalidRequest,
    /// `unauthorized` (401): no identity, or credentials that do not hold.
    Unauthorized,
    /// `forbidden` (403): the identity may not do this.
    Forbidden,
    /// `not_found` (404): the request names something that does not exist.
    NotFound,
    /// `conflict` (409): the resource's state does not allow it, or a write lost a race.
    Conflict,
    /// `gone` (410): the request names something that no longer holds, such as a stale lease.
    Gone,
    /// `internal` (500): a fault of the system.
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 7] = [
        ErrorCode::InvalidRequest,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Gone,
        ErrorCode::Internal,
    ];

    /// The code as the envelope writes it: `invalid_request`, `unauthorized`, `forbidden`,
    /// `not_found`, `conflict`, `gone` or `internal`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Gone => "gone",
            ErrorCode::Internal => "internal",
        }
    }

    /// The HTTP status code of a response with this error.
    #[must_use]
    pub const fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidRequest => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::Gone => 410,
            ErrorCode::Internal => 500,
        }
    }

    /// The code written `name` ([`as_str`](Self::as_str)), or `None` for any other text.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|code| code.as_str() == name)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl de::Visitor<'_> for Name {
            type Value = ErrorCode;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error code")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<ErrorCode, E> {
                ErrorCode::from_name(name).ok_or_else(|| {
                    E::custom(format_args!(
                        "unknown error code {}, expected one of invalid_request, unauthorized, \
                         forbidden, not_found, conflict, gone, internal",
                        crate::text::quote(name)
                    ))
                })
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "model_ids::ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
        schemars::json_schema!({
            "description": "The code of an API error: what the caller branches on.",
            "type": "string",
            "enum": codes,
        })
    }
}

#[cfg(test)]
mod tests;
