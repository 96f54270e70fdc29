//! The wire form of `Action`: raw twins read field by field (no buffering), so every bound
//! holds while reading, then checked in one place.

use base64::{Engine, engine::general_purpose::STANDARD};
use chrono::{DateTime, Utc};
use model_ids::ActionId;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{Action, ActionStatus, ActionTrigger, json};
use crate::state::ActionState;
use model_ids::text::shorten;

use crate::{
    error::ScheduleError,
    interval::Interval,
    limits::{
        MAX_ACTION_LABEL_BYTES, MAX_ACTION_REASON_BYTES, MAX_ACTION_RESULT_BYTES,
        MAX_WEBHOOK_PAYLOAD_BYTES, MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES,
    },
};

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawAction {
    id: ActionId,
    label: String,
    trigger: RawTrigger,
    status: RawStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recurrence_ms: Option<u64>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// The kind of an action trigger: the `type` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum TriggerType {
    Scheduled,
    Webhook,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawTrigger {
    #[serde(rename = "type")]
    kind: TriggerType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    next_tick_at: Option<DateTime<Utc>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded_payload"
    )]
    payload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    received_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawStatus {
    state: ActionState,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded_result"
    )]
    result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// Reads the payload text, refusing (before keeping it) text longer than the base64 of the
/// largest payload.
fn bounded_payload<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(deserializer)?;
    if let Some(text) = &text
        && text.len() > MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES
    {
        return Err(serde::de::Error::custom(ScheduleError::TooLong {
            path: "trigger.payload".to_owned(),
            len: text.len(),
            max: MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES,
        }));
    }
    Ok(text)
}

/// Reads the result with the budget of [`MAX_ACTION_RESULT_BYTES`], stopping at the bound.
fn bounded_result<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    json::read_bounded(deserializer, MAX_ACTION_RESULT_BYTES, |spent| {
        result_too_long(spent).to_string()
    })
    .map(|value| match value {
        Value::Null => None,
        value => Some(value),
    })
}

pub(super) fn result_too_long(len: usize) -> ScheduleError {
    ScheduleError::TooLong {
        path: "status.result".to_owned(),
        len,
        max: MAX_ACTION_RESULT_BYTES,
    }
}

/// A label: 1 to [`MAX_ACTION_LABEL_BYTES`] bytes, no control characters.
pub(super) fn check_label(label: String) -> Result<String, ScheduleError> {
    let invalid = |reason| ScheduleError::InvalidText {
        path: "label".to_owned(),
        input: shorten(&label),
        reason,
    };
    if label.len() > MAX_ACTION_LABEL_BYTES {
        return Err(ScheduleError::TooLong {
            path: "label".to_owned(),
            len: label.len(),
            max: MAX_ACTION_LABEL_BYTES,
        });
    }
    if label.is_empty() {
        return Err(invalid("must not be empty"));
    }
    if label.chars().any(char::is_control) {
        return Err(invalid("must not hold a control character"));
    }
    Ok(label)
}

pub(super) fn check_payload_len(len: usize) -> Result<(), ScheduleError> {
    if len > MAX_WEBHOOK_PAYLOAD_BYTES {
        return Err(ScheduleError::TooLong {
            path: "trigger.payload".to_owned(),
            len,
            max: MAX_WEBHOOK_PAYLOAD_BYTES,
        });
    }
    Ok(())
}

fn shape(path: &str, reason: &'static str) -> ScheduleError {
    ScheduleError::TriggerShape {
        path: path.to_owned(),
        reason,
    }
}

impl TryFrom<RawTrigger> for ActionTrigger {
    type Error = ScheduleError;

