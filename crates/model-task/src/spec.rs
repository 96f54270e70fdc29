//! `TaskSpec`, the desired state of a task, its builder, and the raw wire twin parsing goes
//! through so that every parsed spec is valid and every error names its field.

use chrono::{DateTime, Utc};
use model_ids::{BoundedPairs, BoundedVec, IdError, Slot};
use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RandomSource, RestartPolicy};
use model_selector::{
    LabelSelector, Labels, MAX_REQUIREMENTS, RunnerSelector, SelectorOperator, SelectorRequirement,
};
use serde::{Deserialize, Serialize};

use crate::bounded::{self, MatchExpressions, MatchLabels, Values};
use crate::error::{InvalidReason, TaskError};
use crate::kind::{TaskKind, TaskKindRaw};
use crate::restart::{RestartDecision, decide_restart};
use crate::status::AttemptOutcome;
use crate::timeout::Timeout;

/// The desired state of a task: where it runs (slot, runner selector), what it runs (kind),
/// for how long (timeout), and what happens on failure (restart, backoff, retries) or when
/// its slot is busy (admission).
///
/// Fields are private: build one with [`TaskSpec::builder`] or parse one with serde. Both
/// validate, so every `TaskSpec` value is valid; [`TaskSpec::validate`] adds the rules of
/// the submit boundary.
///
/// On the wire, camelCase: `slot`, `kind`, `timeoutMs` (required), `restart`, `backoff`,
/// `admission`, `runnerSelector`, `labels`, `maxRetries` (optional; policies take their
/// defaults, selector and labels are empty, `maxRetries` absent means unlimited). Unknown
/// fields are rejected. Errors name the field path (`kind.mode.body`,
/// `runnerSelector.matchExpressions[1].values`, `labels["x"]`).
///
/// ```
/// use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy};
/// use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};
///
/// let mode = SubprocessMode::command("/usr/bin/backup".into(), vec!["--all".into()])?;
/// let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None)?;
/// let spec = TaskSpec::builder("nightly", kind, 5_000)
///     .restart(RestartPolicy::OnFailure)
///     .backoff(BackoffPolicy::new(JitterPolicy::Equal, 1_000, 30_000, 2.0)?)
///     .max_retries(3)
///     .build()?;
/// spec.validate()?;
/// assert_eq!(spec.slot().as_str(), "nightly");
///
/// let json = serde_json::to_string(&spec)?;
/// assert_eq!(serde_json::from_str::<TaskSpec>(&json)?, spec);
///
/// let bad = json.replace(r#""timeoutMs":5000"#, r#""timeoutMs":0"#);
/// let err = serde_json::from_str::<TaskSpec>(&bad).unwrap_err();
/// assert!(err.to_string().starts_with("invalid timeoutMs: must be greater than zero"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TaskSpecRaw")]
pub struct TaskSpec {
    slot: Slot,
    kind: TaskKind,
    #[serde(rename = "timeoutMs")]
    timeout: Timeout,
    restart: RestartPolicy,
    backoff: BackoffPolicy,
    admission: AdmissionPolicy,
    #[serde(skip_serializing_if = "LabelSelector::is_empty")]
    runner_selector: RunnerSelector,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    labels: Labels,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_retries: Option<u32>,
}

impl TaskSpec {
    /// Starts a builder with the three required fields; the slot and the timeout are checked
    /// by [`TaskSpecBuilder::build`].
    pub fn builder(slot: impl AsRef<str>, kind: TaskKind, timeout_ms: u64) -> TaskSpecBuilder {
        TaskSpecBuilder {
            slot: Slot::new(slot.as_ref()),
            kind,
            timeout_ms,
            restart: RestartPolicy::default(),
            backoff: BackoffPolicy::default(),
            admission: AdmissionPolicy::default(),
            runner_selector: RunnerSelector::default(),
            labels: Labels::default(),
            max_retries: None,
        }
    }

    /// The submit boundary. Everything parsing and the builder check holds for every
    /// `TaskSpec` by construction; this adds the rules for specs submitted to a control
    /// plane: an [`TaskKind::Embedded`] task runs in process and cannot be submitted
    /// (error path `kind.type`).
    pub fn validate(&self) -> Result<(), TaskError> {
        if matches!(self.kind, TaskKind::Embedded) {
            return Err(TaskError::invalid_input(
                "kind.type",
                "embedded",
                InvalidReason::EmbeddedNotSubmittable,
            ));
        }
        Ok(())
    }

