//! The identifier rule every id kind follows, and `IdKind::validate`.

use crate::{action_id, base36, error::IdError, kind::IdKind};

impl IdKind {
    /// Checks `input` against the rule of this kind without allocating on success.
    ///
    /// For the identifier kinds this is the same check as their constructors
    /// (`TaskId::validate` and friends); for [`IdKind::Base36Slug`] it is
    /// [`decode_base36`](crate::decode_base36) with the value discarded, and for
    /// [`IdKind::ActionId`] the hex parse of [`ActionId`](crate::ActionId).
    ///
    /// # Errors
    ///
    /// The [`IdError`] that the constructor of this kind would return.
    pub fn validate(self, input: &str) -> Result<(), IdError> {
        match self {
            IdKind::Base36Slug => base36::decode_base36(input).map(|_| ()),
            IdKind::ActionId => action_id::decode_hex(input).map(|_| ()),
            IdKind::TaskId
            | IdKind::Slot
            | IdKind::AgentId
            | IdKind::RunnerId
            | IdKind::FlowId
            | IdKind::JobName
            | IdKind::ScheduleId
            | IdKind::TenantId => validate_id(self, input),
        }
    }
}

/// Whether `byte` may appear in an identifier: `[A-Za-z0-9._-]`.
pub(crate) const fn is_id_byte(byte: u8) -> bool {
    matches!(byte, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-')
}

/// The identifier rule: non-empty, at most `kind.max_len()` bytes, `[A-Za-z0-9._-]` only,
/// and neither `.` nor `..`. Checks run in that order, so the length check bounds the work.
pub(crate) fn validate_id(kind: IdKind, input: &str) -> Result<(), IdError> {
    if input.is_empty() {
        return Err(IdError::empty(kind));
    }
    let max = kind.max_len();
    if input.len() > max {
        return Err(IdError::too_long(kind, input, max));
    }
    if let Some(index) = input.bytes().position(|b| !is_id_byte(b)) {
        return Err(IdError::invalid_char(kind, input, index));
    }
    if input == "." || input == ".." {
        return Err(IdError::reserved(kind, input));
    }
    Ok(())
}
