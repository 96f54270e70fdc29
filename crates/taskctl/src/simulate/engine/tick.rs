//! Schedule ticks in the engine: the first action of each schedule is stored before the
//! run, and each tick fires the due actions through the control plane.

use super::super::clock::instant;
use super::super::plane::{ControlPlane, PlaneError};
use super::super::schedule;
use super::{Engine, Event};
use taskmodel::TaskId;

impl<P: ControlPlane> Engine<'_, P> {
    /// Stores each action `schedules` starts with, and wakes the engine when each is due.
    pub(super) fn plan_schedules(&mut self) -> Result<(), String> {
        for action in self.schedules.first_actions()? {
            self.plane
                .add_action(&action)
                .map_err(|err| err.to_string())?;
            self.schedule(schedule::due(&action), Event::Tick);
        }
        Ok(())
    }

    /// Fires the actions due now: each starts a task, buffers its tick, skips it, or
    /// cancels the schedule's unfinished task and starts one (its schedule's overlap
    /// policy), completes, and stores its schedule's next action. The tasks it changed.
    pub(super) fn tick(&mut self) -> Result<Vec<TaskId>, PlaneError> {
        let now = instant(self.now);
        let mut changed = Vec::new();
        for action in self.plane.fire_due(now)? {
            let fired = self
                .schedules
                .fired(&action, self.now)
                .map_err(PlaneError::Flow)?;
            if let Some(running) = &fired.cancel {
                changed.extend(self.cancel(running)?);
            }
            if let Some((job, manifest)) = fired.task {
                changed.push(self.submit_one(manifest, Some(&job))?);
            }
            self.plane.finish_action(action.id(), fired.result, now)?;
            if let Some(next) = fired.next {
                self.plane.add_action(&next)?;
                self.schedule(schedule::due(&next), Event::Tick);
            }
        }
        if !changed.is_empty() {
            self.wake();
        }
        Ok(changed)
    }
}
