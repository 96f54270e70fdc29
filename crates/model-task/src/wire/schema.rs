//! JSON Schema (feature `schema`) for the task model's wire types, written by hand from the
//! raw twins that parsing goes through and the limits it enforces.
//!
//! The schemas say as much of each rule as JSON Schema can. What only parsing checks:
//! byte lengths of non-ASCII text (`maxLength` counts characters, the limits count UTF-8
//! bytes); a script body's decoded size, UTF-8 and NUL bytes; unique environment keys;
//! `updatedAt` not before `createdAt`; an attempt's times in order (`leasedAt` < `leaseExpiresAt`,
//! `leasedAt` <= `startedAt` <= `finishedAt`) and its lease id within a `u64`; and the rules of the lower layers their own schemas
//! leave out (`maxMs >= firstMs`, selector requirements in all, `Gt`/`Lt` values in `i64`).

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use model_ids::{BASE36_MAX_LEN, RunnerId, Slot, TaskId};
use model_policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use model_selector::{LabelSelector, Labels};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::attempt::{AttemptState, LeaseId, LogKey, TaskRun};
use crate::lifecycle::{AttemptOutcome, MAX_STATUS_ERROR_BYTES, TaskPhase, TaskStatus};
use crate::spec::{
    EnvVar, ExtensionSpec, Interpreter, MAX_ARG_BYTES, MAX_ARGS, MAX_ENV_KEY_BYTES,
    MAX_ENV_VALUE_BYTES, MAX_ENV_VARS, MAX_PATH_BYTES, MAX_SCRIPT_BODY_BYTES,
    MAX_SCRIPT_BODY_ENCODED_BYTES, MAX_TIMEOUT_MS, RunnerEnv, ScriptBody, SubprocessMode, TaskEnv,
    TaskKind, TaskSpec, Timeout,
};
use crate::task::{ObjectMeta, Task};

/// Text without a NUL byte (the pattern is matched against the whole string).
const NO_NUL: &str = "^[^\\u0000]*$";

/// Standard base64 with padding, with the zero trailing bits the decoder insists on.
const BASE64: &str =
    "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

/// Implements `JsonSchema` with the type's name, its path as id, and `$body` as the schema.
macro_rules! schema {
    ($ty:ty, $name:literal, |$generator:ident| $body:expr) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }

            fn schema_id() -> Cow<'static, str> {
                concat!("model_task::", $name).into()
            }

            fn json_schema($generator: &mut SchemaGenerator) -> Schema {
                $body
            }
        }
    };
}

/// Text that reaches `execve`, a path or the environment: no NUL byte, `min` to `max` long.
fn text(description: &str, min: usize, max: usize) -> Schema {
    json_schema!({
        "description": description,
        "type": "string",
        "minLength": min,
        "maxLength": max,
        "pattern": NO_NUL,
    })
}

/// A command, path, image or module reference: not empty, at most [`MAX_PATH_BYTES`].
fn path(description: &str) -> Schema {
    text(description, 1, MAX_PATH_BYTES)
}

/// An argument list: at most [`MAX_ARGS`] arguments of at most [`MAX_ARG_BYTES`] each.
fn args(description: &str) -> Schema {
    json_schema!({
        "description": description,
        "type": "array",
        "maxItems": MAX_ARGS,
        "items": text("An argument.", 0, MAX_ARG_BYTES),
    })
}

/// The `"type"` tag of a variant.
fn tag(name: &str) -> Schema {
    json_schema!({ "const": name })
}

/// A UTC time in RFC 3339.
fn time(generator: &mut SchemaGenerator, description: &str) -> Schema {
    let mut schema = generator.subschema_for::<DateTime<Utc>>();
    schema.insert("description".into(), description.into());
    schema
}

/// A JSON integer from `min` to `max`.
fn integer(description: &str, min: i64, max: u64) -> Schema {
    json_schema!({ "description": description, "type": "integer", "minimum": min, "maximum": max })
}

schema!(Timeout, "Timeout", |_generator| json_schema!({
    "description": "How long one attempt may run, in milliseconds: at least 1, at most 7 days.",
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_TIMEOUT_MS,
}));