    /// The slot: the lane in which at most one task of a kind is active.
    pub const fn slot(&self) -> &Slot {
        &self.slot
    }

    /// What the task runs.
    pub const fn kind(&self) -> &TaskKind {
        &self.kind
    }

    /// The per-attempt timeout.
    pub const fn timeout(&self) -> Timeout {
        self.timeout
    }

    /// When an ended attempt is restarted.
    pub const fn restart(&self) -> RestartPolicy {
        self.restart
    }

    /// The delay before each restart.
    pub const fn backoff(&self) -> &BackoffPolicy {
        &self.backoff
    }

    /// What happens when the slot already has an active task.
    pub const fn admission(&self) -> AdmissionPolicy {
        self.admission
    }

    /// Which runners may take the task.
    pub const fn runner_selector(&self) -> &RunnerSelector {
        &self.runner_selector
    }

    /// The task's own labels, for queries.
    pub const fn labels(&self) -> &Labels {
        &self.labels
    }

    /// Attempts allowed after the first; `None` means unlimited.
    pub const fn max_retries(&self) -> Option<u32> {
        self.max_retries
    }

    /// [`decide_restart`] with this spec's restart policy, `max_retries` and backoff.
    pub fn decide_restart<R: RandomSource + ?Sized>(
        &self,
        outcome: AttemptOutcome,
        attempts_used: u32,
        previous_delay_ms: Option<u64>,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<RestartDecision, TaskError> {
        decide_restart(
            self.restart,
            self.max_retries,
            &self.backoff,
            outcome,
            attempts_used,
            previous_delay_ms,
            rng,
            now,
        )
    }
}

/// Builds a [`TaskSpec`]; see [`TaskSpec::builder`]. Unset optional fields take their
/// defaults.
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskSpecBuilder {
    slot: Result<Slot, IdError>,
    kind: TaskKind,
    timeout_ms: u64,
    restart: RestartPolicy,
    backoff: BackoffPolicy,
    admission: AdmissionPolicy,
    runner_selector: RunnerSelector,
    labels: Labels,
    max_retries: Option<u32>,
}

impl TaskSpecBuilder {
    /// Sets the restart policy (default `never`).
    pub fn restart(self, restart: RestartPolicy) -> Self {
        Self { restart, ..self }
    }

    /// Sets the backoff policy (default: full jitter, 1 s first, 30 s max, factor 2).
    pub fn backoff(self, backoff: BackoffPolicy) -> Self {
        Self { backoff, ..self }
    }

    /// Sets the admission policy (default `dropIfRunning`).
    pub fn admission(self, admission: AdmissionPolicy) -> Self {
        Self { admission, ..self }
    }

    /// Sets the runner selector (default: empty, matches every runner).
    pub fn runner_selector(self, runner_selector: RunnerSelector) -> Self {
        Self {
            runner_selector,
            ..self
        }
    }

    /// Sets the labels (default: none).
    pub fn labels(self, labels: Labels) -> Self {
        Self { labels, ..self }
    }

    /// Sets how many attempts may follow the first (default: unlimited).
    pub fn max_retries(self, max_retries: u32) -> Self {
        Self {
            max_retries: Some(max_retries),
            ..self
        }
    }

    /// The spec, or the first invalid field (`slot`, then `timeoutMs`).
    pub fn build(self) -> Result<TaskSpec, TaskError> {
        let slot = self.slot.map_err(|error| TaskError::Id {
            path: "slot".into(),
            error,
        })?;
        let timeout = Timeout::new(self.timeout_ms).map_err(|e| e.at("timeoutMs"))?;
        Ok(TaskSpec {
            slot,
            kind: self.kind,
            timeout,
            restart: self.restart,
            backoff: self.backoff,
            admission: self.admission,
            runner_selector: self.runner_selector,
            labels: self.labels,
            max_retries: self.max_retries,
        })
    }
}

// ---- The unvalidated wire twin.

/// The wire form of [`TaskSpec`]: plain serde types only, so that every rule is checked in
/// one place (`TryFrom`) and each error gets its full field path.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskSpecRaw {
    slot: String,
    kind: TaskKindRaw,
    timeout_ms: u64,
    #[serde(default)]
    restart: Option<RestartPolicy>,
    #[serde(default)]
    backoff: Option<BackoffRaw>,
    #[serde(default)]
    admission: Option<AdmissionPolicy>,
    #[serde(default)]
    runner_selector: Option<SelectorRaw>,
    #[serde(default)]
    labels: Option<BoundedPairs<bounded::Labels>>,
    #[serde(default)]
    max_retries: Option<u32>,
}

