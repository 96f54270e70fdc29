//! JSON Schema (feature `schema`) for the task model's wire types, written by hand from the
//! raw twins that parsing goes through and the limits it enforces.
//!
//! The schemas say as much of each rule as JSON Schema can. What only parsing checks:
//! byte lengths of non-ASCII text (`maxLength` counts characters, the limits count UTF-8
//! bytes); a script body's decoded size, UTF-8 and NUL bytes; unique environment keys;
//! `updatedAt` not before `createdAt`; an attempt's times in order (`leasedAt` < `leaseExpiresAt`,
//! `leasedAt` <= `startedAt` <= `finishedAt`) and its lease id within a `u64`; and the rules of the lower layers their own schemas
//! leave out (`maxMs >= firstMs`, selector requirements in all, `Gt`/`Lt` values in `i64`).

use chrono::{DateTime, Utc};
use model_ids::{BASE36_MAX_LEN, RunnerId, TaskId};
use schemars::{Schema, SchemaGenerator, json_schema};

use crate::attempt::{AttemptState, LeaseId, LogKey, TaskRun};
use crate::lifecycle::MAX_STATUS_ERROR_BYTES;
use crate::spec::{
    EnvVar, ExtensionSpec, Interpreter, MAX_ARG_BYTES, MAX_ARGS, MAX_ENV_KEY_BYTES,
    MAX_ENV_VALUE_BYTES, MAX_ENV_VARS, MAX_PATH_BYTES, MAX_SCRIPT_BODY_BYTES,
    MAX_SCRIPT_BODY_ENCODED_BYTES, MAX_TIMEOUT_MS, RunnerEnv, ScriptBody, SubprocessMode, TaskEnv,
    TaskKind, Timeout,
};

/// Text without a NUL byte (the pattern is matched against the whole string).
const NO_NUL: &str = "^[^\\u0000]*$";

/// Standard base64 with padding, with the zero trailing bits the decoder insists on.
const BASE64: &str =
    "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

use model_ids::impl_json_schema as schema;

mod status;
mod task;

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
        "required": ["taskId", "attempt", "generation", "runner", "lease", "leaseExpiresAt", "state", "leasedAt"],
        "properties": {
            "taskId": task_id,
            "attempt": integer("The attempt number, from 1.", 1, u64::from(u32::MAX)),
            "generation": integer("The generation of the spec the attempt runs.", 1, u64::MAX),
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
