//! `RunnerRouter`: which runner takes a task, by its kind, its runner selector and
//! rendezvous hashing over the runner index; with the candidates and a per-runner explanation.

use std::{fmt, ops::BitOr, str::FromStr, sync::Arc};

use model_ids::{RunnerId, TaskId};
use model_selector::{
    Batch, LabelSelector, Labels, RequirementFailure, RunnerEntry, RunnerIndex, Snapshot,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::error::{TaskError, shorten};
use crate::spec::{TaskKind, TaskSpec};

/// The routable task kinds, by wire name, in bit order.
const KIND_NAMES: [&str; 3] = ["subprocess", "container", "wasm"];

/// A set of routable task kinds: the kinds a runner can run.
///
/// Written on the wire as an array of kind names (`["subprocess", "container"]`), the
/// `"type"` tags of [`TaskKind`]. `embedded` is not among them: an embedded task runs in
/// process and is never routed.
///
/// ```
/// use model_task::KindSet;
///
/// let kinds: KindSet = "subprocess,container".parse()?;
/// assert!(kinds.contains(KindSet::CONTAINER));
/// assert!(!kinds.contains(KindSet::WASM));
/// assert_eq!(kinds.to_string(), "subprocess,container");
/// assert!("embedded".parse::<KindSet>().is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct KindSet(u8);

impl KindSet {
    /// No kind.
    pub const EMPTY: Self = Self(0);
    /// [`TaskKind::Subprocess`].
    pub const SUBPROCESS: Self = Self(1);
    /// [`TaskKind::Container`].
    pub const CONTAINER: Self = Self(1 << 1);
    /// [`TaskKind::Wasm`].
    pub const WASM: Self = Self(1 << 2);
    /// Every routable kind.
    pub const ALL: Self = Self(0b111);

    /// The one-kind set of `kind`, or `None` for [`TaskKind::Embedded`], which is not routable.
    pub fn of(kind: &TaskKind) -> Option<Self> {
        match kind {
            TaskKind::Subprocess { .. } => Some(Self::SUBPROCESS),
            TaskKind::Container { .. } => Some(Self::CONTAINER),
            TaskKind::Wasm { .. } => Some(Self::WASM),
            TaskKind::Embedded => None,
        }
    }

    /// The set of one kind given by its wire name.
    ///
    /// # Errors
    ///
    /// [`TaskError::UnknownKind`] for any other name, `embedded` included.
    pub fn from_name(name: &str) -> Result<Self, TaskError> {
        KIND_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self(1 << i))
            .ok_or_else(|| TaskError::UnknownKind {
                input: shorten(name),
            })
    }

    /// Whether every kind of `other` is in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The wire names of the kinds in the set, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        KIND_NAMES
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, name)| name)
    }
}

impl BitOr for KindSet {
    type Output = Self;

    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl fmt::Debug for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// The names joined by `,` (the empty set prints nothing).
impl fmt::Display for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// Kind names separated by commas (spaces allowed); the empty string is the empty set.
impl FromStr for KindSet {
    type Err = TaskError;

    fn from_str(s: &str) -> Result<Self, TaskError> {
        s.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .try_fold(Self::EMPTY, |set, name| Ok(set | Self::from_name(name)?))
    }
}

impl Serialize for KindSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.names())
    }
}

impl<'de> Deserialize<'de> for KindSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> de::Visitor<'de> for Names {
            type Value = KindSet;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of task kind names")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<KindSet, A::Error> {
                // Each name is checked as it arrives, so a long array costs no memory.
                let mut set = KindSet::EMPTY;
                while let Some(name) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
                    set = set | KindSet::from_name(&name).map_err(de::Error::custom)?;
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(Names)
    }
}

// ---------------------------------------------------------------------------------------
// Rendezvous hashing.

/// 64-bit FNV-1a.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut rest = bytes;
    while let [byte, tail @ ..] = rest {
        h ^= *byte as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        rest = tail;
    }
    h
}

/// The splitmix64 finalizer.
const fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The rendezvous weight of running `task` on `runner`: the rule [`RunnerRouter::pick`]
/// uses, written out so any other party can compute the same choice.
///
/// `weight = splitmix64(fnv1a64(task) XOR splitmix64(fnv1a64(runner)))`, where `fnv1a64`
/// is 64-bit FNV-1a over the id's UTF-8 bytes (offset basis `0xcbf29ce484222325`, prime
/// `0x100000001b3`) and `splitmix64(z)` adds `0x9e3779b97f4a7c15` and then applies the
/// splitmix64 finalizer (`z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27;
/// z *= 0x94d049bb133111eb; z ^= z >> 31`, wrapping). Among the eligible runners the one
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
    fnv1a(task.as_ref().as_bytes())
}

fn runner_key(runner: &RunnerId) -> u64 {
    splitmix(fnv1a(runner.as_ref().as_bytes()))
}

#[inline]
fn weight(task_key: u64, runner_key: u64) -> u64 {
    splitmix(task_key ^ runner_key)
}

// ---------------------------------------------------------------------------------------
// The router.

/// What the router stores for each runner: the kinds it runs, and its rendezvous key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    pub fn kinds(&self) -> KindSet {
        self.kinds
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