    fn try_from(raw: RawTrigger) -> Result<Self, ScheduleError> {
        match (raw.kind, raw.next_tick_at, raw.payload, raw.received_at) {
            (TriggerType::Scheduled, Some(next_tick_at), None, None) => {
                Ok(ActionTrigger::Scheduled { next_tick_at })
            }
            (TriggerType::Scheduled, ..) => Err(shape(
                "trigger",
                "a scheduled trigger has nextTickAt and nothing else",
            )),
            (TriggerType::Webhook, None, Some(payload), Some(received_at)) => {
                let payload = STANDARD.decode(payload.as_bytes()).map_err(|error| {
                    ScheduleError::InvalidBase64 {
                        path: "trigger.payload".to_owned(),
                        reason: error.to_string(),
                    }
                })?;
                check_payload_len(payload.len())?;
                Ok(ActionTrigger::Webhook {
                    payload,
                    received_at,
                })
            }
            (TriggerType::Webhook, ..) => Err(shape(
                "trigger",
                "a webhook trigger has payload and receivedAt and nothing else",
            )),
        }
    }
}

impl TryFrom<RawStatus> for ActionStatus {
    type Error = ScheduleError;

    fn try_from(raw: RawStatus) -> Result<Self, ScheduleError> {
        match (raw.state, raw.result, raw.reason) {
            (ActionState::Pending, None, None) => Ok(ActionStatus::Pending),
            (ActionState::Running, None, None) => Ok(ActionStatus::Running),
            (ActionState::Completed, result, None) => Ok(ActionStatus::Completed {
                result: result.unwrap_or(Value::Null),
            }),
            (ActionState::Failed, None, Some(reason)) => {
                if reason.len() > MAX_ACTION_REASON_BYTES {
                    return Err(ScheduleError::TooLong {
                        path: "status.reason".to_owned(),
                        len: reason.len(),
                        max: MAX_ACTION_REASON_BYTES,
                    });
                }
                Ok(ActionStatus::Failed { reason })
            }
            (ActionState::Failed, None, None) => {
                Err(shape("status", "a failed status has a reason"))
            }
            _ => Err(shape(
                "status",
                "only a completed status has a result, and only a failed one a reason",
            )),
        }
    }
}

impl TryFrom<RawAction> for Action {
    type Error = ScheduleError;

    fn try_from(raw: RawAction) -> Result<Self, ScheduleError> {
        let label = check_label(raw.label)?;
        let trigger = ActionTrigger::try_from(raw.trigger)?;
        let status = ActionStatus::try_from(raw.status)?;
        let recurrence = match raw.recurrence_ms {
            None => None,
            Some(_) if matches!(trigger, ActionTrigger::Webhook { .. }) => {
                return Err(ScheduleError::RecurrenceOnWebhook);
            }
            Some(ms) => Some(Interval::from_ms_at("recurrenceMs", ms)?),
        };
        if raw.updated_at < raw.created_at {
            return Err(ScheduleError::UpdatedBeforeCreated {
                created_at: raw.created_at,
                updated_at: raw.updated_at,
            });
        }
        Ok(Action {
            id: raw.id,
            label,
            trigger,
            status,
            recurrence,
            created_at: raw.created_at,
            updated_at: raw.updated_at,
        })
    }
}

impl From<Action> for RawAction {
    fn from(action: Action) -> Self {
        let trigger = match action.trigger {
            ActionTrigger::Scheduled { next_tick_at } => RawTrigger {
                kind: TriggerType::Scheduled,
                next_tick_at: Some(next_tick_at),
                payload: None,
                received_at: None,
            },
            ActionTrigger::Webhook {
                payload,
                received_at,
            } => RawTrigger {
                kind: TriggerType::Webhook,
                next_tick_at: None,
                payload: Some(STANDARD.encode(payload)),
                received_at: Some(received_at),
            },
        };
        let state = action.status.state();
        let (result, reason) = match action.status {
            ActionStatus::Completed { result } => (Some(result), None),
            ActionStatus::Failed { reason } => (None, Some(reason)),
            ActionStatus::Pending | ActionStatus::Running => (None, None),
        };
        RawAction {
            id: action.id,
            label: action.label,
            trigger,
            status: RawStatus {
                state,
                result,
                reason,
            },
            recurrence_ms: action.recurrence.map(Interval::as_ms),
            created_at: action.created_at,
            updated_at: action.updated_at,
        }
    }
}
