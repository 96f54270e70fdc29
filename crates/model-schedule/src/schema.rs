//! JSON Schema (feature `schema`) for `Schedule`, `Trigger`, `CronExpr`, `Zone`, `Interval`,
//! `OverlapPolicy`, `Action` and `ActionState`, written from the raw twins and the limits
//! parsing enforces.
//!
//! What JSON Schema cannot say, and only parsing checks: the cron syntax and each field's
//! range; whether a time zone name is in the database; `endAt` not before `startAt`;
//! `updatedAt` not before `createdAt`; the webhook payload being base64 of at most
//! `MAX_WEBHOOK_PAYLOAD_BYTES`; the cost bound of a result; byte lengths of non-ASCII
//! strings (`maxLength` counts characters).

use model_ids::ActionId;
use model_task::TaskSpec;
use schemars::{Schema, json_schema};

use crate::{
    action::Action,
    cron::CronExpr,
    interval::Interval,
    limits::{
        MAX_ACTION_LABEL_BYTES, MAX_ACTION_REASON_BYTES, MAX_CATCHUP_WINDOW_MS, MAX_CRON_LEN,
        MAX_EVERY_MS, MAX_HISTORY_LIMIT, MAX_JITTER_MS, MAX_TIME_ZONE_LEN,
        MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES, MIN_CATCHUP_WINDOW_MS, MIN_EVERY_MS,
    },
    overlap::OverlapPolicy,
    schedule::Schedule,
    state::ActionState,
    trigger::Trigger,
    zone::Zone,
};

use model_ids::impl_json_schema as schema;

fn time(description: &str) -> Schema {
    json_schema!({ "description": description, "type": "string", "format": "date-time" })
}

schema!(CronExpr, "CronExpr", |_generator| json_schema!({
    "description": "A cron expression as Vixie cron reads it: five fields (minute hour day-of-month month day-of-week), six with seconds first, or an @ nickname.",
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_CRON_LEN,
    "examples": ["0 2 * * *", "*/5 * * * *", "0 9 * * mon-fri", "@daily"],
}));

schema!(Zone, "Zone", |_generator| json_schema!({
    "description": "An IANA time zone name, as the database spells it.",
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_TIME_ZONE_LEN,
    "examples": ["UTC", "Europe/Berlin", "America/New_York"],
}));

schema!(Interval, "Interval", |_generator| json_schema!({
    "description": "A period in milliseconds.",
    "type": "integer",
    "minimum": MIN_EVERY_MS,
    "maximum": MAX_EVERY_MS,
}));

schema!(OverlapPolicy, "OverlapPolicy", |_generator| json_schema!({
    "description": "What a tick does while the previous run is active.",
    "type": "string",
    "enum": ["allow", "skip", "bufferOne", "replace"],
}));

schema!(ActionState, "ActionState", |_generator| json_schema!({
    "description": "Where an action stands.",
    "type": "string",
    "enum": ["pending", "running", "completed", "failed"],
}));

schema!(Trigger, "Trigger", |generator| {
    let cron = generator.subschema_for::<CronExpr>();
    let zone = generator.subschema_for::<Zone>();
    let every = generator.subschema_for::<Interval>();
    json_schema!({
        "description": "When a schedule fires: exactly one of cron (with timeZone), everyMs (with anchor) and at.",
        "oneOf": [
            {
                "type": "object",
                "properties": { "cron": cron, "timeZone": zone },
                "required": ["cron"],
                "additionalProperties": false,
            },
            {
                "type": "object",
                "properties": { "everyMs": every, "anchor": time("A time the series passes through (default: the Unix epoch).") },
                "required": ["everyMs"],
                "additionalProperties": false,
            },
            {
                "type": "object",
                "properties": { "at": time("The one fire time.") },
                "required": ["at"],
                "additionalProperties": false,
            },
        ],
    })
});

schema!(Schedule, "Schedule", |generator| {
    let name = generator.subschema_for::<model_ids::ScheduleId>();
    let spec = generator.subschema_for::<TaskSpec>();
    let trigger = generator.subschema_for::<Trigger>();
    let overlap = generator.subschema_for::<OverlapPolicy>();
    json_schema!({
        "description": "A task template fired by a trigger, within optional bounds.",
        "type": "object",
        "properties": {
            "name": name,
            "spec": spec,
            "trigger": trigger,
            "startAt": time("No fire time before this one (inclusive)."),
            "endAt": time("No fire time after this one (inclusive)."),
            "remainingRuns": { "type": "integer", "minimum": 0, "maximum": u32::MAX },
            "paused": { "type": "boolean", "default": false },
            "overlap": overlap,
            "catchupWindowMs": { "type": "integer", "minimum": MIN_CATCHUP_WINDOW_MS, "maximum": MAX_CATCHUP_WINDOW_MS, "default": crate::limits::DEFAULT_CATCHUP_WINDOW_MS },
            "jitterMs": { "type": "integer", "minimum": 0, "maximum": MAX_JITTER_MS, "default": 0 },
            "successfulHistoryLimit": {
                "description": "How many succeeded runs to keep (Kubernetes CronJob's successfulJobsHistoryLimit); with neither limit, the retention policy decides; with only the other, 3.",
                "type": "integer", "minimum": 0, "maximum": MAX_HISTORY_LIMIT,
            },
            "failedHistoryLimit": {
                "description": "How many failed runs to keep (Kubernetes CronJob's failedJobsHistoryLimit); with neither limit, the retention policy decides; with only the other, 1.",
                "type": "integer", "minimum": 0, "maximum": MAX_HISTORY_LIMIT,
            },
        },
        "required": ["name", "spec", "trigger"],
        "additionalProperties": false,
    })
});

schema!(Action, "Action", |generator| {
    let id = generator.subschema_for::<ActionId>();
    let every = generator.subschema_for::<Interval>();
    json_schema!({
        "description": "One firing (a scheduled tick or a webhook delivery) and what became of it.",
        "type": "object",
        "properties": {
            "id": id,
            "label": { "type": "string", "minLength": 1, "maxLength": MAX_ACTION_LABEL_BYTES },
            "trigger": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": { "type": { "const": "scheduled" }, "nextTickAt": time("When the action is due.") },
                        "required": ["type", "nextTickAt"],
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "type": { "const": "webhook" },
                            "payload": { "type": "string", "contentEncoding": "base64", "maxLength": MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES },
                            "receivedAt": time("When the delivery arrived; due from then."),
                        },
                        "required": ["type", "payload", "receivedAt"],
                        "additionalProperties": false,
                    },
                ],
            },
            "status": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": { "state": { "enum": ["pending", "running"] } },
                        "required": ["state"],
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": { "state": { "const": "completed" }, "result": {} },
                        "required": ["state"],
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": { "state": { "const": "failed" }, "reason": { "type": "string", "maxLength": MAX_ACTION_REASON_BYTES } },
                        "required": ["state", "reason"],
                        "additionalProperties": false,
                    },
                ],
            },
            "recurrenceMs": every,
            "createdAt": time("When the action was created."),
            "updatedAt": time("When it last changed."),
        },
        "required": ["id", "label", "trigger", "status", "createdAt", "updatedAt"],
        "additionalProperties": false,
    })
});
