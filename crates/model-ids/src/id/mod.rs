//! Identifiers: the kinds and their rule, the newtypes built on them, base-36 slugs, and
//! (behind `schema`) their JSON Schema.
//!
//! [`IdKind`] is the concept the others share: it names a kind, holds its length limit and
//! checks its rule ([`IdKind::validate`]); each newtype and the base-36 decoder check
//! through it, and [`IdError`](crate::IdError) names it. The 16-byte ids
//! ([`ActionId`], [`Uid`]) share one macro and one text codec (`bytes16.rs`).

mod base36;
mod bytes16;
mod kind;
mod newtype;
#[cfg(feature = "schema")]
mod schema;

pub(crate) use self::base36::BASE36_U64_MAX;
pub use self::{
    base36::{BASE36_MAX_LEN, Base36, decode_base36, encode_base36},
    bytes16::{ActionId, Uid},
    kind::{
        ACTION_ID_HEX_LEN, ACTION_ID_LEN, AGENT_ID_MAX_LEN, FLOW_ID_MAX_LEN, IdKind,
        JOB_NAME_MAX_LEN, RUNNER_ID_MAX_LEN, SCHEDULE_ID_MAX_LEN, SLOT_MAX_LEN, TASK_ID_MAX_LEN,
        TENANT_ID_MAX_LEN, UID_LEN, UID_TEXT_LEN,
    },
    newtype::{AgentId, FlowId, JobName, RunnerId, ScheduleId, Slot, TaskId, TenantId},
};