impl TryFrom<TaskSpecRaw> for TaskSpec {
    type Error = TaskError;

    fn try_from(raw: TaskSpecRaw) -> Result<Self, TaskError> {
        let slot = Slot::new(&raw.slot).map_err(|error| TaskError::Id {
            path: "slot".into(),
            error,
        })?;
        let kind = TaskKind::try_from(raw.kind).map_err(|e| e.at("kind"))?;
        let timeout = Timeout::new(raw.timeout_ms).map_err(|e| e.at("timeoutMs"))?;
        let backoff = match raw.backoff {
            Some(backoff) => backoff.validate().map_err(|e| e.at("backoff"))?,
            None => BackoffPolicy::default(),
        };
        let runner_selector = match raw.runner_selector {
            Some(selector) => selector.validate().map_err(|e| e.at("runnerSelector"))?,
            None => RunnerSelector::default(),
        };
        let labels = match raw.labels {
            Some(pairs) => Labels::from_pairs(pairs.into_inner())
                .map_err(|e| TaskError::Selector(e.prefixed("labels")))?,
            None => Labels::default(),
        };
        Ok(Self {
            slot,
            kind,
            timeout,
            restart: raw.restart.unwrap_or_default(),
            backoff,
            admission: raw.admission.unwrap_or_default(),
            runner_selector,
            labels,
            max_retries: raw.max_retries,
        })
    }
}

/// The wire form of a backoff policy; absent fields take the policy's defaults.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BackoffRaw {
    #[serde(default)]
    jitter: Option<JitterPolicy>,
    #[serde(default)]
    first_ms: Option<u64>,
    #[serde(default)]
    max_ms: Option<u64>,
    #[serde(default)]
    factor: Option<f64>,
}

impl BackoffRaw {
    /// Paths are relative to the backoff object (`firstMs`).
    pub(crate) fn validate(self) -> Result<BackoffPolicy, TaskError> {
        let default = BackoffPolicy::default();
        BackoffPolicy::new(
            self.jitter.unwrap_or(default.jitter()),
            self.first_ms.unwrap_or(default.first_ms()),
            self.max_ms.unwrap_or(default.max_ms()),
            self.factor.unwrap_or(default.factor()),
        )
        .map_err(|error| {
            let path = match &error {
                model_policy::PolicyError::InvalidBackoff { field, .. } => (*field).to_owned(),
                _ => String::new(),
            };
            TaskError::Policy { path, error }
        })
    }
}

/// The wire form of a label selector (Kubernetes `metav1.LabelSelector`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SelectorRaw {
    #[serde(default)]
    match_labels: Option<BoundedPairs<MatchLabels>>,
    #[serde(default)]
    match_expressions: Option<BoundedVec<RequirementRaw, MatchExpressions>>,
}

/// The wire form of one selector requirement.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequirementRaw {
    key: String,
    operator: SelectorOperator,
    #[serde(default)]
    values: Option<BoundedVec<String, Values>>,
}

impl SelectorRaw {
    /// Paths are relative to the selector (`matchExpressions[1].values`).
    pub(crate) fn validate(self) -> Result<RunnerSelector, TaskError> {
        let match_labels = self.match_labels.unwrap_or_default().into_inner();
        let match_expressions = self.match_expressions.unwrap_or_default().into_inner();
        let total = match_labels.len() + match_expressions.len();
        if total > MAX_REQUIREMENTS {
            return Err(TaskError::invalid(
                "",
                InvalidReason::TooMany {
                    len: total,
                    max: MAX_REQUIREMENTS,
                },
            ));
        }
        let mut builder = LabelSelector::builder();
        for (key, value) in match_labels {
            builder = builder.label(key, value);
        }
        for (i, req) in match_expressions.into_iter().enumerate() {
            let values = req.values.unwrap_or_default().into_inner();
            let requirement = SelectorRequirement::new(req.key, req.operator, values)
                .map_err(|e| TaskError::Selector(e.prefixed(&format!("matchExpressions[{i}]"))))?;
            builder = builder.requirement(requirement);
        }
        builder.build().map_err(TaskError::Selector)
    }
}

#[cfg(test)]
mod tests;
