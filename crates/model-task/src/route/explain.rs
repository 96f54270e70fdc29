//! Why each runner was or was not chosen for a task: [`RouteExplanation`], which
//! [`RunnerRouter::explain`](super::RunnerRouter::explain) builds.
//!
//! The explanation holds the runner selector's requirements once, in canonical order, and a
//! rejected runner's verdict names the requirements it fails by their position
//! ([`RequirementSet`]); the reasons are read from the runner's labels when asked for. So
//! an explanation takes the selector's size plus a fixed size per runner, never their
//! product.

use std::{fmt, sync::Arc};

use model_ids::RunnerId;
use model_selector::{FailureReason, LabelSelector, Labels, MAX_REQUIREMENTS, Snapshot};

use super::{KindProbe, KindSet, RunnerInfo};
use crate::error::TaskError;
use crate::spec::KindName;

/// Words of a [`RequirementSet`]: one bit for each requirement a selector may hold.
const WORDS: usize = MAX_REQUIREMENTS.div_ceil(64);

/// A set of positions in [`RouteExplanation::requirements`]: the requirements a runner's
/// labels fail.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RequirementSet([u64; WORDS]);

impl RequirementSet {
    /// The empty set.
    pub const fn new() -> Self {
        Self([0; WORDS])
    }

    /// Adds position `index` (below [`MAX_REQUIREMENTS`]; a larger one is ignored).
    fn insert(&mut self, index: usize) {
        if let Some(word) = self.0.get_mut(index / 64) {
            *word |= 1 << (index % 64);
        }
    }

    /// Whether position `index` is in the set.
    pub fn contains(&self, index: usize) -> bool {
        self.0
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// How many positions the set holds.
    pub fn len(&self) -> usize {
        self.0.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|word| *word == 0)
    }

    /// The positions, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + use<> {
        let words = self.0;
        (0..WORDS * 64).filter(move |&i| {
            words
                .get(i / 64)
                .is_some_and(|word| word & (1 << (i % 64)) != 0)
        })
    }
}

impl fmt::Debug for RequirementSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// One requirement of a task's runner selector, as an explanation shows it, once for every
/// runner.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteRequirement {
    /// Where the requirement is in the selector's canonical wire form: `matchLabels["zone"]`
    /// or `matchExpressions[2]`.
    pub path: String,
    /// The requirement in string syntax, e.g. `gpu in (a100,h100)`.
    pub requirement: String,
    /// The label key it tests.
    pub key: String,
    /// The requirement alone, which tests a runner's labels without allocating.
    alone: LabelSelector,
}

impl RouteRequirement {
    /// Why `labels` fail this requirement, or `None` when they do not fail it.
    fn reason(&self, labels: &Labels) -> Option<FailureReason> {
        self.alone
            .explain(labels)
            .pop()
            .map(|failure| failure.reason)
    }
}

/// One requirement a runner's labels fail, and why: what
/// [`LabelSelector::explain`] gives, with the requirement shared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteFailure<'a> {
    /// The requirement.
    pub requirement: &'a RouteRequirement,
    /// Why the runner's labels fail it.
    pub reason: FailureReason,
}

/// `path (requirement): reason`, as [`RequirementFailure`](model_selector::RequirementFailure)
/// prints it.
impl fmt::Display for RouteFailure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.requirement.path, self.requirement.requirement, self.reason
        )
    }
}

/// How one runner fared for a task, in [`RouteExplanation`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteOutcome {
    /// The runner was picked.
    Picked,
    /// Eligible, but another eligible runner has a higher rendezvous weight for this task.
    Outranked {
        /// This runner's weight ([`rendezvous_weight`](super::rendezvous_weight)).
        weight: u64,
    },
    /// Not eligible: the kind is not supported, or selector requirements fail, or both.
    Rejected {
        /// Whether the runner runs the task's kind.
        kind_supported: bool,
        /// The selector requirements the runner's labels fail, as positions in
        /// [`RouteExplanation::requirements`]; empty when the labels match.
        /// [`RouteExplanation::failures`] gives them with their reasons.
        failed: RequirementSet,
    },
}

/// One line without the requirements' text: `picked`, `eligible, but outranked ...`, or
/// `kind not supported; 2 selector requirements fail` ([`RouteExplanation::reason`] names
/// them).
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
                failed,
            } => {
                if !kind_supported {
                    f.write_str("kind not supported")?;
                }
                match failed.len() {
                    0 => Ok(()),
                    n => {
                        let sep = if *kind_supported { "" } else { "; " };
                        let s = if n == 1 { "" } else { "s" };
                        write!(f, "{sep}{n} selector requirement{s} fail")
                    }
                }
            }
        }
    }
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

/// Why each runner was or was not chosen for a task, from
/// [`RunnerRouter::explain`](super::RunnerRouter::explain).
///
/// The selector's requirements are here once ([`requirements`](Self::requirements)); a
/// rejected verdict names the ones its runner fails by position, and
/// [`failures`](Self::failures) and [`reason`](Self::reason) give them with their reasons,
/// read from the runner's labels in the snapshot that was explained.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RouteExplanation {
    /// The task's kind.
    pub kind: KindName,
    /// The runner picked, if any runner is eligible.
    pub picked: Option<RunnerId>,
    /// Every runner, in runner id order.
    pub runners: Vec<RunnerVerdict>,
    /// The runner selector's requirements in canonical order, each once.
    pub requirements: Vec<RouteRequirement>,
    /// The runners that were explained, for their labels.
    snapshot: Arc<Snapshot<RunnerInfo>>,
}

