//! Claims: which queued task a runner takes now. [`ClaimRequest`] is a runner asking at a
//! moment and decides about one queued task (what a store asks of each row it reads in
//! queue order); [`Queue::claim`], [`Queue::claim_many`] and [`Queue::explain`] decide over
//! an in-memory [`Queue`].

use std::collections::BTreeSet;
use std::fmt;

use chrono::{DateTime, Utc};
use model_ids::{Slot, TaskId};
use model_selector::{LabelSelector, RequirementFailure};
use model_task::Task;
use model_task::task::{AdmissionDecision, admit};

use crate::queue::{Merge, Queue, Queued, QueuedTask};
use crate::route::KindSet;
use crate::runner::{LivenessTtl, Runner, RunnerUnavailable};

/// A runner asking for work: the runner, how many active attempts it holds, the time, and
/// the liveness TTL.
///
/// The runner may take a queued task now when all of these hold:
///
/// - the runner is online, alive ([`Runner::liveness`]) and holds fewer attempts than its
///   capacity ([`Runner::free_capacity`]);
/// - it runs the task's kind;
/// - the task's runner selector matches the runner's labels;
/// - the task is due: its `queuedAt` (the due time of a scheduled restart, or its creation)
///   is at or before `now`;
/// - the task's slot is free: model-task's [`admit`] answers
///   [`Start`](AdmissionDecision::Start) with the task running in the slot, if any.
///
/// The claim is the first such task in queue order (`priority DESC, queuedAt ASC, id
/// ASC`, `docs/queue.md`). [`check`](Self::check) and [`admits`](Self::admits) decide about
/// one task, for a store that reads its queued tasks in that order.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_fleet::{ClaimRequest, LivenessTtl, Queue, Runner};
/// use model_ids::{RunnerId, TaskId, TenantId, Uid};
/// use model_selector::Labels;
/// use model_fleet::KindSet;
/// use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec};
///
/// let t0 = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
/// let ttl = LivenessTtl::default();
/// let spec = |slot: &str, selector: &str| -> Result<TaskSpec, Box<dyn std::error::Error>> {
///     let mode = SubprocessMode::command("/bin/true".into(), vec![])?;
///     let kind = TaskKind::subprocess(mode, TaskEnv::default(), None)?;
///     Ok(TaskSpec::builder(slot, kind, 60_000).runner_selector(selector.parse()?).build()?)
/// };
/// let acme = TenantId::new("acme")?;
/// let mut queue = Queue::new(acme.clone());
/// for (n, name, slot, selector) in [(1, "us-job", "a", "zone=us"), (2, "eu-job", "b", "zone=eu")] {
///     let manifest = TaskManifest::named(TaskId::new(name)?, spec(slot, selector)?);
///     queue.update(&Task::create(manifest, acme.clone(), Uid::from_u128(n), t0)?)?;
/// }
///
/// let runner = Runner::builder(RunnerId::new("eu-1")?, KindSet::ALL)
///     .labels(Labels::from_pairs([("zone", "eu")])?)
///     .build()?
///     .register(None, t0, ttl)?;
/// let request = ClaimRequest::new(&runner, 0, t0 + TimeDelta::seconds(1), ttl);
/// let claimed = queue.claim(&request).map(|task| task.key().id().to_string());
/// assert_eq!(claimed.as_deref(), Some("eu-job"));
/// let why = queue.explain(&request, &TaskId::new("us-job")?);
/// assert_eq!(
///     why.to_string(),
///     r#"task us-job is not claimable: matchLabels["zone"] (zone=us): value "eu" is not listed"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'r> {
    runner: &'r Runner,
    active: u32,
    now: DateTime<Utc>,
    ttl: LivenessTtl,
}

impl<'r> ClaimRequest<'r> {
    /// `runner`, holding `active` active attempts, asking at `now`, alive for `ttl` after
    /// it was last seen.
    pub const fn new(
        runner: &'r Runner,
        active: u32,
        now: DateTime<Utc>,
        ttl: LivenessTtl,
    ) -> Self {
        Self {
            runner,
            active,
            now,
            ttl,
        }
    }

