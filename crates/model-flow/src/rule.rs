//! Trigger rules (`when`) and failure policies: when a job may run given its upstream jobs,
//! and what a failure does to the rest of the flow.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::state::{JobState, SkipReason, Upstream};

/// When a job runs, given the final states of the jobs it depends on (its upstream jobs),
/// after Airflow's trigger rules of the same names. On the wire `when`, camelCase; the
/// default is `allSucceeded`.
///
/// An upstream job counts as **succeeded** when it succeeded; as **failed** when it failed,
/// was canceled, or was skipped because of a failure upstream of it
/// ([`SkipReason::UpstreamFailed`], Airflow's `upstream_failed`); and as **skipped** when it
/// was skipped for any other reason. A job with no dependencies runs at once, whatever its
/// rule. A job whose rule can no longer hold is skipped, with the reason in the table, and
/// its own dependents see that skip in turn.
///
/// | rule | runs | skipped | a skipped upstream job |
/// | --- | --- | --- | --- |
/// | `allSucceeded` | when every upstream job succeeded | as soon as one failed (`upstreamFailed`); otherwise as soon as one was skipped (`notTriggered`) | skips this job |
/// | `allDone` | when every upstream job is final, whatever its state | never | counts as done |
/// | `anySucceeded` | as soon as one upstream job succeeded, without waiting for the others | when all are final and none succeeded: `notTriggered` if all were skipped, else `upstreamFailed` | does not count as a success |
/// | `anyFailed` | as soon as one upstream job failed, without waiting for the others | when all are final and none failed (`notTriggered`) | does not count as a failure (an `upstreamFailed` skip does) |
/// | `noneFailed` | when every upstream job is final and none failed (each succeeded or was skipped) | as soon as one failed (`upstreamFailed`) | counts as done, not as a failure |
///
/// The same as Airflow's `all_success`, `all_done`, `one_success`, `one_failed` and
/// `none_failed`, including the order in which a skip takes its reason; the one difference is
/// that Airflow has no canceled state, and a canceled job here counts as failed.
///
/// ```
/// use model_flow::TriggerRule;
///
/// let rule: TriggerRule = serde_json::from_str(r#""allDone""#)?;
/// assert_eq!(rule, TriggerRule::AllDone);
/// assert_eq!(TriggerRule::default(), TriggerRule::AllSucceeded);
/// assert_eq!(rule.to_string(), "allDone");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum TriggerRule {
    /// Every upstream job succeeded (the default).
    #[default]
    AllSucceeded,
    /// Every upstream job is final.
    AllDone,
    /// At least one upstream job succeeded.
    AnySucceeded,
    /// At least one upstream job failed.
    AnyFailed,
    /// Every upstream job is final and none failed.
    NoneFailed,
}

impl TriggerRule {
    /// Every rule, in declaration order.
    pub const ALL: [TriggerRule; 5] = [
        TriggerRule::AllSucceeded,
        TriggerRule::AllDone,
        TriggerRule::AnySucceeded,
        TriggerRule::AnyFailed,
        TriggerRule::NoneFailed,
    ];

