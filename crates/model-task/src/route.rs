//! Routing: which runner takes a task. [`RunnerRouter`] keeps the runners with the
//! [`KindSet`] each runs (built-in and extension kinds) in model-selector's runner index,
//! picks by the task's kind, its runner selector and rendezvous hashing, lists the
//! candidates, and explains per runner why it was or was not chosen ([`RouteExplanation`]).
//!
//! It knows task specs, never tasks or attempts, so it can move to a crate of its own.

use std::sync::Arc;

use model_ids::hash::{fnv1a64, splitmix64};
use model_ids::text::shorten;
use model_ids::{RunnerId, TaskId};
use model_selector::{Batch, LabelSelector, Labels, RunnerEntry, RunnerIndex, Snapshot};

use crate::error::TaskError;
use crate::spec::{KindName, TaskSpec};

mod explain;
mod kinds;

use self::kinds::KindProbe;
pub use self::{
    explain::{
        RequirementSet, RouteExplanation, RouteFailure, RouteOutcome, RouteRequirement,
        RunnerVerdict,
    },
    kinds::{KindSet, MAX_KIND_SET_EXTENSIONS},
};

// ---------------------------------------------------------------------------------------
// Rendezvous hashing.

/// The rendezvous weight of running `task` on `runner`: the rule [`RunnerRouter::pick`]
/// uses, written out so any other party can compute the same choice.
///
/// `weight = splitmix64(fnv1a64(task) XOR splitmix64(fnv1a64(runner)))`, where
/// [`fnv1a64`] is 64-bit FNV-1a over the id's UTF-8 bytes (offset basis
/// `0xcbf29ce484222325`, prime `0x100000001b3`) and [`splitmix64`]`(z)` adds
/// `0x9e3779b97f4a7c15` and then applies the splitmix64 finalizer (`z ^= z >> 30;
/// z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31`,
/// wrapping), both from `model_ids::hash`. Among the eligible runners the one
/// with the highest weight is picked; on a tie, the first in runner id order.
///
/// Every (task, runner) pair gets an independent-looking weight, so tasks spread evenly
/// over runners, and a task's choice changes only when its chosen runner leaves or a
/// runner that outranks it arrives.
///
/// ```
/// use model_ids::{RunnerId, TaskId};
/// use model_task::route::rendezvous_weight;
///
/// let task = TaskId::new("t1")?;
/// let (a, b) = (RunnerId::new("a")?, RunnerId::new("b")?);
/// assert_eq!(rendezvous_weight(&task, &a), rendezvous_weight(&task, &a));
/// assert_ne!(rendezvous_weight(&task, &a), rendezvous_weight(&task, &b));
/// # Ok::<(), model_ids::IdError>(())
/// ```
pub fn rendezvous_weight(task: &TaskId, runner: &RunnerId) -> u64 {
    weight(task_key(task), runner_key(runner))
}

fn task_key(task: &TaskId) -> u64 {
    fnv1a64(task.as_ref().as_bytes())
}

fn runner_key(runner: &RunnerId) -> u64 {
    splitmix64(fnv1a64(runner.as_ref().as_bytes()))
}

#[inline]
fn weight(task_key: u64, runner_key: u64) -> u64 {
    splitmix64(task_key ^ runner_key)
}

// ---------------------------------------------------------------------------------------
// The router.

/// What the router stores for each runner: the kinds it runs, and its rendezvous key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerInfo {
    kinds: KindSet,
    /// `splitmix64(fnv1a64(id))`, computed once at registration.
    key: u64,
}

impl RunnerInfo {
    fn new(id: &RunnerId, kinds: KindSet) -> Self {
        Self {
            kinds,
            key: runner_key(id),
        }
    }

    /// The kinds the runner runs.
    pub fn kinds(&self) -> &KindSet {
        &self.kinds
    }
}

/// Changes to a [`RunnerRouter`]'s runners, applied together by [`RunnerRouter::apply`].
#[derive(Debug, Clone, Default)]
pub struct RouterBatch {
    inner: Batch<RunnerInfo>,
}

impl RouterBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds runner `id` with its labels and the kinds it runs.
    pub fn register(&mut self, id: RunnerId, labels: Labels, kinds: KindSet) -> &mut Self {
        let info = RunnerInfo::new(&id, kinds);
        self.inner.register(id, labels, info);
        self
    }

    /// Replaces the labels and kinds of runner `id`.
    pub fn update(&mut self, id: RunnerId, labels: Labels, kinds: KindSet) -> &mut Self {
        let info = RunnerInfo::new(&id, kinds);
        self.inner.update(id, labels, info);
        self
    }

    /// Removes runner `id`.
    pub fn remove(&mut self, id: RunnerId) -> &mut Self {
        self.inner.remove(id);
        self
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the batch has no operations.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

/// The runner chosen for a task.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pick {
    /// The runner.
    pub runner: RunnerId,
    /// Its rendezvous weight for the task ([`rendezvous_weight`]).
    pub weight: u64,
    /// How many runners were eligible (support the kind and match the selector).
    pub eligible: usize,
}

