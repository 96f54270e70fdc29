//! Views of the model's own types: a schedule and its actions (model-schedule), a task and
//! its attempts (model-task), a flow (model-flow). What a type does not hold (its tenant,
//! its uid, when a schedule ended) the caller gives.

use chrono::{DateTime, Utc};
use model_ids::TenantId;
use model_schedule::{Action, ActionState, Schedule};

use super::OwnedResource;
use crate::error::RetentionError;
use crate::kind::ResourceKind;
use crate::lifecycle::{Lifecycle, Outcome};
use crate::shim::{OwnerReference, Uid};

impl OwnedResource {
    /// The view of `schedule` in `tenant` with `uid`: active until it can fire no more, then
    /// sealed at `ended_at` (which the store records when it sees the schedule end; a
    /// schedule that ran out succeeded).
    pub fn from_schedule(
        schedule: &Schedule,
        tenant: TenantId,
        uid: Uid,
        ended_at: Option<DateTime<Utc>>,
    ) -> Result<Self, RetentionError> {
        let lifecycle = match ended_at {
            None => Lifecycle::Draft,
            Some(at) => Lifecycle::sealed(at, Outcome::Succeeded),
        };
        Self::builder(
            ResourceKind::Schedule,
            tenant,
            schedule.name().as_str(),
            lifecycle,
        )
        .uid(uid)
        .build()
    }

    /// The view of `action`, one firing of the schedule `schedule` names (its controller):
    /// named and identified by its id, active while pending or running, sealed when it
    /// completed (succeeded) or failed, at its last update. A state this crate does not
    /// know is taken as active, so it is never collected.
    pub fn from_action(
        action: &Action,
        tenant: TenantId,
        schedule: OwnerReference,
    ) -> Result<Self, RetentionError> {
        let at = action.updated_at();
        let lifecycle = match action.state() {
            ActionState::Completed => Lifecycle::sealed(at, Outcome::Succeeded),
            ActionState::Failed => Lifecycle::sealed(at, Outcome::Failed),
            _ => Lifecycle::Draft,
        };
        let id = action.id();
        Self::builder(ResourceKind::Action, tenant, &id.to_string(), lifecycle)
            .uid(Uid::from_bytes(*id.as_bytes()))
            .owner(schedule)
            .build()
    }
}

#[cfg(test)]
mod tests;
