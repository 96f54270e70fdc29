//! Kubernetes-style conditions of a task: `Scheduled`, `Running` and `Succeeded`, each True,
//! False or Unknown with a reason, a message and the time its status last flipped.
//!
//! The task's own methods keep them: after every change they are worked out again from the
//! phase, the attempt and the generations ([`Conditions::refresh`]), and a condition's
//! `lastTransitionTime` moves only when its status flips. `docs/attempts.md`
//! ("Conditions") states what each one says.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use model_ids::{BoundedVec, Limit};
use serde::{Deserialize, Serialize};

use super::TaskPhase;
use crate::error::{InvalidReason, TaskError, broken_rule, index_path};

/// Most conditions a status reads from the wire (it holds one of each type).
pub const MAX_CONDITIONS: usize = 8;

/// Most bytes of a condition's reason (Kubernetes' bound).
pub const MAX_CONDITION_REASON_BYTES: usize = 1024;

/// Most bytes of a condition's message (Kubernetes' bound, 32 KiB).
pub const MAX_CONDITION_MESSAGE_BYTES: usize = 32 * 1024;

/// The kind of a condition. On the wire in PascalCase, as Kubernetes writes condition types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum ConditionType {
    /// Whether an attempt of the current generation of the spec was leased: True once one
    /// was (`status.observedGeneration` is `metadata.generation`), False while the current
    /// generation waits for its first attempt.
    Scheduled,
    /// Whether an attempt is active (leased or running): True exactly while the task is
    /// Running.
    Running,
    /// Whether the task ended well: True when it ended Succeeded, False when it ended
    /// another way, Unknown while it has not ended.
    Succeeded,
}

impl ConditionType {
    /// Every type, in the order a status writes them.
    pub const ALL: [ConditionType; 3] = [Self::Scheduled, Self::Running, Self::Succeeded];

    /// The wire form.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Scheduled => "Scheduled",
            Self::Running => "Running",
            Self::Succeeded => "Succeeded",
        }
    }
}

impl fmt::Display for ConditionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Whether a condition holds. On the wire `"True"`, `"False"` or `"Unknown"`, as Kubernetes
/// writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ConditionStatus {
    /// The condition holds.
    True,
    /// The condition does not hold.
    False,
    /// Whether it holds is not known yet.
    Unknown,
}

/// One condition: its type, whether it holds, a machine-readable reason (CamelCase, as
/// Kubernetes requires), a message for people, and when its status last flipped.
///
/// On the wire: `{"type": "Running", "status": "True", "reason": "AttemptActive",
/// "message": "attempt 2 is active", "lastTransitionTime": "2025-01-01T00:00:05Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "ConditionRaw")]
pub struct Condition {
    #[serde(rename = "type")]
    kind: ConditionType,
    status: ConditionStatus,
    reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    message: String,
    #[serde(serialize_with = "crate::time::write")]
    last_transition_time: DateTime<Utc>,
}

impl Condition {
    /// The type.
    pub const fn kind(&self) -> ConditionType {
        self.kind
    }

    /// Whether it holds.
    pub const fn status(&self) -> ConditionStatus {
        self.status
    }

    /// Why, in one CamelCase word (`AttemptActive`, `RestartScheduled`, `Exhausted`).
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Why, for people.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When the status last flipped (True, False, Unknown).
    pub const fn last_transition_time(&self) -> DateTime<Utc> {
        self.last_transition_time
    }

    /// Checks the reason and the message; paths are relative to the condition.
    fn check(&self) -> Result<(), TaskError> {
        check_reason(&self.reason)?;
        if self.message.len() > MAX_CONDITION_MESSAGE_BYTES {
            return Err(TaskError::invalid(
                "message",
                InvalidReason::TooLong {
                    len: self.message.len(),
                    max: MAX_CONDITION_MESSAGE_BYTES,
                },
            ));
        }
        Ok(())
    }
}