    /// The wire name (`"allSucceeded"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            TriggerRule::AllSucceeded => "allSucceeded",
            TriggerRule::AllDone => "allDone",
            TriggerRule::AnySucceeded => "anySucceeded",
            TriggerRule::AnyFailed => "anyFailed",
            TriggerRule::NoneFailed => "noneFailed",
        }
    }

    /// Whether the rule asks for upstream success (`allSucceeded`, `anySucceeded`,
    /// `noneFailed`): these are the jobs a [`FailurePolicy::FailFast`] flow skips after a
    /// failure, while `allDone` and `anyFailed` jobs (clean-up, alerts) still run.
    pub const fn wants_success(self) -> bool {
        match self {
            TriggerRule::AllSucceeded | TriggerRule::AnySucceeded | TriggerRule::NoneFailed => true,
            TriggerRule::AllDone | TriggerRule::AnyFailed => false,
        }
    }

    /// What a waiting job of this rule becomes, given how many upstream jobs it has
    /// (`dependencies`) and how many of them are final ([`UpstreamTally`]): ready when the
    /// rule holds, skipped (with the reason) when it can no longer hold, `None` while it is
    /// still undecided. This is the one decision [`FlowRun`](crate::FlowRun) and
    /// [`end_job`](crate::end_job) make for each dependent of a job that ended.
    ///
    /// ```
    /// use model_flow::{JobState, SkipReason, TriggerRule, UpstreamTally};
    ///
    /// let one_failed = UpstreamTally::new(1, 1, 0);
    /// assert_eq!(TriggerRule::AllDone.decide(one_failed, 3), None);
    /// assert_eq!(TriggerRule::AnyFailed.decide(one_failed, 3), Some(JobState::Ready));
    /// assert_eq!(
    ///     TriggerRule::AllSucceeded.decide(one_failed, 3),
    ///     Some(JobState::Skipped(SkipReason::UpstreamFailed)),
    /// );
    /// ```
    pub const fn decide(self, tally: UpstreamTally, dependencies: u32) -> Option<JobState> {
        match self.verdict(tally, dependencies) {
            Verdict::Wait => None,
            Verdict::Run => Some(JobState::Ready),
            Verdict::Skip(reason) => Some(JobState::Skipped(reason)),
        }
    }

    /// What the rule says of a job whose `total` upstream jobs are final as `tally` says.
    pub(crate) const fn verdict(self, tally: UpstreamTally, total: u32) -> Verdict {
        if total == 0 {
            return Verdict::Run;
        }
        let all_done = tally.done() >= total;
        match self {
            TriggerRule::AllSucceeded if tally.failed > 0 => {
                Verdict::Skip(SkipReason::UpstreamFailed)
            }
            TriggerRule::AllSucceeded if tally.skipped > 0 => {
                Verdict::Skip(SkipReason::NotTriggered)
            }
            TriggerRule::AllSucceeded if tally.succeeded >= total => Verdict::Run,
            TriggerRule::AllDone if all_done => Verdict::Run,
            TriggerRule::AnySucceeded if tally.succeeded > 0 => Verdict::Run,
            TriggerRule::AnySucceeded if all_done && tally.skipped >= total => {
                Verdict::Skip(SkipReason::NotTriggered)
            }
            TriggerRule::AnySucceeded if all_done => Verdict::Skip(SkipReason::UpstreamFailed),
            TriggerRule::AnyFailed if tally.failed > 0 => Verdict::Run,
            TriggerRule::AnyFailed if all_done => Verdict::Skip(SkipReason::NotTriggered),
            TriggerRule::NoneFailed if tally.failed > 0 => {
                Verdict::Skip(SkipReason::UpstreamFailed)
            }
            TriggerRule::NoneFailed if all_done => Verdict::Run,
            TriggerRule::AllSucceeded
            | TriggerRule::AllDone
            | TriggerRule::AnySucceeded
            | TriggerRule::AnyFailed
            | TriggerRule::NoneFailed => Verdict::Wait,
        }
    }

    /// Whether a job of this rule may have been skipped for `reason` by the rule itself,
    /// given its upstream tally now. Each condition only ever turns true as upstream jobs
    /// end, so a skip the rule made earlier still passes later (reading a stored run back).
    pub(crate) const fn allows_skip(
        self,
        reason: SkipReason,
        tally: UpstreamTally,
        total: u32,
    ) -> bool {
        let all_done = total > 0 && tally.done() >= total;
        match (self, reason) {
            (TriggerRule::AllSucceeded | TriggerRule::NoneFailed, SkipReason::UpstreamFailed) => {
                tally.failed > 0
            }
            (TriggerRule::AnySucceeded, SkipReason::UpstreamFailed) => {
                all_done && tally.succeeded == 0 && tally.skipped < total
            }
            (TriggerRule::AllSucceeded, SkipReason::NotTriggered) => tally.skipped > 0,
            (TriggerRule::AnySucceeded, SkipReason::NotTriggered) => {
                all_done && tally.skipped >= total
            }
            (TriggerRule::AnyFailed, SkipReason::NotTriggered) => all_done && tally.failed == 0,
            _ => false,
        }
    }
}

