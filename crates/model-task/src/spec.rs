//! The desired state of a task: [`TaskSpec`] and its builder; what it runs ([`TaskKind`]:
//! a subprocess, a container, a wasm module or an embedded task) with its environment
//! ([`TaskEnv`], merged with a runner's by [`merge_env`]); its [`Timeout`]; the bound of every
//! field (the `MAX_*` constants); and the raw wire twins parsing goes through, so that every
//! parsed spec is valid and every error names its field.

use chrono::{DateTime, Utc};
use model_ids::Slot;
use model_policy::{AdmissionPolicy, BackoffPolicy, RandomSource, RestartPolicy};
use model_selector::{LabelSelector, Labels, RunnerSelector};
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::{AttemptOutcome, RestartDecision, RestartHistory, decide_restart};

mod builder;
mod env;
mod kind;
mod limits;
mod text;
mod timeout;
mod wire;

#[cfg(feature = "schema")]
pub(crate) use self::kind::schema as kind_schema;
pub use self::{
    builder::TaskSpecBuilder,
    env::{EnvVar, RunnerEnv, TaskEnv, merge_env},
    kind::{
        ExtensionKind, ExtensionSpec, Interpreter, KindName, MAX_API_VERSION_BYTES,
        MAX_EXTENSION_KIND_BYTES, MAX_EXTENSION_SPEC_BYTES, MAX_EXTENSION_SPEC_DEPTH,
        MAX_EXTENSION_SPEC_VALUES, ScriptBody, SubprocessMode, TaskKind,
    },
    limits::{
        MAX_ARG_BYTES, MAX_ARGS, MAX_ENV_KEY_BYTES, MAX_ENV_VALUE_BYTES, MAX_ENV_VARS,
        MAX_PATH_BYTES, MAX_PRIORITY, MAX_SCRIPT_BODY_BYTES, MAX_SCRIPT_BODY_ENCODED_BYTES,
        MAX_TIMEOUT_MS, MAX_TTL_AFTER_FINISHED_MS, MIN_PRIORITY,
    },
    timeout::Timeout,
};
pub(crate) use self::{
    env::EnvListRaw,
    kind::{FieldSet, TaskKindRaw, base64_detail},
    wire::{BackoffRaw, LabelsRaw, SelectorRaw, TaskSpecRaw},
};

/// The desired state of a task: where it runs (slot, runner selector), what it runs (kind),
/// for how long (timeout), and what happens on failure (restart, backoff, retries) or when
/// its slot is busy (admission).
///
/// Fields are private: build one with [`TaskSpec::builder`] or parse one with serde. Both
/// validate, so every `TaskSpec` value is valid; [`TaskSpec::validate`] adds the rules of
/// the submit boundary.
///
/// On the wire, camelCase: `slot`, `kind`, `timeoutMs` (required), `restart`, `backoff`,
/// `admission`, `runnerSelector`, `labels`, `maxRetries`, `priority`, `ttlAfterFinishedMs`
/// (optional; policies take their defaults, selector and labels are empty, `maxRetries`
/// absent means unlimited, `priority` is 0, no `ttlAfterFinishedMs` keeps a finished task
/// until it is deleted). Unknown fields are rejected. Errors name the field path (`kind.mode.body`,
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
    #[serde(skip_serializing_if = "is_zero")]
    priority: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_after_finished_ms: Option<u64>,
}

/// Whether a priority is the default, left out on the wire.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
const fn is_zero(priority: &i32) -> bool {
    *priority == 0
}

impl TaskSpec {
    /// Starts a builder with the three required fields; the slot and the timeout are checked
    /// by [`TaskSpecBuilder::build`].
    pub fn builder(slot: impl AsRef<str>, kind: TaskKind, timeout_ms: u64) -> TaskSpecBuilder {
        TaskSpecBuilder::new(slot.as_ref(), kind, timeout_ms)
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

    /// Failed attempts in a row that are retried (a timeout or an expired lease counts as a
    /// failure); `None` means unlimited. Successes of an `always` task spend none. For
    /// `onFailure`, whose restarts all follow failures, this is the attempts allowed after
    /// the first.
    pub const fn max_retries(&self) -> Option<u32> {
        self.max_retries
    }

    /// The priority, from [`MIN_PRIORITY`] to [`MAX_PRIORITY`] (default 0): among due
    /// tasks, a higher one is leased first (`docs/attempts.md`, "Queue order").
    pub const fn priority(&self) -> i32 {
        self.priority
    }

    /// How long a finished task is kept before it may be collected, in milliseconds (at most
    /// [`MAX_TTL_AFTER_FINISHED_MS`]; 0 collects it once it has finished); `None` keeps it
    /// until it is deleted. Kubernetes' `ttlSecondsAfterFinished`, in milliseconds.
    pub const fn ttl_after_finished_ms(&self) -> Option<u64> {
        self.ttl_after_finished_ms
    }

    /// [`decide_restart`] with this spec's restart policy, `max_retries` and backoff.
    pub fn decide_restart<R: RandomSource + ?Sized>(
        &self,
        outcome: AttemptOutcome,
        history: RestartHistory,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<RestartDecision, TaskError> {
        decide_restart(
            self.restart,
            self.max_retries,
            &self.backoff,
            outcome,
            history,
            rng,
            now,
        )
    }
}

#[cfg(test)]
mod tests;
