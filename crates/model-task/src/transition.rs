//! The parts of the lifecycle that report a `TaskError`: parsing a phase and checking a
//! transition. (Kept apart from `phase` so that `error` can name phases without a cycle.)

use std::str::FromStr;

use crate::error::{TaskError, shorten};
use crate::phase::TaskPhase;

impl TaskPhase {
    /// `Ok(())` if [`can_become`](Self::can_become), else [`TaskError::InvalidTransition`]
    /// naming both phases.
    pub fn check_transition(self, next: TaskPhase) -> Result<(), TaskError> {
        if self.can_become(next) {
            Ok(())
        } else {
            Err(TaskError::InvalidTransition {
                from: self,
                to: next,
            })
        }
    }
}

impl FromStr for TaskPhase {
    type Err = TaskError;

    /// Parses the wire name in any letter case; anything else is
    /// [`TaskError::UnknownTaskPhase`].
    fn from_str(s: &str) -> Result<Self, TaskError> {
        Self::ALL
            .into_iter()
            .find(|phase| phase.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| TaskError::UnknownTaskPhase { input: shorten(s) })
    }
}

#[cfg(test)]
mod tests;
