//! JSON Schema (feature `schema`) for this crate's wire types, written by hand from the raw
//! twins that parsing goes through and the limits it enforces.
//!
//! What only parsing checks: byte lengths of non-ASCII text (`maxLength` counts
//! characters, the limits count UTF-8 bytes), a log batch's sequences in increasing order,
//! each actor once in a context's list (`uniqueItems` says it), and the rules of the lower layers their own
//! schemas leave out (label keys and values in full).

use chrono::{DateTime, Utc};
use model_ids::{AgentId, ErrorCode, RunnerId, TenantId};
use model_selector::Labels;
use schemars::{Schema, SchemaGenerator, json_schema};

use crate::access::{Actor, Context, MAX_CONTEXT_MEMBERS};
use crate::api::{ApiError, MAX_API_ERROR_MESSAGE_BYTES};
use crate::log::{LogBatch, LogLine, LogStream, MAX_LOG_BATCH_LINES, MAX_LOG_LINE_BYTES};
use crate::runner::{MAX_RUNNER_CAPACITY, Runner, RunnerState};

use model_ids::impl_json_schema as schema;

/// An RFC 3339 time with a description.
fn time(generator: &mut SchemaGenerator, description: &str) -> Schema {
    let mut schema = generator.subschema_for::<DateTime<Utc>>();
    schema.insert("description".into(), description.into());
    schema
}

/// The task kinds a runner runs: an array of kind names.
fn kinds() -> Schema {
    json_schema!({
        "description": "The task kinds the runner runs, by name; repeats are ignored.",
        "type": "array",
        "items": { "enum": ["subprocess", "container", "wasm"] },
    })
}

schema!(RunnerState, "RunnerState", |_generator| {
    let names: Vec<&str> = RunnerState::ALL.iter().map(|s| s.as_str()).collect();
    json_schema!({
        "description": "Whether a runner takes new work: online, draining (finishes what it \
            holds, takes nothing new) or offline (registers again before it takes work).",
        "type": "string",
        "enum": names,
    })
});

schema!(Runner, "Runner", |generator| {
    let id = generator.subschema_for::<RunnerId>();
    let labels = generator.subschema_for::<Labels>();
    let state = generator.subschema_for::<RunnerState>();
    let last_seen = time(
        generator,
        "When the runner was last seen (registered or heartbeated); absent when never.",
    );
    json_schema!({
        "description": "A runner as a control plane records it. Liveness is derived from \
            lastSeenAt, a TTL and the time, never stored.",
        "type": "object",
        "required": ["id", "kinds"],
        "properties": {
            "id": id,
            "labels": labels,
            "kinds": kinds(),
            "maxConcurrent": {
                "description": "The most attempts the runner runs at once (default 1).",
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RUNNER_CAPACITY,
            },
            "state": state,
            "lastSeenAt": last_seen,
        },
        "additionalProperties": false,
    })
});

schema!(ApiError, "ApiError", |generator| {
    let code = generator.subschema_for::<ErrorCode>();
    json_schema!({
        "description": "An error as an API answers it.",
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": code,
                    "message": {
                        "description": "The error for people to read.",
                        "type": "string",
                        "maxLength": MAX_API_ERROR_MESSAGE_BYTES,
                    },
                },
                "additionalProperties": false,
            },
        },
        "additionalProperties": false,
    })
});

schema!(Actor, "Actor", |generator| {
    let mut schema = AgentId::json_schema(generator);
    schema.insert(
        "description".into(),
        "Who asks: a person or a service, by its agent id.".into(),
    );
    schema
});

schema!(Context, "Context", |generator| {
    let tenant = generator.subschema_for::<TenantId>();
    let actor = generator.subschema_for::<Actor>();
    let list = |description: &str| {
        json_schema!({
            "description": description,
            "type": "array",
            "items": actor,
            "maxItems": MAX_CONTEXT_MEMBERS,
            "uniqueItems": true,
        })
    };
    json_schema!({
        "description": "A tenant's permission lists: admins may do everything, executors \
            read and run work, readers read.",
        "type": "object",
        "required": ["tenant"],
        "properties": {
            "tenant": tenant,
            "admins": list("Actors with every right, the context's administration included."),
            "readers": list("Actors that read the tenant's tasks, flows and schedules."),
            "executors": list("Actors that read and run the tenant's work."),
        },
        "additionalProperties": false,
    })
});

schema!(LogStream, "LogStream", |_generator| json_schema!({
    "description": "The stream a log line came from.",
    "type": "string",
    "enum": ["stdout", "stderr"],
}));

schema!(LogLine, "LogLine", |generator| {
    let stream = generator.subschema_for::<LogStream>();
    let logged_at = time(generator, "When the runner read the line.");
    json_schema!({
        "description": "One line of an attempt's output.",
        "type": "object",
        "required": ["sequence", "stream", "line", "loggedAt"],
        "properties": {
            "sequence": {
                "description": "The line's number within its attempt, increasing.",
                "type": "integer",
                "minimum": 0,
                "maximum": u64::MAX,
            },
            "stream": stream,
            "line": {
                "description": "The text, at most 8 KiB.",
                "type": "string",
                "maxLength": MAX_LOG_LINE_BYTES,
            },
            "loggedAt": logged_at,
        },
        "additionalProperties": false,
    })
});

schema!(LogBatch, "LogBatch", |generator| {
    let line = generator.subschema_for::<LogLine>();
    json_schema!({
        "description": "Lines of one attempt as a runner uploads them, in increasing \
            sequence order.",
        "type": "object",
        "required": ["attempt", "lines"],
        "properties": {
            "attempt": {
                "description": "The attempt the lines belong to, from 1.",
                "type": "integer",
                "minimum": 1,
                "maximum": u32::MAX,
            },
            "lines": {
                "type": "array",
                "items": line,
                "minItems": 1,
                "maxItems": MAX_LOG_BATCH_LINES,
            },
        },
        "additionalProperties": false,
    })
});

#[cfg(test)]
mod tests;