/// Routes tasks to runners: a [`RunnerIndex`] of runners, each with the [`KindSet`] it runs.
///
/// [`RunnerRouter::pick`] keeps the runners that run the task's kind and whose labels match
/// the spec's runner selector, and picks the one with the highest [`rendezvous_weight`] for
/// the task id. The choice is deterministic, spreads tasks evenly, and stays put when
/// runners other than the chosen one come and go. Reads are lock-free (see [`RunnerIndex`]).
///
/// ```
/// use model_ids::{RunnerId, TaskId};
/// use model_selector::Labels;
/// use model_task::{KindSet, RouterBatch, RunnerRouter, SubprocessMode, TaskEnv, TaskKind, TaskSpec};
///
/// let router = RunnerRouter::new();
/// let mut batch = RouterBatch::new();
/// batch
///     .register(RunnerId::new("eu-1")?, Labels::from_pairs([("zone", "eu")])?, KindSet::ALL)
///     .register(RunnerId::new("us-1")?, Labels::from_pairs([("zone", "us")])?, KindSet::ALL);
/// router.apply(batch)?;
///
/// let mode = SubprocessMode::command("/bin/true".into(), vec![])?;
/// let kind = TaskKind::subprocess(mode, TaskEnv::default(), None)?;
/// let spec = TaskSpec::builder("nightly", kind, 60_000)
///     .runner_selector("zone=eu".parse()?)
///     .build()?;
/// let pick = router.pick(&spec, &TaskId::new("t-1")?)?;
/// assert_eq!(pick.runner.as_ref(), "eu-1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct RunnerRouter {
    index: RunnerIndex<RunnerInfo>,
}

impl RunnerRouter {
    /// A router without runners.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies `batch` as a whole.
    ///
    /// # Errors
    ///
    /// [`TaskError::Selector`] with the index's error (a runner registered twice, updated or
    /// removed when absent, or a limit); the router is unchanged then.
    pub fn apply(&self, batch: RouterBatch) -> Result<(), TaskError> {
        self.index.apply(batch.inner).map_err(TaskError::Selector)
    }

    /// Replaces every runner, atomically.
    ///
    /// # Errors
    ///
    /// [`TaskError::Selector`] for a duplicate id or more than
    /// [`MAX_RUNNERS`](model_selector::MAX_RUNNERS) runners; the router is unchanged then.
    pub fn replace_all<I>(&self, runners: I) -> Result<(), TaskError>
    where
        I: IntoIterator<Item = (RunnerId, Labels, KindSet)>,
    {
        self.index
            .replace_all(runners.into_iter().map(|(id, labels, kinds)| {
                let info = RunnerInfo::new(&id, kinds);
                (id, labels, info)
            }))
            .map_err(TaskError::Selector)
    }

    /// The current runners, for reading at leisure.
    pub fn snapshot(&self) -> Arc<Snapshot<RunnerInfo>> {
        self.index.snapshot()
    }

    /// The runner for the task `task_id` with this spec.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotRoutable`] for an embedded task; [`TaskError::NoRunner`] when no
    /// runner both runs the kind and matches the selector, with the counts that say which
    /// of the two failed.
    pub fn pick(&self, spec: &TaskSpec, task_id: &TaskId) -> Result<Pick, TaskError> {
        let name = routable(spec)?;
        let wanted = KindProbe::new(&name);
        let snapshot = self.index.load();
        let task = task_key(task_id);
        let mut best: Option<(u64, RunnerEntry<'_, RunnerInfo>)> = None;
        let mut eligible = 0;
        // `for_each` runs the index's internal iteration: one tight loop per chunk.
        snapshot.select(spec.runner_selector()).for_each(|entry| {
            let info = entry.payload();
            if wanted.matches(&info.kinds) {
                eligible += 1;
                let w = weight(task, info.key);
                if best.is_none_or(|(b, _)| w > b) {
                    best = Some((w, entry));
                }
            }
        });
        match best {
            Some((weight, entry)) => Ok(Pick {
                runner: entry.id().clone(),
                weight,
                eligible,
            }),
            None => Err(no_runner(&snapshot, spec, name)),
        }
    }

    /// Every eligible runner (runs the kind, matches the selector), in runner id order.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotRoutable`] for an embedded task.
    pub fn candidates(&self, spec: &TaskSpec) -> Result<Vec<RunnerId>, TaskError> {
        let name = routable(spec)?;
        let wanted = KindProbe::new(&name);
        let snapshot = self.index.load();
        Ok(snapshot
            .select(spec.runner_selector())
            .filter(|e| wanted.matches(&e.payload().kinds))
            .map(|e| e.id().clone())
            .collect())
    }

    /// For every runner, in id order, whether it is picked for task `task_id`, outranked, or
    /// rejected and why (kind not supported, which selector requirements fail). The
    /// explanation holds the selector's requirements once and a fixed size per runner.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotRoutable`] for an embedded task.
    pub fn explain(
        &self,
        spec: &TaskSpec,
        task_id: &TaskId,
    ) -> Result<RouteExplanation, TaskError> {
        let name = routable(spec)?;
        let task = task_key(task_id);
        explain::explain(
            self.index.snapshot(),
            spec.runner_selector(),
            name,
            |info| weight(task, info.key),
        )
    }
}

/// The name of the spec's kind, or the error for an embedded task.
fn routable(spec: &TaskSpec) -> Result<KindName, TaskError> {
    KindName::of(spec.kind()).ok_or(TaskError::NotRoutable {
        kind: spec.kind().type_name(),
    })
}

/// The error when no runner is eligible, with the counts that say why.
fn no_runner(snapshot: &Snapshot<RunnerInfo>, spec: &TaskSpec, name: KindName) -> TaskError {
    let selector: &LabelSelector = spec.runner_selector();
    let wanted = KindProbe::new(&name);
    let supporting = snapshot
        .iter()
        .filter(|e| wanted.matches(&e.payload().kinds))
        .count();
    TaskError::NoRunner {
        kind: name,
        selector: shorten(&selector.to_string()),
        runners: snapshot.len(),
        supporting,
        matching: snapshot.count(selector),
    }
}

#[cfg(test)]
mod tests;
