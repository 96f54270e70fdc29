//! Retention rules as data: for each [`ResourceKind`] a [`RetentionRule`] (cleanup
//! priority, time to live after finishing, cascade, history limits, and whether an active
//! owner holds what it owns), gathered in a [`RetentionPolicy`] whose defaults are a table.

mod wire;

use serde::{Deserialize, Serialize};

pub(crate) use self::wire::{HistoryLimitsRaw, RetentionPolicyRaw, RetentionRuleRaw};
use crate::error::{InvalidReason, RetentionError};
use crate::kind::ResourceKind;
use crate::limits::{MAX_CLEANUP_PRIORITY, MAX_HISTORY_LIMIT, MAX_TTL_AFTER_FINISHED_MS};

/// What happens to the resources an owner owns when the owner is deleted, after
/// Kubernetes' propagation policies.
///
/// On the wire in camelCase (`"foreground"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum CascadePolicy {
    /// The owner goes at once; what it owns goes with it when it can, and what cannot go
    /// yet (still running) is collected later, its owner being gone.
    Background,
    /// The owner goes only after everything it owns: one thing still running or still
    /// needed keeps the owner too.
    Foreground,
    /// The owner goes alone; what it owns stays, and the caller removes the owner from
    /// each one's references ([`Release`](crate::Release)).
    Orphan,
}

/// How many finished resources an owner keeps of each kind it controls: the newest
/// `succeeded` that succeeded and the newest `failed` that did not, as Kubernetes'
/// CronJob keeps `successfulJobsHistoryLimit` (3) and `failedJobsHistoryLimit` (1) jobs.
///
/// On the wire: `{"succeeded": 3, "failed": 1}`, each at most [`MAX_HISTORY_LIMIT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "HistoryLimitsRaw", into = "HistoryLimitsRaw")]
pub struct HistoryLimits {
    succeeded: u32,
    failed: u32,
}

impl HistoryLimits {
    /// Kubernetes CronJob's defaults: 3 succeeded, 1 failed (model-schedule's
    /// [`DEFAULT_SUCCESSFUL_HISTORY_LIMIT`](model_schedule::DEFAULT_SUCCESSFUL_HISTORY_LIMIT)
    /// and [`DEFAULT_FAILED_HISTORY_LIMIT`](model_schedule::DEFAULT_FAILED_HISTORY_LIMIT)).
    pub const CRONJOB: Self = Self {
        succeeded: model_schedule::DEFAULT_SUCCESSFUL_HISTORY_LIMIT,
        failed: model_schedule::DEFAULT_FAILED_HISTORY_LIMIT,
    };

    /// Keep `succeeded` and `failed`; each at most [`MAX_HISTORY_LIMIT`].
    pub fn new(succeeded: u32, failed: u32) -> Result<Self, RetentionError> {
        for (path, value) in [("succeeded", succeeded), ("failed", failed)] {
            if value > MAX_HISTORY_LIMIT {
                return Err(RetentionError::invalid(
                    path,
                    InvalidReason::TooLarge {
                        value: u64::from(value),
                        max: u64::from(MAX_HISTORY_LIMIT),
                    },
                ));
            }
        }
        Ok(Self { succeeded, failed })
    }

    /// How many succeeded resources are kept.
    pub const fn succeeded(self) -> u32 {
        self.succeeded
    }

    /// How many failed resources are kept.
    pub const fn failed(self) -> u32 {
        self.failed
    }
}

/// The retention rule of one kind of resource.
///
/// - `cleanupPriority` (0 to 100, default 50): higher is deleted sooner, after the
///   manifests' cleanup priorities; an owner still comes after what it owns.
/// - `ttlAfterFinishedMs`: how long a finished resource is kept; absent, it is kept until
///   something else deletes it (its owner, a history limit). A resource's own value
///   (a task's `ttlAfterFinishedMs`) wins over its kind's.
/// - `cascade` (default foreground): what deleting one of these does to what it owns.
/// - `history`: how many finished resources one of these keeps of each kind it controls.
/// - `holdWhileActive` (default false): while one of these is active (draft), it needs
///   everything it owns, so nothing it owns is collected before it finishes (history
///   limits still trim).
///
/// ```
/// use model_retention::{CascadePolicy, HistoryLimits, RetentionRule};
///
/// let rule = RetentionRule::builder(10)
///     .ttl_after_finished_ms(7 * 86_400_000)
///     .cascade(CascadePolicy::Background)
///     .history(HistoryLimits::new(5, 2)?)
///     .build()?;
/// assert_eq!(rule.cleanup_priority(), 10);
/// assert_eq!(rule.history().map(HistoryLimits::failed), Some(2));
/// # Ok::<(), model_retention::RetentionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RetentionRuleRaw", into = "RetentionRuleRaw")]
pub struct RetentionRule {
    cleanup_priority: u8,
    ttl_after_finished_ms: Option<u64>,
    cascade: CascadePolicy,
    history: Option<HistoryLimits>,
    hold_while_active: bool,
}

