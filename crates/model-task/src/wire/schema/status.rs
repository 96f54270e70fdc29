//! JSON Schema of the observed state: `TaskStatus`.

use schemars::{Schema, json_schema};

use super::{integer, time};
use crate::lifecycle::{AttemptOutcome, MAX_STATUS_ERROR_BYTES, TaskPhase, TaskStatus};

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
        "required": ["phase", "attempt"],
        "properties": {
            "phase": phase,
            "attempt": integer("Attempts started so far.", 0, u64::from(u32::MAX)),
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
            "queuedAt": queued,
            "finishedAt": finished,
        },
        "additionalProperties": false,
        "dependentRequired": { "exitCode": ["outcome"], "error": ["outcome"] },
        "allOf": [
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