    /// The runner.
    pub const fn runner(&self) -> &'r Runner {
        self.runner
    }

    /// How many more attempts the runner takes now ([`Runner::free_capacity`]).
    pub fn free_capacity(&self) -> u32 {
        self.runner.free_capacity(self.active, self.now, self.ttl)
    }

    /// Whether the runner may take `task` now, `running` being the task running in the
    /// task's slot, if any: [`check`](Self::check) without the reasons, and faster.
    pub fn admits(&self, task: QueuedTask<'_>, running: Option<&Task>) -> bool {
        self.free_capacity() > 0 && self.task_admits(task, running)
    }

    /// Every reason the runner may not take `task` now, `running` being the task running
    /// in the task's slot, if any; none when it may.
    pub fn check(&self, task: QueuedTask<'_>, running: Option<&Task>) -> ClaimExplanation {
        let mut blockers: Vec<ClaimBlocker> = self
            .runner
            .unavailable(self.active, self.now, self.ttl)
            .into_iter()
            .map(ClaimBlocker::Runner)
            .collect();
        if !self.runner.kinds().contains(task.kind()) {
            blockers.push(ClaimBlocker::KindNotSupported {
                kind: task.kind().clone(),
                runs: self.runner.kinds().clone(),
            });
        }
        let failures = task.selector().explain(self.runner.labels());
        if !failures.is_empty() {
            blockers.push(ClaimBlocker::SelectorFails(failures));
        }
        if task.key().queued_at() > self.now {
            blockers.push(ClaimBlocker::NotDue {
                queued_at: task.key().queued_at(),
            });
        }
        if let Some((running, decision)) = busy(task, running) {
            blockers.push(ClaimBlocker::SlotBusy {
                slot: task.slot().clone(),
                running: running.id().clone(),
                decision,
            });
        }
        ClaimExplanation {
            task: task.key().id().clone(),
            blockers,
        }
    }

    /// The task-level rules, cheapest first: due, kind, slot, selector.
    fn task_admits(&self, task: QueuedTask<'_>, running: Option<&Task>) -> bool {
        task.key().queued_at() <= self.now
            && self.runner.kinds().contains(task.kind())
            && busy(task, running).is_none()
            && task.selector().matches(self.runner.labels())
    }
}

/// The running task and the admission decision, when `running` keeps `task` out of its slot.
fn busy<'t>(
    task: QueuedTask<'_>,
    running: Option<&'t Task>,
) -> Option<(&'t Task, AdmissionDecision)> {
    let running = running.filter(|r| r.id() != task.key().id())?;
    match admit(Some(running), task.admission()) {
        AdmissionDecision::Start => None,
        decision => Some((running, decision)),
    }
}

/// One reason a runner may not take a queued task now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimBlocker {
    /// The runner takes nothing new now.
    Runner(RunnerUnavailable),
    /// The task is not queued (unknown, running or finished).
    NotQueued,
    /// The runner does not run the task's kind.
    KindNotSupported {
        /// The task's kind.
        kind: KindSet,
        /// The kinds the runner runs.
        runs: KindSet,
    },
    /// The task's runner selector does not match the runner's labels: each requirement
    /// that fails, and why.
    SelectorFails(Vec<RequirementFailure>),
    /// The task waits for a scheduled restart.
    NotDue {
        /// When it is due.
        queued_at: DateTime<Utc>,
    },
    /// Another task runs in the task's slot, and the admission policy keeps this one out.
    SlotBusy {
        /// The slot.
        slot: Slot,
        /// The task running in it.
        running: TaskId,
        /// What the policy says ([`admit`]): wait for it, drop this task, or replace it.
        decision: AdmissionDecision,
    },
    /// The task may be claimed, but another comes first in queue order.
    Behind {
        /// The task the runner claims first.
        first: TaskId,
    },
}

