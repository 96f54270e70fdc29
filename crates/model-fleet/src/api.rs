//! The API error envelope: [`ApiError`], `{"error":{"code":"conflict","message":"..."}}`,
//! with the [`ErrorCode`] every [`ErrorKind`] maps to and its HTTP status.

use std::fmt;

pub use model_ids::ErrorCode;
use model_ids::ErrorKind;
use serde::{Deserialize, Serialize, Serializer, ser::SerializeStruct};

use crate::error::FleetError;

/// The longest message an [`ApiError`] carries, in bytes; a longer one is cut on a
/// character boundary when an error is made, and refused when one is read.
pub const MAX_API_ERROR_MESSAGE_BYTES: usize = 4_096;

/// An error as an API answers it: a code the caller branches on and a message for people,
/// written `{"error":{"code":"conflict","message":"..."}}`, and sent with
/// [`http_status`](Self::http_status).
///
/// Every taskmodel error becomes one through its kind: [`ApiError::for_kind`] takes
/// `error.kind()` and the error's text ([`ErrorKind::code`] maps each kind to its code). The
/// codes are `invalid_request` (400), `unauthorized` (401), `forbidden` (403), `not_found`
/// (404), `conflict` (409), `gone` (410) and `internal` (500).
///
/// Reading checks the envelope: both fields present, a known code, a message of at most
/// [`MAX_API_ERROR_MESSAGE_BYTES`], nothing else.
///
/// ```
/// use model_fleet::{ApiError, ErrorCode, Fleet, LivenessTtl};
/// use model_ids::RunnerId;
///
/// let mut fleet = Fleet::new(LivenessTtl::default());
/// let err = fleet.drain(&RunnerId::new("r9")?).unwrap_err();
/// let answer = ApiError::for_kind(err.kind(), err.to_string());
/// assert_eq!(answer.code(), ErrorCode::NotFound);
/// assert_eq!(answer.http_status(), 404);
/// assert_eq!(
///     serde_json::to_string(&answer)?,
///     r#"{"error":{"code":"not_found","message":"runner \"r9\" is not registered"}}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "ApiErrorRaw")]
pub struct ApiError {
    code: ErrorCode,
    message: String,
}

impl ApiError {
    /// An error with `code` and `message`, cut to [`MAX_API_ERROR_MESSAGE_BYTES`] on a
    /// character boundary.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let mut message = message.into();
        message.truncate(message.floor_char_boundary(MAX_API_ERROR_MESSAGE_BYTES));
        Self { code, message }
    }

    /// The answer to an error of `kind`: its code ([`ErrorKind::code`]) and `message`.
    pub fn for_kind(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self::new(kind.code(), message)
    }

    /// The code.
    pub const fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status of the answer ([`ErrorCode::http_status`]).
    pub const fn http_status(&self) -> u16 {
        self.code.http_status()
    }
}

/// The answer to a [`FleetError`]: its kind's code and its message.
impl From<&FleetError> for ApiError {
    fn from(err: &FleetError) -> Self {
        Self::for_kind(err.kind(), err.to_string())
    }
}

/// `code: message`.
impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl Serialize for ApiError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The inner object of the envelope.
        struct Body<'a>(&'a ApiError);
        impl Serialize for Body<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut body = serializer.serialize_struct("ApiErrorBody", 2)?;
                body.serialize_field("code", &self.0.code)?;
                body.serialize_field("message", &self.0.message)?;
                body.end()
            }
        }
        let mut envelope = serializer.serialize_struct("ApiError", 1)?;
        envelope.serialize_field("error", &Body(self))?;
        envelope.end()
    }
}

/// The envelope as read, before its rules are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiErrorRaw {
    error: ApiErrorBodyRaw,
}

/// The inner object as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiErrorBodyRaw {
    code: ErrorCode,
    message: String,
}

impl TryFrom<ApiErrorRaw> for ApiError {
    type Error = FleetError;

    fn try_from(raw: ApiErrorRaw) -> Result<Self, FleetError> {
        let ApiErrorBodyRaw { code, message } = raw.error;
        if message.len() > MAX_API_ERROR_MESSAGE_BYTES {
            return Err(FleetError::TooLong {
                field: "error.message".to_owned(),
                len: message.len(),
                max: MAX_API_ERROR_MESSAGE_BYTES,
            });
        }
        Ok(Self { code, message })
    }
}

#[cfg(test)]
mod tests;