/// How one runner fared for a task, in [`RouteExplanation`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteOutcome {
    /// The runner was picked.
    Picked,
    /// Eligible, but another eligible runner has a higher rendezvous weight for this task.
    Outranked {
        /// This runner's weight ([`rendezvous_weight`]).
        weight: u64,
    },
    /// Not eligible: the kind is not supported, or selector requirements fail, or both.
    Rejected {
        /// Whether the runner runs the task's kind.
        kind_supported: bool,
        /// The runner selector's requirements the runner's labels fail (from
        /// [`LabelSelector::explain`]); empty when the labels match.
        failures: Vec<RequirementFailure>,
    },
}

/// One runner in a [`RouteExplanation`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunnerVerdict {
    /// The runner.
    pub runner: RunnerId,
    /// The kinds it runs.
    pub kinds: KindSet,
    /// Picked, outranked or rejected, and why.
    pub outcome: RouteOutcome,
}

/// Why each runner was or was not chosen for a task, from [`RunnerRouter::explain`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteExplanation {
    /// The task's kind (its wire name).
    pub kind: &'static str,
    /// The runner picked, if any runner is eligible.
    pub picked: Option<RunnerId>,
    /// Every runner, in runner id order.
    pub runners: Vec<RunnerVerdict>,
}

impl fmt::Display for RouteOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Picked => f.write_str("picked"),
            Self::Outranked { weight } => write!(
                f,
                "eligible, but outranked for this task (rendezvous weight {weight:#018x})"
            ),
            Self::Rejected {
                kind_supported,
                failures,
            } => {
                let mut sep = "";
                if !kind_supported {
                    f.write_str("kind not supported")?;
                    sep = "; ";
                }
                for failure in failures {
                    write!(f, "{sep}{failure}")?;
                    sep = "; ";
                }
                Ok(())
            }
        }
    }
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
        let wanted = routable(spec)?;
        let snapshot = self.index.load();
        let task = task_key(task_id);
        let mut best: Option<(u64, RunnerEntry<'_, RunnerInfo>)> = None;
        let mut eligible = 0;
        // `for_each` runs the index's internal iteration: one tight loop per chunk.
        snapshot.select(spec.runner_selector()).for_each(|entry| {
            let info = entry.payload();
            if info.kinds.contains(wanted) {
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
            None => Err(no_runner(&snapshot, spec, wanted)),
        }
    }

    /// Every eligible runner (runs the kind, matches the selector), in runner id order.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotRoutable`] for an embedded task.
    pub fn candidates(&self, spec: &TaskSpec) -> Result<Vec<RunnerId>, TaskError> {
        let wanted = routable(spec)?;
        let snapshot = self.index.load();
        Ok(snapshot
            .select(spec.runner_selector())
            .filter(|e| e.payload().kinds.contains(wanted))
            .map(|e| e.id().clone())
            .collect())
    }

    /// For every runner, in id order, whether it is picked for task `task_id`, outranked, or
    /// rejected and why (kind not supported, which selector requirements fail).
    ///
    /// # Errors
    ///
    /// [`TaskError::NotRoutable`] for an embedded task.
    pub fn explain(
        &self,
        spec: &TaskSpec,
        task_id: &TaskId,
    ) -> Result<RouteExplanation, TaskError> {
        let wanted = routable(spec)?;
        let snapshot = self.index.snapshot();
        let selector = spec.runner_selector();
        let task = task_key(task_id);
        let mut runners = Vec::with_capacity(snapshot.len());
        let mut best: Option<(u64, usize)> = None;
        for entry in snapshot.iter() {
            let info = entry.payload();
            let kind_supported = info.kinds.contains(wanted);
            let failures = selector.explain(entry.labels());
            let outcome = if kind_supported && failures.is_empty() {
                let w = weight(task, info.key);
                if best.is_none_or(|(b, _)| w > b) {
                    best = Some((w, runners.len()));
                }
                RouteOutcome::Outranked { weight: w }
            } else {
                RouteOutcome::Rejected {
                    kind_supported,
                    failures,
                }
            };
            runners.push(RunnerVerdict {
                runner: entry.id().clone(),
                kinds: info.kinds,
                outcome,
            });
        }
        let picked = best.and_then(|(_, i)| {
            let verdict = runners.get_mut(i)?;
            verdict.outcome = RouteOutcome::Picked;
            Some(verdict.runner.clone())
        });
        Ok(RouteExplanation {
            kind: spec.kind().type_name(),
            picked,
            runners,
        })
    }
}

/// The spec's kind as a set, or the error for an embedded task.
fn routable(spec: &TaskSpec) -> Result<KindSet, TaskError> {
    KindSet::of(spec.kind()).ok_or(TaskError::NotRoutable {
        kind: spec.kind().type_name(),
    })
}

/// The error when no runner is eligible, with the counts that say why.
fn no_runner(snapshot: &Snapshot<RunnerInfo>, spec: &TaskSpec, wanted: KindSet) -> TaskError {
    let selector: &LabelSelector = spec.runner_selector();
    TaskError::NoRunner {
        kind: spec.kind().type_name(),
        selector: shorten(&selector.to_string()),
        runners: snapshot.len(),
        supporting: snapshot
            .iter()
            .filter(|e| e.payload().kinds.contains(wanted))
            .count(),
        matching: snapshot.count(selector),
    }
}

#[cfg(test)]
mod tests;
