//! A runner's report of how its attempt ended: the plane's `finish`, the restart decision
//! it brings, and the runner free for work. A report refused because the attempt is
//! cancelling is made again as Canceled.

use taskmodel::task::{AttemptOutcome, AttemptResult};
use taskmodel::{LeaseId, TaskId};

use super::super::clock::instant;
use super::super::plane::{ControlPlane, PlaneError};
use super::{Ending, Engine};

impl<P: ControlPlane> Engine<'_, P> {
    /// The runner reports how its attempt ended; one refused because the attempt is
    /// cancelling reports Canceled instead.
    pub(super) fn report(
        &mut self,
        runner: usize,
        task: &TaskId,
        lease: LeaseId,
        outcome: AttemptOutcome,
    ) -> Result<Vec<TaskId>, PlaneError> {
        if !self.runner(runner).is_some_and(|r| r.holds(task, lease)) {
            return Ok(Vec::new());
        }
        let result = match outcome {
            AttemptOutcome::Succeeded => AttemptResult::new(outcome).with_exit_code(0),
            AttemptOutcome::Failed => AttemptResult::new(outcome).with_exit_code(1),
            _ => AttemptResult::new(outcome),
        };
        let finished = self.plane.finish(task, lease, result, instant(self.now));
        if outcome != AttemptOutcome::Canceled && self.cancel_refused(task, lease, &finished) {
            return self.report(runner, task, lease, AttemptOutcome::Canceled);
        }
        let Some(finished) = self.gone(runner, task, lease, finished)? else {
            return Ok(Vec::new());
        };
        let mut changed = vec![task.clone()];
        if let Some(decision) = finished.changed() {
            changed.extend(self.decided(task, decision)?);
            self.close(task, lease, Ending::of(outcome));
        }
        self.free(runner, task, lease);
        Ok(changed)
    }
}