impl fmt::Display for ClaimBlocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimBlocker::Runner(reason) => reason.fmt(f),
            ClaimBlocker::NotQueued => f.write_str("the task is not queued"),
            ClaimBlocker::KindNotSupported { kind, runs } if runs.is_empty() => {
                write!(f, "the runner runs no kind, the task is {kind}")
            }
            ClaimBlocker::KindNotSupported { kind, runs } => {
                write!(f, "the runner runs {runs}, not {kind}")
            }
            ClaimBlocker::SelectorFails(failures) => {
                for (i, failure) in failures.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    failure.fmt(f)?;
                }
                Ok(())
            }
            ClaimBlocker::NotDue { queued_at } => {
                write!(f, "not due until {}", crate::runner::rfc3339(*queued_at))
            }
            ClaimBlocker::SlotBusy {
                slot,
                running,
                decision,
            } => {
                let policy = match decision {
                    AdmissionDecision::Queue => "it waits for the slot",
                    AdmissionDecision::Replace(_) => "the running task is to be canceled first",
                    _ => "it is not to run while the slot is busy",
                };
                write!(f, "slot {slot} is busy with task {running}: {policy}")
            }
            ClaimBlocker::Behind { first } => {
                write!(f, "claimable, but task {first} comes first in queue order")
            }
        }
    }
}

/// Why a runner may or may not take a queued task now, from [`ClaimRequest::check`] or
/// [`Queue::explain`]: every reason that holds, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClaimExplanation {
    /// The task.
    pub task: TaskId,
    /// Each reason the runner may not take it now; empty when it may.
    pub blockers: Vec<ClaimBlocker>,
}

impl ClaimExplanation {
    /// Whether nothing keeps the runner from taking the task now (for
    /// [`Queue::explain`], also that no task comes before it).
    pub fn is_claimable(&self) -> bool {
        self.blockers.is_empty()
    }
}

/// `task t-1 is claimable`, or `task t-1 is not claimable: reason; reason`.
impl fmt::Display for ClaimExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.blockers.is_empty() {
            return write!(f, "task {} is claimable", self.task);
        }
        write!(f, "task {} is not claimable: ", self.task)?;
        for (i, blocker) in self.blockers.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            blocker.fmt(f)?;
        }
        Ok(())
    }
}

impl Queue {
    /// The task `request`'s runner claims now: the first queued task in queue order that
    /// it may take ([`ClaimRequest`] lists the rules), or none.
    ///
    /// The first [`CLAIM_HEAD_PROBE`] queued tasks of the kinds the runner runs are tested
    /// in queue order; past them, the selector indexes answer which tasks' selectors match
    /// the runner's labels, first in queue order, and only those are tested for the rest.
    /// Either way the answer is the first claimable task in queue order.
    pub fn claim<'q>(&'q self, request: &ClaimRequest<'_>) -> Option<QueuedTask<'q>> {
        self.claim_many(request, 1).pop()
    }

    /// Up to `n` tasks `request`'s runner claims now, at most its free capacity: the first
    /// ones in queue order that it may take, at most one of each slot (the first claimed
    /// makes the slot busy for the others). Found as [`claim`](Self::claim) finds one.
    pub fn claim_many<'q>(&'q self, request: &ClaimRequest<'_>, n: u32) -> Vec<QueuedTask<'q>> {
        let wanted = request.free_capacity().min(n) as usize;
        let mut batch = Batch {
            queue: self,
            now: request.now,
            wanted,
            slots: BTreeSet::new(),
            claimed: Vec::new(),
        };
        if wanted == 0 {
            return batch.claimed;
        }
        let runner = request.runner();
        // The head of the queue, task by task: where a claim usually ends, and cheaper to
        // test than the indexes are to open.
        let mut head = self.in_order(runner.kinds());
        let mut last = None;
        for _ in 0..CLAIM_HEAD_PROBE {
            let Some(next) = head.next() else {
                return batch.claimed;
            };
            last = Some(next.queued);
            let view = || Some(QueuedTask::new(next.queued, next.selector));
            if next.selector.matches(runner.labels()) && batch.offer(next.queued, view) {
                return batch.claimed;
            }
        }
        // Past the head, the indexes, from the first task the head did not test.
        for queued in self
            .matching(runner.labels(), runner.kinds())
            .skip_while(|queued| last.is_some_and(|last| *queued <= last))
        {
            if batch.offer(queued, || self.view(queued)) {
                break;
            }
        }
        batch.claimed
    }

