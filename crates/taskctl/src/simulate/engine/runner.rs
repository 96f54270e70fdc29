//! The runners as the engine drives them, and the bars of their attempts: a runner holds up
//! to its capacity of attempts, each drawn in one of its places; it may crash (it stops
//! calling) and come back (it forgot what it held and claims again).

use taskmodel::fleet::KindSet;
use taskmodel::selector::Labels;
use taskmodel::task::AttemptOutcome;
use taskmodel::{LeaseId, RunnerId, TaskId};

use super::super::clock::Millis;

/// How an attempt's bar on the timeline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ending {
    /// The runner reported success.
    Succeeded,
    /// The runner reported failure.
    Failed,
    /// The runner reported a timeout.
    Timeout,
    /// The runner, told the attempt was cancelling, reported it canceled.
    Canceled,
    /// The lease expired and the reaper ended it.
    Expired,
    /// Still live when the run stopped.
    Live,
}

impl Ending {
    /// How an attempt that reported `outcome` ended.
    pub(crate) const fn of(outcome: AttemptOutcome) -> Self {
        match outcome {
            AttemptOutcome::Succeeded => Self::Succeeded,
            AttemptOutcome::Timeout => Self::Timeout,
            AttemptOutcome::Canceled => Self::Canceled,
            _ => Self::Failed,
        }
    }

    /// The name printed for it.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Timeout => "timeout",
            Self::Canceled => "canceled",
            Self::Expired => "expired",
            Self::Live => "live",
        }
    }
}

/// One attempt as it ran on its runner, from the claim to its end, in one of the runner's
/// places (0 to its capacity less one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bar {
    pub(crate) runner: usize,
    pub(crate) place: u32,
    pub(crate) task: TaskId,
    pub(crate) attempt: u32,
    pub(crate) from: Millis,
    pub(crate) to: Millis,
    pub(crate) ending: Ending,
}

/// A runner as the engine drives it.
#[derive(Debug)]
pub(crate) struct RunnerSim {
    pub(crate) id: RunnerId,
    /// Its labels and the kinds it runs, to know which pending tasks it may take.
    pub(super) labels: Labels,
    pub(super) kinds: KindSet,
    /// How many attempts it runs at once.
    pub(crate) capacity: u32,
    /// Each time it was down, in order: when it crashed and when it came back, if it did.
    pub(crate) down: Vec<(Millis, Option<Millis>)>,
    /// The attempts it runs: task and lease.
    busy: Vec<(TaskId, LeaseId)>,
    /// The open bar in each place, so a new attempt is drawn in a free one (an attempt the
    /// runner forgot in a crash keeps its place until the reaper ends it).
    places: Vec<Option<usize>>,
    /// Waiting for work: claims again when a task may be free for it.
    pub(super) idle: bool,
}

impl RunnerSim {
    /// A runner with `labels` that runs `kinds`, `capacity` attempts at once (at least
    /// one).
    pub(crate) fn new(id: RunnerId, labels: Labels, kinds: KindSet, capacity: u32) -> Self {
        let capacity = capacity.max(1);
        Self {
            id,
            labels,
            kinds,
            capacity,
            down: Vec::new(),
            busy: Vec::new(),
            places: vec![None; usize::try_from(capacity).unwrap_or(1)],
            idle: false,
        }
    }

    /// Whether it is down now.
    pub(crate) fn is_down(&self) -> bool {
        self.down.last().is_some_and(|(_, back)| back.is_none())
    }

    /// Whether it is up and runs the attempt of `lease` on `task`.
    pub(super) fn holds(&self, task: &TaskId, lease: LeaseId) -> bool {
        !self.is_down() && self.busy.iter().any(|(t, l)| t == task && *l == lease)
    }

    /// Whether it is up with room for another attempt.
    pub(super) fn may_claim(&self) -> bool {
        !self.is_down() && self.busy.len() < self.places.len()
    }

    /// Takes the attempt of `lease` on `task`, drawn as bar `bar`; the place it is drawn in.
    pub(super) fn take(&mut self, task: TaskId, lease: LeaseId, bar: usize) -> u32 {
        self.busy.push((task, lease));
        self.idle = false;
        let free = self.places.iter().position(Option::is_none).unwrap_or(0);
        if let Some(place) = self.places.get_mut(free) {
            *place = Some(bar);
        }
        u32::try_from(free).unwrap_or(0)
    }

    /// Stops running the attempt of `lease` on `task`.
    pub(super) fn drop_attempt(&mut self, task: &TaskId, lease: LeaseId) {
        self.busy.retain(|(t, l)| !(t == task && *l == lease));
    }

    /// The bar `bar` ended: its place is free.
    pub(super) fn close(&mut self, bar: usize) {
        for place in &mut self.places {
            if *place == Some(bar) {
                *place = None;
            }
        }
    }

    /// Crashes at `now`: it stops calling.
    pub(super) fn crash(&mut self, now: Millis) {
        if !self.is_down() {
            self.down.push((now, None));
            self.idle = false;
        }
    }

    /// Comes back at `now`, having forgotten every attempt it ran.
    pub(super) fn back(&mut self, now: Millis) {
        if let Some((_, back)) = self.down.last_mut().filter(|(_, back)| back.is_none()) {
            *back = Some(now);
            self.busy.clear();
        }
    }

    /// How much of `from..to` it was up.
    pub(crate) fn up_within(&self, from: Millis, to: Millis) -> Millis {
        let down: Millis = self
            .down
            .iter()
            .map(|(at, back)| {
                let (start, end) = ((*at).max(from), back.unwrap_or(Millis::MAX).min(to));
                end.saturating_sub(start)
            })
            .sum();
        to.saturating_sub(from).saturating_sub(down)
    }
}