/// Checks a reason with Kubernetes' rule: a letter, then letters, digits, `_`, `,` or `:`,
/// ending with a letter, digit or `_`; at most [`MAX_CONDITION_REASON_BYTES`].
fn check_reason(reason: &str) -> Result<(), TaskError> {
    if reason.len() > MAX_CONDITION_REASON_BYTES {
        return Err(TaskError::invalid(
            "reason",
            InvalidReason::TooLong {
                len: reason.len(),
                max: MAX_CONDITION_REASON_BYTES,
            },
        ));
    }
    let bytes = reason.as_bytes();
    let first = bytes.first().is_some_and(u8::is_ascii_alphabetic);
    let last = bytes
        .last()
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let inner = bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b':'));
    if first && last && inner {
        Ok(())
    } else {
        Err(TaskError::invalid_input(
            "reason",
            reason,
            InvalidReason::Inconsistent {
                rule: "a reason starts with a letter and holds letters, digits, '_', ',' and ':', ending with a letter, digit or '_'",
            },
        ))
    }
}

/// What the conditions are worked out from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts {
    pub(crate) phase: TaskPhase,
    pub(crate) attempt: u32,
    pub(crate) observed_generation: u64,
    pub(crate) generation: u64,
    pub(crate) queued_at: Option<DateTime<Utc>>,
}

impl Facts {
    /// What a condition of `kind` says about these facts: its status, reason and message.
    fn expected(&self, kind: ConditionType) -> (ConditionStatus, &'static str, String) {
        use ConditionStatus::{False, True, Unknown};
        let Self {
            phase,
            attempt,
            observed_generation,
            generation,
            queued_at,
        } = *self;
        match kind {
            ConditionType::Scheduled if observed_generation == generation => (
                True,
                "AttemptLeased",
                format!("generation {generation} was leased (attempt {attempt})"),
            ),
            ConditionType::Scheduled if observed_generation == 0 => (
                False,
                "Queued",
                format!("generation {generation} waits for its first attempt"),
            ),
            ConditionType::Scheduled => (
                False,
                "SpecChanged",
                format!(
                    "generation {generation} waits for its first attempt; attempt {attempt} ran generation {observed_generation}"
                ),
            ),
            ConditionType::Running => match phase {
                TaskPhase::Running => (
                    True,
                    "AttemptActive",
                    format!("attempt {attempt} is active"),
                ),
                TaskPhase::Pending if attempt == 0 => {
                    (False, "Queued", "no attempt has started".to_owned())
                }
                TaskPhase::Pending => (
                    False,
                    "RestartScheduled",
                    match queued_at {
                        Some(at) => format!(
                            "attempt {} is due at {}",
                            attempt.saturating_add(1),
                            at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
                        ),
                        None => format!("attempt {} is due", attempt.saturating_add(1)),
                    },
                ),
                _ => (False, "Ended", format!("the task ended {phase}")),
            },
            ConditionType::Succeeded => match phase {
                TaskPhase::Succeeded => (True, "Succeeded", format!("attempt {attempt} succeeded")),
                TaskPhase::Pending | TaskPhase::Running => {
                    (Unknown, "NotEnded", "the task has not ended".to_owned())
                }
                TaskPhase::Failed => (False, "Failed", format!("attempt {attempt} failed")),
                TaskPhase::Timeout => (False, "Timeout", format!("attempt {attempt} timed out")),
                TaskPhase::Canceled => (False, "Canceled", "the task was canceled".to_owned()),
                TaskPhase::Exhausted => (
                    False,
                    "Exhausted",
                    format!("attempt {attempt} ended and no restart is left"),
                ),
            },
        }
    }
}

/// The three conditions of a task, one of each [`ConditionType`]; written as a list in
/// type order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conditions {
    scheduled: Condition,
    running: Condition,
    succeeded: Condition,
}

impl Conditions {
    /// The conditions of `facts`, each last flipped `at`.
    pub(crate) fn new(facts: &Facts, at: DateTime<Utc>) -> Self {
        let make = |kind| {
            let (status, reason, message) = facts.expected(kind);
            Condition {
                kind,
                status,
                reason: reason.to_owned(),
                message,
                last_transition_time: at,
            }
        };
        Self {
            scheduled: make(ConditionType::Scheduled),
            running: make(ConditionType::Running),
            succeeded: make(ConditionType::Succeeded),
        }
    }