impl RetentionRule {
    /// The cleanup priority a rule has when none is given: 50, the manifests' default.
    pub const DEFAULT_CLEANUP_PRIORITY: u8 = 50;

    /// A rule with `cleanup_priority` and the neutral rest: no time to live, foreground
    /// cascade, no history limits, not holding.
    pub const fn builder(cleanup_priority: u8) -> RetentionRuleBuilder {
        RetentionRuleBuilder {
            rule: Self {
                cleanup_priority,
                ttl_after_finished_ms: None,
                cascade: CascadePolicy::Foreground,
                history: None,
                hold_while_active: false,
            },
        }
    }

    /// Higher is deleted sooner (0 to 100).
    pub const fn cleanup_priority(&self) -> u8 {
        self.cleanup_priority
    }

    /// How long a finished resource of this kind is kept, unless it says otherwise.
    pub const fn ttl_after_finished_ms(&self) -> Option<u64> {
        self.ttl_after_finished_ms
    }

    /// What deleting one of these does to what it owns.
    pub const fn cascade(&self) -> CascadePolicy {
        self.cascade
    }

    /// How many finished resources one of these keeps of each kind it controls.
    pub const fn history(&self) -> Option<HistoryLimits> {
        self.history
    }

    /// Whether an active one needs everything it owns.
    pub const fn hold_while_active(&self) -> bool {
        self.hold_while_active
    }

    /// Checks the bounds a builder or the wire cannot have checked yet.
    fn validate(self) -> Result<Self, RetentionError> {
        if self.cleanup_priority > MAX_CLEANUP_PRIORITY {
            return Err(RetentionError::invalid(
                "cleanupPriority",
                InvalidReason::TooLarge {
                    value: u64::from(self.cleanup_priority),
                    max: u64::from(MAX_CLEANUP_PRIORITY),
                },
            ));
        }
        check_ttl("ttlAfterFinishedMs", self.ttl_after_finished_ms)?;
        Ok(self)
    }
}

/// A time to live is at most [`MAX_TTL_AFTER_FINISHED_MS`].
pub(crate) fn check_ttl(path: &str, ttl_ms: Option<u64>) -> Result<(), RetentionError> {
    match ttl_ms {
        Some(value) if value > MAX_TTL_AFTER_FINISHED_MS => Err(RetentionError::invalid(
            path,
            InvalidReason::TooLarge {
                value,
                max: MAX_TTL_AFTER_FINISHED_MS,
            },
        )),
        _ => Ok(()),
    }
}

/// Builds a [`RetentionRule`]; [`build`](Self::build) checks the bounds.
#[derive(Debug, Clone)]
#[must_use]
pub struct RetentionRuleBuilder {
    rule: RetentionRule,
}

impl RetentionRuleBuilder {
    /// Keep finished resources `ms` milliseconds (at most [`MAX_TTL_AFTER_FINISHED_MS`]).
    pub const fn ttl_after_finished_ms(mut self, ms: u64) -> Self {
        self.rule.ttl_after_finished_ms = Some(ms);
        self
    }

    /// What deleting one of these does to what it owns.
    pub const fn cascade(mut self, cascade: CascadePolicy) -> Self {
        self.rule.cascade = cascade;
        self
    }

    /// Keep this many finished resources of each kind it controls.
    pub const fn history(mut self, history: HistoryLimits) -> Self {
        self.rule.history = Some(history);
        self
    }

    /// Whether an active one needs everything it owns.
    pub const fn hold_while_active(mut self, hold: bool) -> Self {
        self.rule.hold_while_active = hold;
        self
    }

