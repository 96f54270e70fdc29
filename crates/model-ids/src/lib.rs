//! Identity newtypes (`TaskId`, `Slot`, `AgentId`, `RunnerId`, `FlowId`, `JobName`, `ScheduleId`, `TenantId`, and the 16-byte `ActionId` and `Uid`), their length limits, base-36 slugs, and the helpers every layer shares.
//!
//! Layer 0. Depends on: nothing.
//!
//! Architecture invariant: no I/O, no clock, no randomness; this crate knows nothing about tasks.
//!
//! Read `id/kind.rs` first ([`IdKind`] and the rule every identifier follows), then
//! `id/newtype.rs` (the macro that makes the eight types) and `bounded.rs`.
//!
//! # Identifiers
//!
//! The identifier types come from one macro, so they behave the same: each wraps an
//! `Arc<str>` (cheap to clone), holds only `[A-Za-z0-9._-]`, is not empty and not `.` or
//! `..`, and is at most its kind's length in bytes ([`SLOT_MAX_LEN`], [`TASK_ID_MAX_LEN`],
//! [`AGENT_ID_MAX_LEN`], [`RUNNER_ID_MAX_LEN`], also `TaskId::MAX_LEN` and friends).
//! These values reach cgroup paths, file names, `execve` arguments and log fields, where
//! anything else misbehaves. Every way in validates: `new`, `TryFrom`, `FromStr` and
//! serde. They serialize as plain strings.
//!
//! To check a string without building a value, use `TaskId::validate(s)` (and the same
//! on each type) or [`IdKind::validate`] when the kind is only known at run time.
//!
//! [`ActionId`] and [`Uid`] are different: 16 bytes ([`ACTION_ID_LEN`], [`UID_LEN`]),
//! `Copy`, made by one macro. An action id is written as 32 hex digits
//! ([`ACTION_ID_HEX_LEN`]), so that an action's storage key can hold it as bytes; a uid, the
//! identity of one incarnation of a resource, in the lowercase UUID layout
//! ([`UID_TEXT_LEN`]). The caller makes the bytes.
//!
//! # Base-36 slugs
//!
//! Numeric ids are shown to people as base-36 slugs (12345 is "9ix"):
//! [`encode_base36`], [`decode_base36`], and [`Base36`] to write one without allocating.
//!
//! # Bounded wire collections
//!
//! The crates' shared wire-bound helper: every list or object read from outside has a
//! limit, and [`BoundedVec`] and [`BoundedPairs`] read one with serde, stopping with an
//! error at the entry after the limit, so a hostile document costs at most the limit in
//! memory and time. Each bounded field is a marker type implementing [`Limit`] (its field
//! name and its `MAX_*` constant, and optionally its crate's own error). A whole document
//! read from a stream goes through a [`BoundedReader`], which fails at the first byte past
//! its limit.
//!
//! # Errors
//!
//! [`IdError`] says which [`IdKind`] failed, quotes the input (shortened to
//! [`ERROR_INPUT_MAX_CHARS`] characters) and why. [`ErrorKind`] is the category every
//! layer's error falls into (each layer's error has a `kind()` that gives it), and
//! [`ErrorKind::code`] gives the [`ErrorCode`] of the API error envelope, with its HTTP status.
//!
//! # Shared helpers
//!
//! Two small public modules every layer uses instead of its own copy: [`text`] shortens and
//! quotes an offending input for an error message (one limit, [`ERROR_INPUT_MAX_CHARS`], for
//! the whole workspace), and [`hash`] holds the stable hashes (FNV-1a and splitmix64) behind
//! routing weights, query fingerprints, token checksums and index terms.
//!
//! # Features
//!
//! `schema`: `schemars::JsonSchema` for the identifier types and [`ErrorCode`].
//!
//! ```
//! use model_ids::{Slot, TaskId, decode_base36, encode_base36};
//!
//! let slot = Slot::new("nightly-backup")?;
//! let task = TaskId::new(format!("{slot}.{}", encode_base36(12345)))?;
//! assert_eq!(task, "nightly-backup.9ix");
//! assert_eq!(decode_base36("9ix")?, 12345);
//! # Ok::<(), model_ids::IdError>(())
//! ```
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod bounded;
mod error;
mod error_kind;
pub mod hash;
mod id;
mod json_schema;
pub mod text;

pub use crate::{
    bounded::{BoundedPairs, BoundedReader, BoundedVec, Limit},
    error::IdError,
    error_kind::{ErrorCode, ErrorKind},
    id::{
        ACTION_ID_HEX_LEN, ACTION_ID_LEN, AGENT_ID_MAX_LEN, ActionId, AgentId, BASE36_MAX_LEN,
        Base36, FLOW_ID_MAX_LEN, FlowId, IdKind, JOB_NAME_MAX_LEN, JobName, RUNNER_ID_MAX_LEN,
        RunnerId, SCHEDULE_ID_MAX_LEN, SLOT_MAX_LEN, ScheduleId, Slot, TASK_ID_MAX_LEN,
        TENANT_ID_MAX_LEN, TaskId, TenantId, UID_LEN, UID_TEXT_LEN, Uid, decode_base36,
        encode_base36,
    },
    text::ERROR_INPUT_MAX_CHARS,
};