    /// The conditions in type order.
    pub(crate) fn as_array(&self) -> [&Condition; 3] {
        [&self.scheduled, &self.running, &self.succeeded]
    }

    fn as_array_mut(&mut self) -> [&mut Condition; 3] {
        [&mut self.scheduled, &mut self.running, &mut self.succeeded]
    }

    /// Works each condition out again from `facts`: the reason and the message follow the
    /// facts; the status too, and when it flips, `lastTransitionTime` becomes `at`.
    pub(crate) fn refresh(&mut self, facts: &Facts, at: DateTime<Utc>) {
        for condition in self.as_array_mut() {
            let (status, reason, message) = facts.expected(condition.kind);
            if condition.status != status {
                condition.status = status;
                condition.last_transition_time = at;
            }
            if condition.reason != reason {
                reason.clone_into(&mut condition.reason);
            }
            condition.message = message;
        }
    }

    /// Checks that the status of each condition of `kinds` agrees with `facts` and that
    /// its transition time is within `[from, to]`; paths are relative to the list
    /// (`[1].status`).
    pub(crate) fn check(
        &self,
        kinds: &[ConditionType],
        facts: &Facts,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<(), TaskError> {
        let checked = self.as_array().into_iter().enumerate();
        for (i, condition) in checked.filter(|(_, c)| kinds.contains(&c.kind)) {
            if condition.status != facts.expected(condition.kind).0 {
                return broken_rule(
                    &index_path(i, "status"),
                    "the condition disagrees with the task's phase or generations",
                );
            }
            let at = condition.last_transition_time;
            if at < from || at > to {
                return broken_rule(
                    &index_path(i, "lastTransitionTime"),
                    "a condition flipped between the task's creation and its last change",
                );
            }
        }
        Ok(())
    }
}

impl Serialize for Conditions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.as_array())
    }
}

/// The bound of a condition list read from the wire.
pub(crate) enum ConditionsLimit {}

impl Limit for ConditionsLimit {
    const FIELD: &'static str = "conditions";
    const MAX: usize = MAX_CONDITIONS;
}

/// The wire form of a condition list: at most [`MAX_CONDITIONS`], unchecked.
pub(crate) type ConditionsRaw = BoundedVec<ConditionRaw, ConditionsLimit>;

/// Reads a condition list: each type exactly once, in any order. Paths are relative to the
/// list (`[2].reason`).
pub(crate) fn read_conditions(raw: ConditionsRaw) -> Result<Conditions, TaskError> {
    let mut found: [Option<Condition>; 3] = [None, None, None];
    for (i, raw) in raw.into_inner().into_iter().enumerate() {
        let condition = Condition::try_from(raw).map_err(|e| e.at(&index_path(i, "")))?;
        let slot = ConditionType::ALL
            .iter()
            .position(|kind| *kind == condition.kind)
            .and_then(|at| found.get_mut(at));
        match slot {
            Some(slot @ None) => *slot = Some(condition),
            _ => {
                return Err(TaskError::invalid(
                    index_path(i, "type"),
                    InvalidReason::Inconsistent {
                        rule: "each condition type appears once",
                    },
                ));
            }
        }
    }
    match found {
        [Some(scheduled), Some(running), Some(succeeded)] => Ok(Conditions {
            scheduled,
            running,
            succeeded,
        }),
        _ => Err(TaskError::invalid(
            "",
            InvalidReason::Inconsistent {
                rule: "a status has a Scheduled, a Running and a Succeeded condition",
            },
        )),
    }
}

/// The wire form of [`Condition`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ConditionRaw {
    #[serde(rename = "type")]
    kind: ConditionType,
    status: ConditionStatus,
    reason: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(deserialize_with = "crate::time::read")]
    last_transition_time: DateTime<Utc>,
}

impl TryFrom<ConditionRaw> for Condition {
    type Error = TaskError;

    fn try_from(raw: ConditionRaw) -> Result<Self, TaskError> {
        let condition = Self {
            kind: raw.kind,
            status: raw.status,
            reason: raw.reason,
            message: raw.message.unwrap_or_default(),
            last_transition_time: raw.last_transition_time,
        };
        condition.check()?;
        Ok(condition)
    }
}

#[cfg(test)]
mod tests;