    /// The queued tasks of `kinds`, with their selectors, in queue order.
    fn in_order<'q>(&'q self, kinds: &KindSet) -> impl Iterator<Item = InOrder<'q>> + 'q {
        Merge::new(
            self.kinds
                .iter()
                .filter(|(kind, _)| kinds.contains(kind))
                .map(|(_, selectors)| {
                    selectors
                        .iter()
                        .map(|(queued, selector)| InOrder { queued, selector })
                }),
        )
    }

    /// Why `request`'s runner may or may not take the queued task `id` now: every reason
    /// that holds ([`ClaimRequest::check`] with the slot's running task), or, when none
    /// does, [`ClaimBlocker::Behind`] if the claim picks another task first.
    pub fn explain(&self, request: &ClaimRequest<'_>, id: &TaskId) -> ClaimExplanation {
        let Some(task) = self.get(id) else {
            return ClaimExplanation {
                task: id.clone(),
                blockers: vec![ClaimBlocker::NotQueued],
            };
        };
        let mut explanation = request.check(task, self.running(task.slot()));
        if explanation.is_claimable()
            && let Some(first) = self.claim(request)
            && first.key().id() != id
        {
            explanation.blockers.push(ClaimBlocker::Behind {
                first: first.key().id().clone(),
            });
        }
        explanation
    }
}

/// How many queued tasks, of the kinds a runner runs, a claim tests one by one in queue
/// order before it asks the selector indexes ([`Queue::claim`]).
///
/// When the runner's first claimable task is near the head of the queue, testing the head
/// costs less than opening the indexes; when it is deep or absent, the indexes answer
/// without testing the rest. Chosen by measurement (`docs/performance.md`, "Claims"): a
/// claim that ends within the head costs what a walk of the queue costs, and one that goes
/// past it costs what the indexes cost plus testing this many tasks.
pub const CLAIM_HEAD_PROBE: usize = 16;

/// A queued task and its selector, ordered by its place in the queue.
struct InOrder<'q> {
    queued: &'q Queued,
    selector: &'q LabelSelector,
}

impl PartialEq for InOrder<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.queued == other.queued
    }
}

impl Eq for InOrder<'_> {}

impl PartialOrd for InOrder<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InOrder<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.queued.cmp(other.queued)
    }
}

/// The tasks a claim has taken so far, and their slots.
struct Batch<'q> {
    queue: &'q Queue,
    now: DateTime<Utc>,
    wanted: usize,
    slots: BTreeSet<&'q Slot>,
    claimed: Vec<QueuedTask<'q>>,
}

impl<'q> Batch<'q> {
    /// Takes `queued`, whose selector matches the runner's labels and whose kind the runner
    /// runs, if it is due and its slot is free; whether the batch is then full.
    fn offer(&mut self, queued: &'q Queued, view: impl FnOnce() -> Option<QueuedTask<'q>>) -> bool {
        if queued.key.queued_at() > self.now
            || self.slots.contains(&queued.slot)
            || busy_slot(self.queue, queued)
        {
            return false;
        }
        let Some(task) = view() else {
            return false;
        };
        self.slots.insert(&queued.slot);
        self.claimed.push(task);
        self.claimed.len() == self.wanted
    }
}

/// Whether the task running in `queued`'s slot keeps it out.
fn busy_slot(queue: &Queue, queued: &Queued) -> bool {
    queue.running(&queued.slot).is_some_and(|running| {
        running.id() != queued.key.id()
            && admit(Some(running), queued.admission) != AdmissionDecision::Start
    })
}

#[cfg(test)]
mod tests;
