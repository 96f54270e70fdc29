//! The unvalidated wire twins of a spec.
//!
//! Parsing reads a [`TaskSpecRaw`] (plain serde types only) and validates it once, in
//! `TryFrom`, so every rule is checked in one place and each error gets its full field path.
//! Each collection is read through its bound (`super::limits`), so a hostile document costs
//! at most the limit in memory and time.

use model_ids::{BoundedPairs, BoundedVec, Slot};
use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy};
use model_selector::{
    LabelSelector, Labels, MAX_REQUIREMENTS, RunnerSelector, SelectorOperator, SelectorRequirement,
};
use serde::Deserialize;

use super::builder::{check_priority, check_ttl};
use super::kind::TaskKindRaw;
use super::limits::{MatchExpressions, MatchLabels, SpecLabels, Values};
use super::{TaskKind, TaskSpec, Timeout};
use crate::error::{InvalidReason, TaskError};

/// A label set as a spec reads it: at most [`model_selector::MAX_LABELS`] pairs.
pub(crate) type LabelsRaw = BoundedPairs<SpecLabels>;

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
    labels: Option<LabelsRaw>,
    #[serde(default)]
    max_retries: Option<u32>,
    #[serde(default)]
    priority: Option<i32>,
    #[serde(default)]
    ttl_after_finished_ms: Option<u64>,
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
        let priority = raw.priority.unwrap_or_default();
        check_priority(priority)?;
        check_ttl(raw.ttl_after_finished_ms)?;
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
            priority,
            ttl_after_finished_ms: raw.ttl_after_finished_ms,
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
