//! JSON Schema (feature `schema`) for the events, written from their wire form.
//!
//! What only parsing checks: a chunk's decoded size (the schema bounds the base64 text).

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::{
    MAX_OUTPUT_CHUNK_BYTES, MAX_OUTPUT_CHUNK_ENCODED_BYTES, OutputEvent, OutputStream,
    TaskWatchEvent,
};
use crate::lifecycle::AttemptOutcome;
use crate::task::Task;

/// Standard base64 with padding.
const BASE64: &str =
    "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

fn positive(description: &str, max: u64) -> Schema {
    json_schema!({ "description": description, "type": "integer", "minimum": 1, "maximum": max })
}

fn tag(name: &str) -> Schema {
    json_schema!({ "const": name })
}

impl JsonSchema for TaskWatchEvent {
    fn schema_name() -> Cow<'static, str> {
        "TaskWatchEvent".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_task::TaskWatchEvent".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let task = generator.subschema_for::<Task>();
        let version = positive(
            "The version of the watched collection after this change; a watcher resumes \
             from the last it saw.",
            u64::MAX,
        );
        let change = |ty: &str| {
            json_schema!({
                "type": "object",
                "required": ["type", "version", "task"],
                "properties": { "type": tag(ty), "version": version.clone(), "task": task.clone() },
                "additionalProperties": false,
            })
        };
        json_schema!({
            "description": "One change of a watch of tasks, tagged by \"type\".",
            "oneOf": [
                change("added"),
                change("modified"),
                change("deleted"),
                {
                    "type": "object",
                    "required": ["type", "version"],
                    "properties": { "type": tag("bookmark"), "version": version },
                    "additionalProperties": false,
                },
            ],
        })
    }
}

impl JsonSchema for OutputEvent {
    fn schema_name() -> Cow<'static, str> {
        "OutputEvent".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_task::OutputEvent".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let stream = generator.subschema_for::<OutputStream>();
        let outcome = generator.subschema_for::<AttemptOutcome>();
        let time = generator.subschema_for::<DateTime<Utc>>();
        let attempt = positive("The attempt (from 1).", u64::from(u32::MAX));
        json_schema!({
            "description": "An event of an attempt's live output, tagged by \"type\".",
            "oneOf": [
                {
                    "type": "object",
                    "required": ["type", "attempt", "stream", "sequence", "at", "data"],
                    "properties": {
                        "type": tag("chunk"),
                        "attempt": attempt.clone(),
                        "stream": stream,
                        "sequence": {
                            "description": "The chunk's number in its attempt and stream, from 0.",
                            "type": "integer",
                            "minimum": 0,
                            "maximum": u64::MAX,
                        },
                        "at": time.clone(),
                        "data": {
                            "description": format!(
                                "The output bytes, standard base64 with padding: 1 to \
                                 {MAX_OUTPUT_CHUNK_BYTES} bytes."
                            ),
                            "type": "string",
                            "minLength": 4,
                            "maxLength": MAX_OUTPUT_CHUNK_ENCODED_BYTES,
                            "pattern": BASE64,
                            "contentEncoding": "base64",
                        },
                        "truncated": {
                            "description": "Output was left out after this chunk's end.",
                            "type": "boolean",
                        },
                    },
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "required": ["type", "attempt", "startedAt"],
                    "properties": {
                        "type": tag("runStarted"),
                        "attempt": attempt.clone(),
                        "startedAt": time.clone(),
                    },
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "required": ["type", "attempt", "finishedAt", "outcome"],
                    "properties": {
                        "type": tag("runFinished"),
                        "attempt": attempt,
                        "finishedAt": time,
                        "outcome": outcome,
                        "exitCode": {
                            "type": "integer",
                            "minimum": i32::MIN,
                            "maximum": i32::MAX,
                        },
                    },
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "required": ["type", "dropped"],
                    "properties": {
                        "type": tag("lagged"),
                        "dropped": positive("How many events were dropped.", u64::MAX),
                        "droppedBytes": {
                            "description": "How many bytes of output they held.",
                            "type": "integer",
                            "minimum": 0,
                            "maximum": u64::MAX,
                        },
                    },
                    "additionalProperties": false,
                },
            ],
        })
    }
}