    /// The rule, or the first bound it breaks.
    pub fn build(self) -> Result<RetentionRule, RetentionError> {
        self.rule.validate()
    }
}

/// One day in milliseconds, the manifests' default retention.
const DAY_MS: u64 = 86_400_000;

/// The task rule's attempt history: 100 succeeded and 100 failed attempts, so a task that
/// restarts forever (`Always` with `intervalMs`) keeps a bounded history.
const TASK_ATTEMPT_HISTORY: HistoryLimits = HistoryLimits {
    succeeded: 100,
    failed: 100,
};

/// The default table; `docs/retention.md` shows it and a test keeps the two equal.
const DEFAULT_POLICY: RetentionPolicy = RetentionPolicy {
    // attempt: its record and output go first; kept as long as its task (no time to live).
    attempt: RetentionRule::builder(90).rule,
    // action: a schedule's firing, a day after it finished.
    action: RetentionRule::builder(80)
        .ttl_after_finished_ms(DAY_MS)
        .rule,
    // task: a day after it finished; an active task holds its attempts, 100 of each kept.
    task: RetentionRule::builder(50)
        .ttl_after_finished_ms(DAY_MS)
        .history(TASK_ATTEMPT_HISTORY)
        .hold_while_active(true)
        .rule,
    // flow: a day after it finished; an active flow holds its tasks.
    flow: RetentionRule::builder(30)
        .ttl_after_finished_ms(DAY_MS)
        .hold_while_active(true)
        .rule,
    // schedule: last, kept until deleted; keeps CronJob's history of what it created.
    schedule: RetentionRule::builder(10)
        .cascade(CascadePolicy::Background)
        .history(HistoryLimits::CRONJOB)
        .rule,
};

/// The retention rule of every [`ResourceKind`]: the default table, with the kinds a caller
/// overrides.
///
/// The defaults, in short: attempts (priority 90) stay as long as their task; actions
/// (80), tasks (50) and flows (30) are kept a day after they finish; an active task holds
/// its attempts (100 succeeded and 100 failed kept) and an active flow its tasks; schedules
/// (10) are kept until deleted, keep CronJob's history (3 succeeded, 1 failed) and cascade
/// in the background. `docs/retention.md` ("Defaults") has the table.
///
/// On the wire: `{"rules": {"task": {...}, ...}}`; a kind listed replaces its default rule
/// (its absent fields take the neutral values of [`RetentionRule::builder`]), the others
/// keep theirs. It writes all five.
///
/// ```
/// use model_retention::{ResourceKind, RetentionPolicy};
///
/// let policy: RetentionPolicy = serde_json::from_str(
///     r#"{"rules": {"task": {"cleanupPriority": 50, "ttlAfterFinishedMs": 3600000}}}"#,
/// )?;
/// assert_eq!(policy.rule(ResourceKind::Task).ttl_after_finished_ms(), Some(3_600_000));
/// assert_eq!(policy.rule(ResourceKind::Flow), RetentionPolicy::DEFAULT.rule(ResourceKind::Flow));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RetentionPolicyRaw", into = "RetentionPolicyRaw")]
pub struct RetentionPolicy {
    attempt: RetentionRule,
    action: RetentionRule,
    task: RetentionRule,
    flow: RetentionRule,
    schedule: RetentionRule,
}

impl RetentionPolicy {
    /// The default table.
    pub const DEFAULT: Self = DEFAULT_POLICY;

    /// The rule of `kind`.
    pub const fn rule(&self, kind: ResourceKind) -> &RetentionRule {
        match kind {
            ResourceKind::Attempt => &self.attempt,
            ResourceKind::Action => &self.action,
            ResourceKind::Task => &self.task,
            ResourceKind::Flow => &self.flow,
            ResourceKind::Schedule => &self.schedule,
        }
    }

    /// This policy with `rule` for `kind`.
    #[must_use]
    pub const fn with_rule(mut self, kind: ResourceKind, rule: RetentionRule) -> Self {
        match kind {
            ResourceKind::Attempt => self.attempt = rule,
            ResourceKind::Action => self.action = rule,
            ResourceKind::Task => self.task = rule,
            ResourceKind::Flow => self.flow = rule,
            ResourceKind::Schedule => self.schedule = rule,
        }
        self
    }
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests;