impl RouteExplanation {
    /// The requirements `verdict`'s runner fails, in canonical order, each with its reason:
    /// what [`LabelSelector::explain`] gives for the runner's labels. Nothing for a runner
    /// that is not rejected by its labels, or for a verdict of another explanation.
    pub fn failures<'a>(
        &'a self,
        verdict: &RunnerVerdict,
    ) -> impl Iterator<Item = RouteFailure<'a>> + 'a {
        let failed = match &verdict.outcome {
            RouteOutcome::Rejected { failed, .. } => *failed,
            RouteOutcome::Picked | RouteOutcome::Outranked { .. } => RequirementSet::new(),
        };
        let labels = self
            .snapshot
            .get(verdict.runner.as_str())
            .map(|entry| entry.labels());
        failed.iter().filter_map(move |i| {
            let requirement = self.requirements.get(i)?;
            let reason = requirement.reason(labels?)?;
            Some(RouteFailure {
                requirement,
                reason,
            })
        })
    }

    /// Why `verdict`'s runner was or was not chosen, in one line: `picked`, `eligible, but
    /// outranked ...`, or `kind not supported; matchLabels["zone"] (zone=eu): value "us"
    /// is not listed; ...`.
    pub fn reason<'a>(&'a self, verdict: &'a RunnerVerdict) -> impl fmt::Display + 'a {
        Reason {
            explanation: self,
            verdict,
        }
    }
}

/// The line [`RouteExplanation::reason`] prints.
struct Reason<'a> {
    explanation: &'a RouteExplanation,
    verdict: &'a RunnerVerdict,
}

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RouteOutcome::Rejected { kind_supported, .. } = self.verdict.outcome else {
            return self.verdict.outcome.fmt(f);
        };
        let mut sep = "";
        if !kind_supported {
            f.write_str("kind not supported")?;
            sep = "; ";
        }
        for failure in self.explanation.failures(self.verdict) {
            write!(f, "{sep}{failure}")?;
            sep = "; ";
        }
        Ok(())
    }
}

/// The selector's requirements in canonical order, each alone: `matchLabels` and
/// `matchExpressions` each come in canonical order, and the two merge by key, a
/// `matchLabels` entry before the expressions on the same key.
fn requirements(selector: &LabelSelector) -> Result<Vec<RouteRequirement>, TaskError> {
    let mut labels = selector.match_labels().peekable();
    let mut expressions = selector.match_expressions().peekable();
    let mut out = Vec::with_capacity(selector.len());
    let mut expression = 0;
    loop {
        let label_first = match (labels.peek(), expressions.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some((key, _)), Some(e)) => *key <= e.key(),
        };
        let next = if label_first {
            labels.next().map(|(key, value)| {
                let alone = LabelSelector::builder().label(key, value).build();
                (format!("matchLabels[{key:?}]"), key, alone)
            })
        } else {
            expressions.next().map(|e| {
                expression += 1;
                let alone = LabelSelector::builder()
                    .requirement(e.to_requirement())
                    .build();
                (
                    format!("matchExpressions[{}]", expression - 1),
                    e.key(),
                    alone,
                )
            })
        };
        let Some((path, key, alone)) = next else {
            break;
        };
        let alone = alone.map_err(TaskError::Selector)?;
        out.push(RouteRequirement {
            path,
            requirement: alone.to_string(),
            key: key.to_owned(),
            alone,
        });
    }
    Ok(out)
}

/// Builds the explanation over `snapshot` for a task of kind `kind` whose runner selector is
/// `selector`; `weight` gives an eligible runner's rendezvous weight.
pub(super) fn explain(
    snapshot: Arc<Snapshot<RunnerInfo>>,
    selector: &LabelSelector,
    kind: KindName,
    weight: impl Fn(&RunnerInfo) -> u64,
) -> Result<RouteExplanation, TaskError> {
    let requirements = requirements(selector)?;
    let wanted = KindProbe::new(&kind);
    let mut runners = Vec::with_capacity(snapshot.len());
    let mut best: Option<(u64, usize)> = None;
    for entry in snapshot.iter() {
        let info = entry.payload();
        let kind_supported = wanted.matches(&info.kinds);
        let labels = entry.labels();
        let mut failed = RequirementSet::new();
        if !selector.matches(labels) {
            for (i, requirement) in requirements.iter().enumerate() {
                if !requirement.alone.matches(labels) {
                    failed.insert(i);
                }
            }
        }
        let outcome = if kind_supported && failed.is_empty() {
            let w = weight(info);
            if best.is_none_or(|(b, _)| w > b) {
                best = Some((w, runners.len()));
            }
            RouteOutcome::Outranked { weight: w }
        } else {
            RouteOutcome::Rejected {
                kind_supported,
                failed,
            }
        };
        runners.push(RunnerVerdict {
            runner: entry.id().clone(),
            kinds: info.kinds.clone(),
            outcome,
        });
    }
    let picked = best.and_then(|(_, i)| {
        let verdict = runners.get_mut(i)?;
        verdict.outcome = RouteOutcome::Picked;
        Some(verdict.runner.clone())
    });
    Ok(RouteExplanation {
        kind,
        picked,
        runners,
        requirements,
        snapshot,
    })
}