schema!(EnvVar, "EnvVar", |_generator| json_schema!({
    "description": "One environment variable.",
    "type": "object",
    "required": ["key", "value"],
    "properties": {
        "key": {
            "description": "Not empty, no '=' and no NUL byte.",
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_ENV_KEY_BYTES,
            "pattern": "^[^=\\u0000]*$",
        },
        "value": text("No NUL byte.", 0, MAX_ENV_VALUE_BYTES),
    },
    "additionalProperties": false,
}));

/// The schema of an environment list; keys must also be unique, which JSON Schema cannot say.
fn env_list(generator: &mut SchemaGenerator, description: &str) -> Schema {
    let var = generator.subschema_for::<EnvVar>();
    json_schema!({
        "description": format!("{description} Keys are unique; at most {MAX_ENV_VARS} entries."),
        "type": "array",
        "maxItems": MAX_ENV_VARS,
        "items": var,
    })
}

schema!(TaskEnv, "TaskEnv", |generator| env_list(
    generator,
    "The environment a task asks for, in order."
));

schema!(RunnerEnv, "RunnerEnv", |generator| env_list(
    generator,
    "The environment a runner injects into every task it runs, in order."
));

schema!(ScriptBody, "ScriptBody", |_generator| json_schema!({
    "description": format!(
        "A script: standard base64 with padding of UTF-8 text without NUL bytes, at most \
         {MAX_SCRIPT_BODY_BYTES} bytes decoded."
    ),
    "type": "string",
    "maxLength": MAX_SCRIPT_BODY_ENCODED_BYTES,
    "pattern": BASE64,
    "contentEncoding": "base64",
    "contentMediaType": "text/plain",
}));

schema!(Interpreter, "Interpreter", |_generator| json_schema!({
    "description": "The interpreter of a script: bash (bash -c), python (python3 -c), \
        node (node -e), or a custom command and flag.",
    "oneOf": [
        { "type": "string", "enum": ["bash", "python", "node"] },
        {
            "type": "object",
            "required": ["custom"],
            "properties": {
                "custom": {
                    "type": "object",
                    "required": ["command", "flag"],
                    "properties": {
                        "command": path("The interpreter program."),
                        "flag": text(
                            "The flag that makes it run its next argument as a script.",
                            1,
                            MAX_ARG_BYTES,
                        ),
                    },
                    "additionalProperties": false,
                },
            },
            "additionalProperties": false,
        },
    ],
}));

schema!(SubprocessMode, "SubprocessMode", |generator| {
    let interpreter = generator.subschema_for::<Interpreter>();
    let body = generator.subschema_for::<ScriptBody>();
    json_schema!({
        "description": "How a subprocess starts, tagged by \"type\": execve of a command, or \
            an interpreter running a script.",
        "oneOf": [
            {
                "type": "object",
                "required": ["type", "command"],
                "properties": {
                    "type": tag("command"),
                    "command": path("Program path or name."),
                    "args": args("Arguments after the program."),
                },
                "additionalProperties": false,
            },
            {
                "type": "object",
                "required": ["type", "interpreter", "body"],
                "properties": {
                    "type": tag("script"),
                    "interpreter": interpreter,
                    "body": body,
                    "args": args("Arguments after the script."),
                },
                "additionalProperties": false,
            },
        ],
    })
});

