//! `IdKind`, the shared length limits, and the validation rule every identifier follows.

use std::fmt;

use super::{
    base36::{BASE36_ALLOWED, BASE36_MAX_LEN, decode_base36},
    bytes16::{ACTION_LAYOUT, UID_LAYOUT},
};
use crate::error::IdError;

/// Maximum length of a [`Slot`](crate::Slot), in bytes.
pub const SLOT_MAX_LEN: usize = 64;

/// Maximum length of a [`TaskId`](crate::TaskId), in bytes.
pub const TASK_ID_MAX_LEN: usize = 256;

/// Maximum length of an [`AgentId`](crate::AgentId), in bytes.
pub const AGENT_ID_MAX_LEN: usize = 128;

/// Maximum length of a [`RunnerId`](crate::RunnerId), in bytes.
pub const RUNNER_ID_MAX_LEN: usize = 128;

/// Maximum length of a [`FlowId`](crate::FlowId), in bytes.
pub const FLOW_ID_MAX_LEN: usize = 128;

/// Maximum length of a [`JobName`](crate::JobName), in bytes.
pub const JOB_NAME_MAX_LEN: usize = 64;

/// Maximum length of a [`ScheduleId`](crate::ScheduleId), in bytes.
pub const SCHEDULE_ID_MAX_LEN: usize = 128;

/// Maximum length of a [`TenantId`](crate::TenantId), in bytes.
pub const TENANT_ID_MAX_LEN: usize = 64;

/// Length of an [`ActionId`](crate::ActionId) in bytes.
pub const ACTION_ID_LEN: usize = 16;

/// Length of an [`ActionId`](crate::ActionId) written as hex digits, the only length its
/// text form has.
pub const ACTION_ID_HEX_LEN: usize = 2 * ACTION_ID_LEN;

/// Length of a [`Uid`](crate::Uid) in bytes.
pub const UID_LEN: usize = 16;

/// Length of a [`Uid`](crate::Uid)'s text (the UUID layout `8-4-4-4-12`), the only length
/// it has.
pub const UID_TEXT_LEN: usize = 36;

/// The characters an identifier may hold, as error messages and docs spell them.
pub(crate) const ID_ALLOWED: &str = "A-Z a-z 0-9 . _ -";

/// The kind of identifier a check is about: it picks the limit, the rule and the error message.
///
/// Most variants are identifier newtypes over `[A-Za-z0-9._-]`; [`IdKind::Base36Slug`] is
/// a base-36 display slug (see [`decode_base36`]); [`IdKind::ActionId`] and [`IdKind::Uid`]
/// are the hex text of the 16-byte [`ActionId`](crate::ActionId) and [`Uid`](crate::Uid).
///
/// ```
/// use model_ids::IdKind;
///
/// assert_eq!(IdKind::Slot.to_string(), "slot");
/// assert_eq!(IdKind::Slot.max_len(), 64);
/// assert!(IdKind::Slot.validate("my-slot").is_ok());
/// assert!(IdKind::Slot.validate("my slot").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum IdKind {
    /// A [`TaskId`](crate::TaskId): "task id".
    TaskId,
    /// A [`Slot`](crate::Slot): "slot".
    Slot,
    /// An [`AgentId`](crate::AgentId): "agent id".
    AgentId,
    /// A [`RunnerId`](crate::RunnerId): "runner id".
    RunnerId,
    /// A base-36 display slug of a `u64`: "base-36 slug".
    Base36Slug,
    /// A [`FlowId`](crate::FlowId): "flow id".
    FlowId,
    /// A [`JobName`](crate::JobName): "job name".
    JobName,
    /// A [`ScheduleId`](crate::ScheduleId): "schedule id".
    ScheduleId,
    /// A [`TenantId`](crate::TenantId): "tenant id".
    TenantId,
    /// An [`ActionId`](crate::ActionId) in hex: "action id".
    ActionId,
    /// A [`Uid`](crate::Uid) in the UUID layout: "uid".
    Uid,
}