impl fmt::Display for TriggerRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What a job's failure does to the rest of its flow. On the wire `failurePolicy`,
/// camelCase; the default is `failFast`.
///
/// A failure here is a job that ended failed or canceled (after its retries: see
/// [`FlowRun::end_attempt`](crate::FlowRun::end_attempt)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum FailurePolicy {
    /// Once a job fails, every job not yet started whose rule asks for success
    /// ([`TriggerRule::wants_success`]) is skipped ([`SkipReason::FailFast`]) and the flow
    /// ends in error. Running jobs finish; `allDone` and `anyFailed` jobs still run when
    /// their rule holds, so clean-up and alert jobs see the failure. (Airflow's `fail_fast`
    /// refuses any rule but `all_success`; this keeps the other two useful instead.)
    #[default]
    FailFast,
    /// Jobs go on as their rules say: independent branches run to their end.
    Continue,
}

impl FailurePolicy {
    /// The wire name (`"failFast"` or `"continue"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            FailurePolicy::FailFast => "failFast",
            FailurePolicy::Continue => "continue",
        }
    }
}

impl fmt::Display for FailurePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// How many of a job's upstream jobs are final, by how they count for its trigger rule:
/// what [`TriggerRule::decide`] reads, and what a store keeps in each job's row.
///
/// An upstream job counts as succeeded when it succeeded; as failed when it failed, was
/// canceled, or was skipped as [`SkipReason::UpstreamFailed`]; as skipped when it was
/// skipped for any other reason (see [`TriggerRule`]).
///
/// ```
/// use model_flow::{JobState, SkipReason, UpstreamTally};
///
/// let mut tally = UpstreamTally::default();
/// tally.add(JobState::Succeeded);
/// tally.add(JobState::Skipped(SkipReason::UpstreamFailed));
/// tally.add(JobState::Running); // not final: not counted
/// assert_eq!((tally.succeeded(), tally.failed(), tally.skipped()), (1, 1, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct UpstreamTally {
    /// Upstream jobs that succeeded.
    pub(crate) succeeded: u32,
    /// Upstream jobs that failed, were canceled, or were skipped as `upstreamFailed`.
    pub(crate) failed: u32,
    /// Upstream jobs skipped for any other reason.
    pub(crate) skipped: u32,
}

impl UpstreamTally {
    /// A tally of these counts (as a store reads them back).
    pub const fn new(succeeded: u32, failed: u32, skipped: u32) -> Self {
        Self {
            succeeded,
            failed,
            skipped,
        }
    }

    /// Upstream jobs that succeeded.
    pub const fn succeeded(self) -> u32 {
        self.succeeded
    }

    /// Upstream jobs that failed, were canceled, or were skipped as `upstreamFailed`.
    pub const fn failed(self) -> u32 {
        self.failed
    }

    /// Upstream jobs skipped for any other reason.
    pub const fn skipped(self) -> u32 {
        self.skipped
    }

    /// Counts one more upstream job that is now in `state`; a state that is not final
    /// counts nothing.
    pub fn add(&mut self, state: JobState) {
        if let Some(upstream) = state.upstream() {
            self.count(upstream);
        }
    }

    /// Counts one more final upstream job.
    pub(crate) fn count(&mut self, upstream: Upstream) {
        let count = match upstream {
            Upstream::Succeeded => &mut self.succeeded,
            Upstream::Failed => &mut self.failed,
            Upstream::Skipped => &mut self.skipped,
        };
        *count = count.saturating_add(1);
    }

    /// Upstream jobs that are final (saturating: a tally read from outside may hold
    /// anything).
    pub(crate) const fn done(self) -> u32 {
        self.succeeded
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }
}

/// What a trigger rule says of a job now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not decided yet: some upstream job has still to end.
    Wait,
    /// The rule holds: the job may start.
    Run,
    /// The rule can no longer hold: the job is skipped for this reason.
    Skip(SkipReason),
}

#[cfg(test)]
mod tests;
