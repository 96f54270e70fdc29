//! Cancels in the engine: a control plane cancels a task (a schedule's `replace`) with the
//! plane's `cancel`; a task without a running attempt ends Canceled at once, and a running
//! attempt goes to Cancelling, which its runner learns at its next call (a heartbeat that
//! answers "cancelling", or a start or a report refused because cancel was requested) and
//! then reports the attempt Canceled.

use taskmodel::{AttemptState, LeaseId, RestartDecision, TaskId, TaskPhase};

use super::super::clock::instant;
use super::super::plane::{ControlPlane, PlaneError};
use super::Engine;

impl<P: ControlPlane> Engine<'_, P> {
    /// The control plane cancels `task`; the tasks that changed (the task, and those a
    /// final phase reached at once started).
    pub(super) fn cancel(&mut self, task: &TaskId) -> Result<Vec<TaskId>, PlaneError> {
        let applied = self.plane.cancel(task, instant(self.now))?;
        if !applied.is_changed() {
            return Ok(Vec::new());
        }
        let mut changed = vec![task.clone()];
        let canceled = self
            .plane
            .observe(task)
            .is_some_and(|observed| observed.task.phase() == TaskPhase::Canceled);
        if canceled {
            changed.extend(self.decided(task, RestartDecision::Final(TaskPhase::Canceled))?);
        }
        Ok(changed)
    }

    /// Whether `answer` to a runner call on the attempt of `lease` is a refusal because the
    /// attempt is cancelling: what the refusal tells the runner, which then reports
    /// Canceled.
    pub(super) fn cancel_refused<T>(
        &self,
        task: &TaskId,
        lease: LeaseId,
        answer: &Result<T, PlaneError>,
    ) -> bool {
        let refused = answer.as_ref().is_err_and(|err| !err.is_gone());
        refused
            && self.plane.observe(task).is_some_and(|observed| {
                observed.attempts.last().is_some_and(|run| {
                    run.lease() == lease && run.state() == AttemptState::Cancelling
                })
            })
    }
}
