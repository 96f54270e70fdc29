//! The runner inventory of `taskctl route` and `taskctl simulate`: a JSON array of
//! `{ "id", "labels", "kinds", "maxConcurrent" }`, kept as slices of its text, each runner
//! checked as it is read and read again into the router (or the simulation's control plane,
//! which honours the capacity; routing ignores it).

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer as _};
use serde_json::value::RawValue;
use taskmodel::RunnerId;
use taskmodel::fleet::{
    DEFAULT_RUNNER_CAPACITY, FleetError, KindSet, MAX_RUNNER_CAPACITY, RunnerRouter,
};
use taskmodel::selector::Labels;

use crate::diagnose::{Problem, parse_first, plain_wire};

/// One runner of the inventory file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunnerDoc {
    id: RunnerId,
    #[serde(default)]
    labels: Labels,
    kinds: KindSet,
    /// How many attempts it runs at once (model-fleet's `maxConcurrent`).
    #[serde(default, rename = "maxConcurrent")]
    max_concurrent: Capacity,
}

/// A runner's capacity, in model-fleet's range (1 to `MAX_RUNNER_CAPACITY`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "u64")]
struct Capacity(u32);

impl Default for Capacity {
    fn default() -> Self {
        Self(DEFAULT_RUNNER_CAPACITY)
    }
}

impl TryFrom<u64> for Capacity {
    type Error = String;

    fn try_from(value: u64) -> Result<Self, String> {
        u32::try_from(value)
            .ok()
            .filter(|n| (1..=MAX_RUNNER_CAPACITY).contains(n))
            .map(Self)
            .ok_or_else(|| format!("{value} is out of range (1 to {MAX_RUNNER_CAPACITY})"))
    }
}

// Every rule of a runner, and of the array, is serde's.
plain_wire!(RunnerDoc, Vec<RunnerDoc>);

/// The runners of an inventory, each kept as its text (16 bytes a runner) until the router
/// reads it, so the inventory is never held as runners beside the router's own copy.
#[derive(Debug)]
pub(crate) struct Inventory<'t>(Vec<&'t RawValue>);

impl<'t> Inventory<'t> {
    /// Reads the inventory `value` (its syntax checked), at most `max` runners, checking each
    /// runner as it is read; or the first problem, at the runner's index (`[3].kinds`).
    pub(crate) fn read(value: &'t RawValue, max: usize) -> Result<Self, Problem> {
        if !value.get().trim_start().starts_with('[') {
            // Not an array: the reader says what it expected.
            parse_first::<Vec<RunnerDoc>>(value)?;
            return Ok(Self(Vec::new()));
        }
        let mut problem = None;
        serde_json::Deserializer::from_str(value.get())
            .deserialize_seq(Runners {
                max,
                problem: &mut problem,
            })
            .map(Self)
            .map_err(|err| problem.unwrap_or_else(|| Problem::at("", err.to_string())))
    }

    /// Gives every runner to `router` in place of the ones it has.
    ///
    /// # Errors
    ///
    /// The router's error: two runners with one id.
    pub(crate) fn load(self, router: &RunnerRouter) -> Result<(), FleetError> {
        router.replace_all(
            self.runners()
                .map(|(id, labels, kinds, _)| (id, labels, kinds)),
        )
    }

    /// Every runner with its capacity, read from its text in inventory order (`taskctl
    /// simulate` registers them with its control plane).
    pub(crate) fn runners(self) -> impl Iterator<Item = (RunnerId, Labels, KindSet, u32)> + 't {
        // Every runner was read once already (`read`), so none is skipped here.
        self.0
            .into_iter()
            .filter_map(|runner| serde_json::from_str::<RunnerDoc>(runner.get()).ok())
            .map(|runner| {
                (
                    runner.id,
                    runner.labels,
                    runner.kinds,
                    runner.max_concurrent.0,
                )
            })
    }
}

/// Reads the runners of an inventory, checking each as it is read: the first problem, or a
/// runner past `max`, stops the reading and is left in `problem`.
struct Runners<'p> {
    max: usize,
    problem: &'p mut Option<Problem>,
}

impl<'de> Visitor<'de> for Runners<'_> {
    type Value = Vec<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut runners = Vec::new();
        while let Some(runner) = seq.next_element::<&RawValue>()? {
            let problem = if runners.len() == self.max {
                Problem::at("", format!("too many runners: the limit is {}", self.max))
            } else {
                match parse_first::<RunnerDoc>(runner) {
                    Ok(_) => {
                        runners.push(runner);
                        continue;
                    }
                    Err(problem) => problem.under(&format!("[{}]", runners.len())),
                }
            };
            let message = problem.message.clone();
            *self.problem = Some(problem);
            return Err(de::Error::custom(message));
        }
        Ok(runners)
    }
}

#[cfg(test)]
mod tests;
