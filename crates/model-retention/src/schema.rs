//! JSON Schema (feature `schema`) for the retention wire types that parse through a raw
//! twin, written by hand from the twins and the limits parsing enforces.
//!
//! What JSON Schema cannot say, and only parsing checks: at most one controller among a
//! resource's owner references, none naming the resource itself, no uid twice; a kind named
//! twice in a policy's `rules` (JSON objects may repeat keys).

use chrono::{DateTime, Utc};
use model_ids::TenantId;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::kind::ResourceKind;
use crate::lifecycle::{Lifecycle, Outcome};
use crate::limits::{
    MAX_CLEANUP_PRIORITY, MAX_HISTORY_LIMIT, MAX_OWNER_REFERENCES, MAX_RESOURCE_NAME_BYTES,
    MAX_TTL_AFTER_FINISHED_MS,
};
use crate::policy::{CascadePolicy, HistoryLimits, RetentionPolicy, RetentionRule};
use crate::resource::OwnedResource;
use model_ids::Uid;
use model_task::task::OwnerReference;

use model_ids::impl_json_schema as schema;

/// A JSON integer from 0 to `max`.
fn count(description: &str, max: u64) -> Schema {
    json_schema!({ "description": description, "type": "integer", "minimum": 0, "maximum": max })
}

/// The schema of `T`, described.
fn described<T: JsonSchema>(generator: &mut SchemaGenerator, description: &str) -> Schema {
    let mut schema = generator.subschema_for::<T>();
    schema.insert("description".into(), description.into());
    schema
}

schema!(Lifecycle, "Lifecycle", |generator| json_schema!({
    "description": "Draft (active, never collected) or sealed (finished, at a time, with an outcome).",
    "oneOf": [
        {
            "type": "object",
            "required": ["state"],
            "properties": { "state": { "const": "draft" } },
            "additionalProperties": false,
        },
        {
            "type": "object",
            "required": ["state", "at", "outcome"],
            "properties": {
                "state": { "const": "sealed" },
                "at": described::<DateTime<Utc>>(generator, "When it finished (RFC 3339, UTC)."),
                "outcome": generator.subschema_for::<Outcome>(),
            },
            "additionalProperties": false,
        },
    ],
}));

schema!(HistoryLimits, "HistoryLimits", |_generator| json_schema!({
    "description": "How many finished resources an owner keeps of each kind it controls, by outcome.",
    "type": "object",
    "required": ["succeeded", "failed"],
    "properties": {
        "succeeded": count("Newest succeeded ones kept.", u64::from(MAX_HISTORY_LIMIT)),
        "failed": count("Newest failed ones kept.", u64::from(MAX_HISTORY_LIMIT)),
    },
    "additionalProperties": false,
}));

schema!(RetentionRule, "RetentionRule", |generator| json_schema!({
    "description": "The retention rule of one kind; absent fields take the neutral values \
        (priority 50, no time to live, foreground, no history limits, not holding).",
    "type": "object",
    "properties": {
        "cleanupPriority": count("Higher is deleted sooner.", u64::from(MAX_CLEANUP_PRIORITY)),
        "ttlAfterFinishedMs": count("How long a finished resource is kept, in milliseconds.", MAX_TTL_AFTER_FINISHED_MS),
        "cascade": generator.subschema_for::<CascadePolicy>(),
        "history": generator.subschema_for::<HistoryLimits>(),
        "holdWhileActive": { "description": "Whether an active one needs everything it owns.", "type": "boolean" },
    },
    "additionalProperties": false,
}));

schema!(RetentionPolicy, "RetentionPolicy", |generator| {
    let rule = generator.subschema_for::<RetentionRule>();
    json_schema!({
        "description": "The rules of the kinds listed; the others keep their defaults.",
        "type": "object",
        "properties": {
            "rules": {
                "type": "object",
                "properties": {
                    "attempt": rule.clone(),
                    "action": rule.clone(),
                    "task": rule.clone(),
                    "flow": rule.clone(),
                    "schedule": rule,
                },
                "additionalProperties": false,
            },
        },
        "additionalProperties": false,
    })
});

schema!(OwnedResource, "OwnedResource", |generator| json_schema!({
    "description": "What retention needs to know of one resource.",
    "type": "object",
    "required": ["kind", "tenant", "name", "lifecycle"],
    "properties": {
        "kind": generator.subschema_for::<ResourceKind>(),
        "tenant": generator.subschema_for::<TenantId>(),
        "name": {
            "description": "Unique among its kind in its tenant.",
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_RESOURCE_NAME_BYTES,
            "pattern": "^[A-Za-z0-9._/-]+$",
        },
        "uid": generator.subschema_for::<Uid>(),
        "ownerReferences": {
            "type": "array",
            "maxItems": MAX_OWNER_REFERENCES,
            "items": generator.subschema_for::<OwnerReference>(),
        },
        "lifecycle": generator.subschema_for::<Lifecycle>(),
        "ttlAfterFinishedMs": count("Its own time to live after finishing, in milliseconds.", MAX_TTL_AFTER_FINISHED_MS),
        "cascade": generator.subschema_for::<CascadePolicy>(),
        "history": generator.subschema_for::<HistoryLimits>(),
    },
    "additionalProperties": false,
    "if": { "properties": { "kind": { "enum": ["task", "flow", "schedule"] } } },
    "then": { "required": ["uid"] },
}));
