//! The engine's events: what happens at a simulated time, how one reads in a message, and
//! their order in the heap (time, then the order they were scheduled in).

use std::cmp::Ordering;
use std::fmt;

use taskmodel::TaskId;
use taskmodel::task::{AttemptOutcome, LeaseId};

use super::super::clock::Millis;
use super::super::plane::Claim;
use super::runner::{Ending, RunnerSim};

/// Something that happens at a simulated time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// A runner asks for work.
    Claim { runner: usize },
    /// A runner starts the attempt it claimed.
    Start { runner: usize, claim: Claim },
    /// A runner extends its lease.
    Heartbeat {
        runner: usize,
        task: TaskId,
        lease: LeaseId,
    },
    /// A runner reports how its attempt ended.
    Finish {
        runner: usize,
        task: TaskId,
        lease: LeaseId,
        outcome: AttemptOutcome,
    },
    /// The reaper ends expired leases.
    Reap,
    /// Retries become due and idle runners claim them.
    Due,
    /// A schedule's actions are due: the control plane fires them.
    Tick,
    /// A runner crashes: it stops calling.
    Crash { runner: usize },
    /// A crashed runner comes back, having forgotten what it ran, and claims.
    Back { runner: usize },
}

/// An event with the runner names at hand, for messages.
pub(super) struct Described<'a>(pub(super) &'a Event, pub(super) &'a [RunnerSim]);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |runner: &usize| self.1.get(*runner).map_or("?", |r| r.id.as_ref());
        match self.0 {
            Event::Claim { runner } => write!(f, "claim by {}", name(runner)),
            Event::Start { runner, claim } => write!(
                f,
                "start of {} attempt {} on {} (lease {})",
                claim.task,
                claim.attempt,
                name(runner),
                claim.lease.as_u64()
            ),
            Event::Heartbeat {
                runner,
                task,
                lease,
            } => write!(
                f,
                "heartbeat of {task} on {} (lease {})",
                name(runner),
                lease.as_u64()
            ),
            Event::Finish {
                runner,
                task,
                lease,
                outcome,
            } => write!(
                f,
                "{task} reported {} by {} (lease {})",
                Ending::of(*outcome).as_str(),
                name(runner),
                lease.as_u64()
            ),
            Event::Reap => f.write_str("reaper"),
            Event::Due => f.write_str("retries due"),
            Event::Tick => f.write_str("schedule tick"),
            Event::Crash { runner } => write!(f, "crash of {}", name(runner)),
            Event::Back { runner } => write!(f, "return of {}", name(runner)),
        }
    }
}

/// An event in the heap: ordered by time, then by the order it was scheduled in.
#[derive(Debug)]
pub(super) struct Scheduled {
    pub(super) at: Millis,
    pub(super) sequence: u64,
    pub(super) event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at, self.sequence).cmp(&(other.at, other.sequence))
    }
}
