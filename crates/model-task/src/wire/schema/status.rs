//! JSON Schema of the observed state: `TaskStatus`.

use schemars::{Schema, json_schema};

use super::{integer, time};
use crate::lifecycle::{
    AttemptOutcome, Condition, ConditionStatus, ConditionType, MAX_CONDITION_MESSAGE_BYTES,
    MAX_CONDITION_REASON_BYTES, MAX_STATUS_ERROR_BYTES, TaskPhase, TaskStatus,
};
use model_ids::impl_json_schema as schema;

schema!(Condition, "Condition", |generator| {
    let kind = generator.subschema_for::<ConditionType>();
    let status = generator.subschema_for::<ConditionStatus>();
    let flipped = time(generator, "When the status last flipped.");
    json_schema!({
        "description": "A Kubernetes-style condition of a task.",
        "type": "object",
        "required": ["type", "status", "reason", "lastTransitionTime"],
        "properties": {
            "type": kind,
            "status": status,
            "reason": {
                "description": "Why, in one CamelCase word.",
                "type": "string",
                "maxLength": MAX_CONDITION_REASON_BYTES,
                "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            },
            "message": {
                "description": "Why, for people.",
                "type": "string",
                "maxLength": MAX_CONDITION_MESSAGE_BYTES,
            },
            "lastTransitionTime": flipped,
        },
        "additionalProperties": false,
    })
});

/// The condition list: one of each type.
fn conditions(generator: &mut schemars::SchemaGenerator) -> Schema {
    let condition = generator.subschema_for::<Condition>();
    let one_of = |kind: ConditionType| {
        json_schema!({
            "contains": { "properties": { "type": { "const": kind.as_str() } } },
            "minContains": 1,
            "maxContains": 1,
        })
    };
    json_schema!({
        "description": "The task's conditions: one Scheduled, one Running and one Succeeded.",
        "type": "array",
        "items": condition,
        "maxItems": ConditionType::ALL.len(),
        "allOf": ConditionType::ALL.map(one_of),
    })
}

schema!(TaskStatus, "TaskStatus", |generator| {
    let phase = generator.subschema_for::<TaskPhase>();
    let outcome = generator.subschema_for::<AttemptOutcome>();
    let next = time(
        generator,
        "When the next attempt may start; set exactly while pending after an attempt.",
    );
    let queued = time(
        generator,
        "Set exactly while pending: since when the task may be leased (its creation, or \
         its restart's nextAttemptAt).",
    );
    let finished = time(
        generator,
        "Set exactly in a final phase: when the task reached it.",
    );
    let conditions = conditions(generator);
    let when = |phase: &str, then: Schema| {
        json_schema!({
            "if": { "properties": { "phase": { "const": phase } } },
            "then": then,
        })
    };
    let final_outcome = |name: &str| {
        when(
            name,
            json_schema!({
                "required": ["outcome"],
                "properties": { "outcome": { "const": name } },
            }),
        )
    };
    json_schema!({
        "description": "The observed state of a task. outcome, exitCode and error describe \
            attempt number `attempt` once it has ended.",
        "type": "object",
        "required": ["phase", "attempt", "conditions"],
        "properties": {
            "phase": phase,
            "attempt": integer("Attempts started so far.", 0, u64::from(u32::MAX)),
            "observedGeneration": integer(
                "The generation of the spec the current or last attempt runs; left out before \
                 the first.",
                0,
                u64::MAX,
            ),
            "outcome": outcome,
            "exitCode": {
                "description": "Exit code of the ended attempt.",
                "type": "integer",
                "minimum": i32::MIN,
                "maximum": i32::MAX,
            },
            "error": {
                "description": format!(
                    "Error text of the ended attempt, at most {MAX_STATUS_ERROR_BYTES} bytes."
                ),
                "type": "string",
                "maxLength": MAX_STATUS_ERROR_BYTES,
            },
            "nextAttemptAt": next,
            "lastDelayMs": integer(
                "Delay of the most recent scheduled restart, in milliseconds.",
                0,
                u64::MAX,
            ),
            "consecutiveFailures": integer(
                "Failed attempts in a row up to the last one that ended; left out when 0.",
                0,
                u64::from(u32::MAX),
            ),
            "queuedAt": queued,
            "finishedAt": finished,
            "conditions": conditions,
        },
        "additionalProperties": false,
        "dependentRequired": { "exitCode": ["outcome"], "error": ["outcome"] },
        "allOf": [
            // From the first attempt on, the generation it runs.
            {
                "if": { "properties": { "attempt": { "minimum": 1 } } },
                "then": {
                    "required": ["observedGeneration"],
                    "properties": { "observedGeneration": { "minimum": 1 } },
                },
                "else": { "properties": { "observedGeneration": { "maximum": 0 } } },
            },
            // A failure counts; a success starts the count again.
            {
                "if": {
                    "required": ["outcome"],
                    "properties": { "outcome": { "enum": ["failed", "timeout"] } },
                },
                "then": {
                    "required": ["consecutiveFailures"],
                    "properties": { "consecutiveFailures": { "minimum": 1 } },
                },
            },
            {
                "if": {
                    "required": ["outcome"],
                    "properties": { "outcome": { "const": "succeeded" } },
                },
                "then": { "properties": { "consecutiveFailures": { "maximum": 0 } } },
            },
            {
                "if": { "properties": { "phase": { "const": "pending" } } },
                "then": { "required": ["queuedAt"] },
                "else": { "not": { "required": ["queuedAt"] } },
            },
            {
                "if": {
                    "properties": {
                        "phase": { "enum": ["succeeded", "failed", "timeout", "canceled", "exhausted"] },
                    },
                },
                "then": { "required": ["finishedAt"] },
                "else": { "not": { "required": ["finishedAt"] } },
            },
            {
                "if": {
                    "properties": { "phase": { "const": "pending" }, "attempt": { "minimum": 1 } },
                },
                "then": { "required": ["outcome", "nextAttemptAt"] },
                "else": { "not": { "required": ["nextAttemptAt"] } },
            },
            when("pending", json_schema!({
                "properties": { "attempt": { "maximum": u32::MAX - 1 } },
                "if": { "properties": { "attempt": { "const": 0 } } },
                "then": { "not": { "required": ["outcome"] } },
            })),
            when("running", json_schema!({
                "properties": { "attempt": { "minimum": 1 } },
                "not": { "required": ["outcome"] },
            })),
            final_outcome("succeeded"),
            final_outcome("failed"),
            final_outcome("timeout"),
            when("exhausted", json_schema!({
                "required": ["outcome"],
                "properties": {
                    "attempt": { "minimum": 1 },
                    "outcome": { "not": { "const": "canceled" } },
                },
            })),
            // Before the first attempt: no outcome and no restart delay.
            {
                "if": { "properties": { "attempt": { "const": 0 } } },
                "then": { "not": { "anyOf": [
                    { "required": ["outcome"] },
                    { "required": ["lastDelayMs"] },
                ] } },
            },
            // A canceled task that ran keeps its last attempt's outcome.
            {
                "if": {
                    "properties": { "phase": { "const": "canceled" }, "attempt": { "minimum": 1 } },
                },
                "then": { "required": ["outcome"] },
            },
            // A canceled attempt is never restarted.
            when("pending", json_schema!({
                "properties": { "outcome": { "not": { "const": "canceled" } } },
            })),
            // A restart delay exists once a restart was scheduled: while waiting after
            // attempt 1, from attempt 2 on, or canceled while waiting after attempt 1.
            {
                "if": { "required": ["lastDelayMs"] },
                "then": { "anyOf": [
                    { "properties": { "attempt": { "minimum": 2 } } },
                    {
                        "properties": {
                            "phase": { "const": "pending" },
                            "attempt": { "minimum": 1 },
                        },
                    },
                    {
                        "required": ["outcome"],
                        "properties": {
                            "phase": { "const": "canceled" },
                            "attempt": { "const": 1 },
                            "outcome": { "not": { "const": "canceled" } },
                        },
                    },
                ] },
            },
        ],
    })
});
