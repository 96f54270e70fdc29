//! Where a task is and what may follow: the phases and their table ([`TaskPhase`]), the
//! observed state ([`TaskStatus`]) with how an attempt ended ([`AttemptOutcome`],
//! [`AttemptResult`]) and its Kubernetes-style [`Condition`]s, and the restart decision
//! after an attempt ends ([`decide_restart`]).
//!
//! Nothing here knows about leases or runners: the attempt protocol (`crate::attempt`)
//! and the task's own methods (`crate::task`) apply these rules.

mod condition;
mod phase;
mod restart;
mod status;

pub use self::{
    condition::{
        Condition, ConditionStatus, ConditionType, MAX_CONDITION_MESSAGE_BYTES,
        MAX_CONDITION_REASON_BYTES, MAX_CONDITIONS,
    },
    phase::TaskPhase,
    restart::{RestartDecision, RestartHistory, decide_restart},
    status::{AttemptOutcome, AttemptResult, MAX_STATUS_ERROR_BYTES, TaskStatus},
};
pub(crate) use self::{
    restart::{RestartPlan, Wait, plan, time_plan},
    status::{TaskStatusRaw, check_error_text, truncate_on_char_boundary},
};