impl IdKind {
    /// Every kind, in declaration order.
    pub const ALL: [IdKind; 11] = [
        IdKind::TaskId,
        IdKind::Slot,
        IdKind::AgentId,
        IdKind::RunnerId,
        IdKind::Base36Slug,
        IdKind::FlowId,
        IdKind::JobName,
        IdKind::ScheduleId,
        IdKind::TenantId,
        IdKind::ActionId,
        IdKind::Uid,
    ];

    /// The lowercase name used in messages ("task id", "slot", "agent id", "runner id",
    /// "base-36 slug", "flow id", "job name", "schedule id", "tenant id", "action id", "uid").
    pub const fn as_str(self) -> &'static str {
        match self {
            IdKind::TaskId => "task id",
            IdKind::Slot => "slot",
            IdKind::AgentId => "agent id",
            IdKind::RunnerId => "runner id",
            IdKind::Base36Slug => "base-36 slug",
            IdKind::FlowId => "flow id",
            IdKind::JobName => "job name",
            IdKind::ScheduleId => "schedule id",
            IdKind::TenantId => "tenant id",
            IdKind::ActionId => "action id",
            IdKind::Uid => "uid",
        }
    }

    /// The maximum length in bytes of a value of this kind (for [`IdKind::ActionId`] and
    /// [`IdKind::Uid`], the one length their text has).
    pub const fn max_len(self) -> usize {
        match self {
            IdKind::TaskId => TASK_ID_MAX_LEN,
            IdKind::Slot => SLOT_MAX_LEN,
            IdKind::AgentId => AGENT_ID_MAX_LEN,
            IdKind::RunnerId => RUNNER_ID_MAX_LEN,
            IdKind::Base36Slug => BASE36_MAX_LEN,
            IdKind::FlowId => FLOW_ID_MAX_LEN,
            IdKind::JobName => JOB_NAME_MAX_LEN,
            IdKind::ScheduleId => SCHEDULE_ID_MAX_LEN,
            IdKind::TenantId => TENANT_ID_MAX_LEN,
            IdKind::ActionId => ACTION_ID_HEX_LEN,
            IdKind::Uid => UID_TEXT_LEN,
        }
    }

    /// Checks `input` against the rule of this kind without allocating on success.
    ///
    /// For the identifier kinds this is the same check as their constructors
    /// (`TaskId::validate` and friends); for [`IdKind::Base36Slug`] it is
    /// [`decode_base36`] with the value discarded, and for [`IdKind::ActionId`] and
    /// [`IdKind::Uid`] the parse of [`ActionId`](crate::ActionId) and [`Uid`](crate::Uid).
    ///
    /// # Errors
    ///
    /// The [`IdError`] that the constructor of this kind would return.
    pub fn validate(self, input: &str) -> Result<(), IdError> {
        match self {
            IdKind::Base36Slug => decode_base36(input).map(|_| ()),
            IdKind::ActionId => ACTION_LAYOUT.decode(input).map(|_| ()),
            IdKind::Uid => UID_LAYOUT.decode(input).map(|_| ()),
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

    /// The allowed characters as error messages spell them.
    pub(crate) const fn allowed(self) -> &'static str {
        match self {
            IdKind::Base36Slug => BASE36_ALLOWED,
            IdKind::ActionId => ACTION_LAYOUT.allowed(),
            IdKind::Uid => UID_LAYOUT.allowed(),
            IdKind::TaskId
            | IdKind::Slot
            | IdKind::AgentId
            | IdKind::RunnerId
            | IdKind::FlowId
            | IdKind::JobName
            | IdKind::ScheduleId
            | IdKind::TenantId => ID_ALLOWED,
        }
    }
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Whether `byte` may appear in an identifier: `[A-Za-z0-9._-]`.
const fn is_id_byte(byte: u8) -> bool {
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