schema!(TaskKind, "TaskKind", |generator| {
    let mode = generator.subschema_for::<SubprocessMode>();
    let env = generator.subschema_for::<TaskEnv>();
    let extension_spec = generator.subschema_for::<ExtensionSpec>();
    json_schema!({
        "description": "What a task runs, tagged by \"type\": a subprocess, a container, a \
            wasm module, an extension workload a runner implements, or an embedded in-process \
            task (which cannot be submitted).",
        "oneOf": [
            {
                "type": "object",
                "required": ["type", "mode"],
                "properties": {
                    "type": tag("subprocess"),
                    "mode": mode,
                    "env": env,
                    "cwd": path("Working directory; the runner's default when absent."),
                    "failOnNonZero": {
                        "description": "Whether a non-zero exit status is a failure (default \
                            true).",
                        "type": "boolean",
                    },
                },
                "additionalProperties": false,
            },
            {
                "type": "object",
                "required": ["type", "image"],
                "properties": {
                    "type": tag("container"),
                    "image": path("Image reference (registry/name:tag)."),
                    "command": {
                        "description": "Entrypoint override; the image's entrypoint when empty. \
                            The program, when given, is not empty.",
                        "type": "array",
                        "maxItems": MAX_ARGS,
                        "prefixItems": [{ "minLength": 1 }],
                        "items": text("An entrypoint word.", 0, MAX_ARG_BYTES),
                    },
                    "args": args("Arguments."),
                    "env": env,
                },
                "additionalProperties": false,
            },
            {
                "type": "object",
                "required": ["type", "module"],
                "properties": {
                    "type": tag("wasm"),
                    "module": path("Module reference (path or URL of the .wasm)."),
                    "args": args("Arguments."),
                    "env": env,
                },
                "additionalProperties": false,
            },
            {
                "type": "object",
                "required": ["type", "apiVersion", "kind"],
                "properties": {
                    "type": tag("extension"),
                    "apiVersion": crate::spec::kind_schema::api_version(),
                    "kind": crate::spec::kind_schema::kind(),
                    "spec": extension_spec,
                },
                "additionalProperties": false,
            },
            {
                "type": "object",
                "required": ["type"],
                "properties": { "type": tag("embedded") },
                "additionalProperties": false,
            },
        ],
    })
});

schema!(TaskSpec, "TaskSpec", |generator| {
    let slot = generator.subschema_for::<Slot>();
    let kind = generator.subschema_for::<TaskKind>();
    let timeout = generator.subschema_for::<Timeout>();
    let restart = generator.subschema_for::<RestartPolicy>();
    let backoff = generator.subschema_for::<BackoffPolicy>();
    let admission = generator.subschema_for::<AdmissionPolicy>();
    let selector = generator.subschema_for::<LabelSelector>();
    let labels = generator.subschema_for::<Labels>();
    json_schema!({
        "description": "The desired state of a task: where it runs, what it runs, for how \
            long, and what happens on failure or when its slot is busy. Absent optional \
            fields take their defaults.",
        "type": "object",
        "required": ["slot", "kind", "timeoutMs"],
        "properties": {
            "slot": slot,
            "kind": kind,
            "timeoutMs": timeout,
            "restart": restart,
            "backoff": backoff,
            "admission": admission,
            "runnerSelector": selector,
            "labels": labels,
            "maxRetries": integer(
                "Attempts allowed after the first; absent means unlimited.",
                0,
                u64::from(u32::MAX),
            ),
        },
        "additionalProperties": false,
    })
});

schema!(ObjectMeta, "ObjectMeta", |generator| {
    let id = generator.subschema_for::<TaskId>();
    let created = time(generator, "When the task was created.");
    let updated = time(
        generator,
        "When the task last changed; not before createdAt.",
    );
    json_schema!({
        "description": "Identity, version and timestamps of a task.",
        "type": "object",
        "required": ["id", "resourceVersion", "createdAt", "updatedAt"],
        "properties": {
            "id": id,
            "resourceVersion": integer(
                "1 at creation, one more with every change.",
                1,
                u64::MAX,
            ),
            "createdAt": created,
            "updatedAt": updated,
        },
        "additionalProperties": false,
    })
});

