//! Views of the model's own types: a task and its attempts (model-task), a flow and its run
//! (model-flow), a schedule and its actions (model-schedule). What a type does not hold (a
//! flow's or a schedule's tenant and uid, when it ended) the caller gives.

use chrono::{DateTime, Utc};
use model_flow::{FlowRun, FlowSpec, FlowStatus};
use model_ids::{TenantId, Uid};
use model_schedule::{Action, ActionState, Schedule};
use model_task::task::{OwnerKind, OwnerReference};
use model_task::{AttemptState, Task, TaskPhase, TaskRun};

use super::OwnedResource;
use crate::error::{InvalidReason, RetentionError};
use crate::kind::ResourceKind;
use crate::lifecycle::{Lifecycle, Outcome};
use crate::policy::HistoryLimits;

impl OwnedResource {
    /// The view of `task`, all from its own fields: its tenant, name, uid and owner
    /// references (the flow or schedule that created it), its `ttlAfterFinishedMs`, and its
    /// lifecycle: active until it reaches a final phase, then sealed at its `finishedAt`,
    /// succeeded only in phase Succeeded (failed, timed out, canceled and exhausted count
    /// as failed). A pending task waiting for a restart is active.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use model_ids::{TenantId, Uid};
    /// use model_retention::{Lifecycle, OwnedResource};
    /// use model_task::{Task, TaskManifest};
    ///
    /// let now = Utc.with_ymd_and_hms(2026, 11, 22, 2, 0, 0).unwrap();
    /// let manifest: TaskManifest = serde_json::from_str(r#"{
    ///     "apiVersion": "taskmodel.io/v1", "kind": "Task",
    ///     "metadata": {"name": "etl.load", "ownerReferences": [
    ///         {"kind": "Flow", "name": "etl", "uid": "00000000-0000-0000-0000-000000000001", "controller": true}]},
    ///     "spec": {"slot": "etl", "kind": {"type": "wasm", "module": "load.wasm"}, "timeoutMs": 60000,
    ///              "ttlAfterFinishedMs": 3600000}}"#)?;
    /// let task = Task::create(manifest, TenantId::new("acme")?, Uid::from_u128(2), now)?;
    /// let view = OwnedResource::from_task(&task)?;
    /// assert_eq!(view.name(), "etl.load");
    /// assert_eq!(view.controller().map(|owner| owner.name()), Some("etl"));
    /// assert_eq!(view.ttl_after_finished_ms(), Some(3_600_000));
    /// assert_eq!(view.lifecycle(), Lifecycle::Draft);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_task(task: &Task) -> Result<Self, RetentionError> {
        let meta = task.metadata();
        let status = task.status();
        let lifecycle = ended(
            status.phase().is_final(),
            status.finished_at(),
            status.phase() == TaskPhase::Succeeded,
        );
        let mut builder = Self::builder(
            ResourceKind::Task,
            meta.tenant().clone(),
            task.id().as_str(),
            lifecycle,
        )
        .uid(meta.uid());
        for owner in meta.owner_references() {
            builder = builder.owner(owner.clone());
        }
        if let Some(ms) = task.spec().ttl_after_finished_ms() {
            builder = builder.ttl_after_finished_ms(ms);
        }
        builder.build()
    }

    /// The view of `attempt`, one attempt of `task` (its controller, in the task's tenant),
    /// named `<task id>/<attempt number>`: active while it holds a lease, sealed at its
    /// `finishedAt` once final, succeeded only in state Succeeded. An attempt has no uid of
    /// its own. Fails when the attempt belongs to another task.
    pub fn from_attempt(attempt: &TaskRun, task: &Task) -> Result<Self, RetentionError> {
        if attempt.task_id() != task.id() {
            return Err(RetentionError::invalid_input(
                "taskId",
                attempt.task_id().as_str(),
                InvalidReason::Inconsistent {
                    rule: "an attempt's view is built with its own task",
                },
            ));
        }
        let lifecycle = ended(
            attempt.is_final(),
            attempt.finished_at(),
            attempt.state() == AttemptState::Succeeded,
        );
        let name = format!("{}/{}", task.id(), attempt.attempt());
        let owner = OwnerReference::new(OwnerKind::Task, task.id().as_str(), task.metadata().uid())
            .map_err(|_| {
                RetentionError::invalid_input(
                    "ownerReferences[0].name",
                    task.id().as_str(),
                    InvalidReason::Inconsistent {
                        rule: "an owner is named by its kind's id rule",
                    },
                )
            })?
            .controlling();
        Self::builder(
            ResourceKind::Attempt,
            task.metadata().tenant().clone(),
            &name,
            lifecycle,
        )
        .owner(owner)
        .build()
    }

    /// The view of the flow `flow` in `tenant` with `uid`, whose run is `run`: its
    /// `ttlAfterFinishedMs` is the flow's own (absent, the policy's rule for flows decides),
    /// and it is active until every job of the run is final, then sealed at `ended_at` (which
    /// the store records when it sees the run end; a run that is done without an end time
    /// recorded stays active, so it is never collected early). It succeeded when the run
    /// finished clean ([`FlowStatus::Finished`]), and failed otherwise (a job failed, or the
    /// flow was canceled). Fails when the run is of another flow.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use model_flow::{FlowRun, FlowSpec};
    /// use model_ids::{TenantId, Uid};
    /// use model_retention::{Lifecycle, OwnedResource, Outcome};
    /// use model_task::{RestartDecision, TaskPhase};
    ///
    /// let flow: FlowSpec = serde_json::from_str(r#"{"name": "etl", "ttlAfterFinishedMs": 3600000,
    ///     "jobs": [{"name": "load", "spec": {"slot": "etl", "kind": {"type": "wasm", "module": "load.wasm"}, "timeoutMs": 60000}}]}"#)?;
    /// let mut run = FlowRun::new(&flow);
    /// let acme = TenantId::new("acme")?;
    /// let view = OwnedResource::from_flow(&flow, &run, acme.clone(), Uid::from_u128(1), None)?;
    /// assert_eq!(view.ttl_after_finished_ms(), Some(3_600_000));
    /// assert_eq!(view.lifecycle(), Lifecycle::Draft);
    ///
    /// run.start("load")?;
    /// run.end_attempt("load", RestartDecision::Final(TaskPhase::Succeeded), None)?;
    /// let ended = Utc.with_ymd_and_hms(2026, 11, 22, 2, 0, 0).unwrap();
    /// let view = OwnedResource::from_flow(&flow, &run, acme, Uid::from_u128(1), Some(ended))?;
    /// assert_eq!(view.lifecycle(), Lifecycle::sealed(ended, Outcome::Succeeded));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_flow(
        flow: &FlowSpec,
        run: &FlowRun,
        tenant: TenantId,
        uid: Uid,
        ended_at: Option<DateTime<Utc>>,
    ) -> Result<Self, RetentionError> {
        if run.flow() != flow.name() {
            return Err(RetentionError::invalid_input(
                "flow",
                run.flow().as_str(),
                InvalidReason::Inconsistent {
                    rule: "a flow's view is built with a run of that flow",
                },
            ));
        }
        let lifecycle = ended(
            run.is_done(),
            ended_at,
            run.status() == FlowStatus::Finished,
        );
        let mut builder =
            Self::builder(ResourceKind::Flow, tenant, flow.name().as_str(), lifecycle).uid(uid);
        if let Some(ms) = flow.ttl_after_finished_ms() {
            builder = builder.ttl_after_finished_ms(ms);
        }
        builder.build()
    }

    /// The view of `schedule` in `tenant` with `uid`: its history limits are the schedule's
    /// own ([`Schedule::history_limits`]; with neither set, the policy's rule for schedules
    /// decides), and it is active until it can fire no more, then sealed at `ended_at`
    /// (which the store records when it sees the schedule end; a schedule that ran out
    /// succeeded).
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
        let mut builder = Self::builder(
            ResourceKind::Schedule,
            tenant,
            schedule.name().as_str(),
            lifecycle,
        )
        .uid(uid);
        if let Some((succeeded, failed)) = schedule.history_limits() {
            let limits = HistoryLimits::new(succeeded, failed).map_err(|err| err.at("history"))?;
            builder = builder.history(limits);
        }
        builder.build()
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

/// Sealed at `at` once `done` (succeeded if `succeeded`, failed otherwise), and active while
/// not done or while no end time is known (so it is never collected early).
fn ended(done: bool, at: Option<DateTime<Utc>>, succeeded: bool) -> Lifecycle {
    let outcome = if succeeded {
        Outcome::Succeeded
    } else {
        Outcome::Failed
    };
    match at {
        Some(at) if done => Lifecycle::sealed(at, outcome),
        _ => Lifecycle::Draft,
    }
}

#[cfg(test)]
mod tests;