schema!(TaskStatus, "TaskStatus", |generator| {
    let phase = generator.subschema_for::<TaskPhase>();
    let outcome = generator.subschema_for::<AttemptOutcome>();
    let next = time(
        generator,
        "When the next attempt may start; set exactly while pending after an attempt.",
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
        },
        "additionalProperties": false,
        "dependentRequired": { "exitCode": ["outcome"], "error": ["outcome"] },
        "allOf": [
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

schema!(Task, "Task", |generator| {
    let metadata = generator.subschema_for::<ObjectMeta>();
    let spec = generator.subschema_for::<TaskSpec>();
    let status = generator.subschema_for::<TaskStatus>();
    json_schema!({
        "description": "A task: metadata, spec (desired state) and status (observed state; \
            a new task's when absent).",
        "type": "object",
        "required": ["metadata", "spec"],
        "properties": { "metadata": metadata, "spec": spec, "status": status },
        "additionalProperties": false,
    })
});

schema!(LeaseId, "LeaseId", |_generator| json_schema!({
    "description": "The identity of one lease: a u64 written in base 36 (lowercase when \
        written; uppercase and leading zeros are read too), so JSON readers cannot round it.",
    "type": "string",
    "minLength": 1,
    "maxLength": BASE36_MAX_LEN,
    "pattern": "^[0-9A-Za-z]+$",
}));

schema!(LogKey, "LogKey", |_generator| json_schema!({
    "description": "The identity of one log line: the attempt that wrote it and its sequence \
        number within that attempt.",
    "type": "object",
    "required": ["attempt", "sequence"],
    "properties": {
        "attempt": integer("The attempt that wrote the line.", 0, u64::from(u32::MAX)),
        "sequence": integer("The line's sequence number within its attempt.", 0, u64::MAX),
    },
    "additionalProperties": false,
}));

schema!(TaskRun, "TaskRun", |generator| {
    let task_id = generator.subschema_for::<TaskId>();
    let runner = generator.subschema_for::<RunnerId>();
    let lease = generator.subschema_for::<LeaseId>();
    let state = generator.subschema_for::<AttemptState>();
    let expires = time(
        generator,
        "When the lease expires unless a heartbeat extends it; after leasedAt.",
    );
    let leased = time(generator, "When the attempt was leased.");
    let started = time(
        generator,
        "When the runner started the attempt; not before leasedAt.",
    );
    let finished = time(
        generator,
        "When the attempt ended; set exactly in a final state, not before the start.",
    );
    let states = |names: &[&str]| json_schema!({ "properties": { "state": { "enum": names } } });
    let when = |names: &[&str], then: Schema| json_schema!({ "if": states(names), "then": then });
    let unless = |names: &[&str], then: Schema| json_schema!({ "if": states(names), "else": then });
    json_schema!({
        "description": "One attempt of a task: which runner holds it under which lease until \
            when, its state, its times and its result.",
        "type": "object",
        "required": ["taskId", "attempt", "runner", "lease", "leaseExpiresAt", "state", "leasedAt"],
        "properties": {
            "taskId": task_id,
            "attempt": integer("The attempt number, from 1.", 1, u64::from(u32::MAX)),
            "runner": runner,
            "lease": lease,
            "leaseExpiresAt": expires,
            "state": state,
            "cancelRequested": {
                "description": "Whether cancel was requested: true in cancelling, may stay \
                    true in canceled, false elsewhere.",
                "type": "boolean",
            },
            "leasedAt": leased,
            "startedAt": started,
            "finishedAt": finished,
            "exitCode": {
                "description": "The exit code the runner reported, on a final attempt with a \
                    reported result.",
                "type": "integer",
                "minimum": i32::MIN,
                "maximum": i32::MAX,
            },
            "error": {
                "description": format!(
                    "The error text the runner reported, at most {MAX_STATUS_ERROR_BYTES} bytes."
                ),
                "type": "string",
                "maxLength": MAX_STATUS_ERROR_BYTES,
            },
        },
        "additionalProperties": false,
        "allOf": [
            when(&["leased"], json_schema!({ "not": { "required": ["startedAt"] } })),
            when(
                &["running", "succeeded", "failed", "timeout"],
                json_schema!({ "required": ["startedAt"] }),
            ),
            when(
                &["leased", "running", "cancelling"],
                json_schema!({ "not": { "anyOf": [
                    { "required": ["finishedAt"] },
                    { "required": ["exitCode"] },
                    { "required": ["error"] },
                ] } }),
            ),
            unless(&["leased", "running", "cancelling"], json_schema!({ "required": ["finishedAt"] })),
            when(
                &["expired"],
                json_schema!({ "not": { "anyOf": [{ "required": ["exitCode"] }, { "required": ["error"] }] } }),
            ),
            when(
                &["cancelling"],
                json_schema!({
                    "required": ["cancelRequested"],
                    "properties": { "cancelRequested": { "const": true } },
                }),
            ),
            unless(
                &["cancelling", "canceled"],
                json_schema!({ "properties": { "cancelRequested": { "const": false } } }),
            ),
        ],
    })
});
