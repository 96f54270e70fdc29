//! JSON Schema of the desired state and the aggregate: `TaskSpec`, the metadata
//! (`ObjectMeta`, `ManifestMeta`, `OwnerReference`, `Annotations`), `TaskManifest` and `Task`.

use model_ids::{TaskId, TenantId, Uid};
use model_policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use model_selector::{LabelSelector, Labels};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::{integer, time};
use crate::lifecycle::TaskStatus;
use crate::spec::{
    MAX_PRIORITY, MAX_TTL_AFTER_FINISHED_MS, MIN_PRIORITY, TaskKind, TaskSpec, Timeout,
};
use crate::task::{
    Annotations, MAX_ANNOTATIONS, MAX_ANNOTATIONS_BYTES, MAX_OWNER_REFERENCES, ManifestMeta,
    ObjectMeta, OwnerKind, OwnerReference, TASK_API_VERSION, TASK_KIND, Task, TaskManifest,
};
use model_ids::impl_json_schema as schema;

schema!(TaskSpec, "TaskSpec", |generator| {
    let slot = generator.subschema_for::<model_ids::Slot>();
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
                "Failed attempts in a row that are retried; absent means unlimited.",
                0,
                u64::from(u32::MAX),
            ),
            "priority": {
                "description": "Among due tasks, a higher priority is leased first; default 0.",
                "type": "integer",
                "minimum": MIN_PRIORITY,
                "maximum": MAX_PRIORITY,
            },
            "ttlAfterFinishedMs": integer(
                "How long a finished task is kept, in milliseconds; absent keeps it until \
                 it is deleted.",
                0,
                MAX_TTL_AFTER_FINISHED_MS,
            ),
        },
        "additionalProperties": false,
    })
});

schema!(Annotations, "Annotations", |generator| {
    // The key rule is the label key rule; take it from the label schema rather than
    // writing it twice.
    let keys = <Labels as JsonSchema>::json_schema(generator)
        .get("propertyNames")
        .cloned()
        .unwrap_or_else(|| true.into());
    json_schema!({
        "description": format!(
            "Free-form metadata: label keys mapped to any text, at most {MAX_ANNOTATIONS} \
             entries and {MAX_ANNOTATIONS_BYTES} bytes of keys and values together."
        ),
        "type": "object",
        "maxProperties": MAX_ANNOTATIONS,
        "propertyNames": keys,
        "additionalProperties": {
            "type": "string",
            "maxLength": MAX_ANNOTATIONS_BYTES,
        },
    })
});

schema!(OwnerReference, "OwnerReference", |generator| {
    let kind = generator.subschema_for::<OwnerKind>();
    let uid = generator.subschema_for::<Uid>();
    json_schema!({
        "description": "A reference to an owner: its kind, its name (by the kind's \
            identifier rule) and the uid of its incarnation; controller marks the one owner \
            that manages the resource.",
        "type": "object",
        "required": ["kind", "name", "uid"],
        "properties": {
            "kind": kind,
            "name": {
                "description": "The owner's id: a flow id, a schedule id or a task id.",
                "type": "string",
                "minLength": 1,
                "maxLength": model_ids::TASK_ID_MAX_LEN,
                "pattern": "^[A-Za-z0-9._-]+$",
                "not": { "enum": [".", ".."] },
            },
            "uid": uid,
            "controller": { "type": "boolean" },
        },
        "additionalProperties": false,
    })
});

/// A list of owner references: bounded, and at most one controller (the uniqueness of
/// uids is left to parsing).
fn owners(generator: &mut SchemaGenerator) -> Schema {
    let owner = generator.subschema_for::<OwnerReference>();
    json_schema!({
        "description": "The resource's owners; at most one is the controller, each uid once.",
        "type": "array",
        "maxItems": MAX_OWNER_REFERENCES,
        "items": owner,
        "maxContains": 1,
        "contains": {
            "required": ["controller"],
            "properties": { "controller": { "const": true } },
        },
        "minContains": 0,
    })
}

schema!(ObjectMeta, "ObjectMeta", |generator| {
    let name = generator.subschema_for::<TaskId>();
    let uid = generator.subschema_for::<Uid>();
    let tenant = generator.subschema_for::<TenantId>();
    let created = time(generator, "When the task was created.");
    let updated = time(
        generator,
        "When the task last changed; not before createdAt.",
    );
    let labels = generator.subschema_for::<Labels>();
    let annotations = generator.subschema_for::<Annotations>();
    let owners = owners(generator);
    json_schema!({
        "description": "Identity, versions, timestamps and user metadata of a task.",
        "type": "object",
        "required": ["name", "uid", "tenant", "resourceVersion", "generation", "createdAt", "updatedAt"],
        "properties": {
            "name": name,
            "uid": uid,
            "tenant": tenant,
            "resourceVersion": integer(
                "1 at creation, one more with every change.",
                1,
                u64::MAX,
            ),
            "generation": integer(
                "1 at creation, one more with every spec change; at most resourceVersion.",
                1,
                u64::MAX,
            ),
            "createdAt": created,
            "updatedAt": updated,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": owners,
        },
        "additionalProperties": false,
    })
});

schema!(ManifestMeta, "ManifestMeta", |generator| {
    let name = generator.subschema_for::<TaskId>();
    let labels = generator.subschema_for::<Labels>();
    let annotations = generator.subschema_for::<Annotations>();
    let owners = owners(generator);
    json_schema!({
        "description": "The metadata a caller gives a task: its name, labels, annotations \
            and owners.",
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": name,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": owners,
        },
        "additionalProperties": false,
    })
});

/// The `apiVersion` and `kind` properties every task document starts with.
fn type_properties() -> (Schema, Schema) {
    (
        json_schema!({ "description": "The API group and version.", "const": TASK_API_VERSION }),
        json_schema!({ "description": "The kind of resource.", "const": TASK_KIND }),
    )
}

schema!(TaskManifest, "TaskManifest", |generator| {
    let metadata = generator.subschema_for::<ManifestMeta>();
    let spec = generator.subschema_for::<TaskSpec>();
    let (api_version, kind) = type_properties();
    json_schema!({
        "description": "What a caller submits to create or change a task.",
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": metadata,
            "spec": spec,
        },
        "additionalProperties": false,
    })
});

schema!(Task, "Task", |generator| {
    let metadata = generator.subschema_for::<ObjectMeta>();
    let spec = generator.subschema_for::<TaskSpec>();
    let status = generator.subschema_for::<TaskStatus>();
    let (api_version, kind) = type_properties();
    json_schema!({
        "description": "A task: metadata, spec (desired state) and status (observed state; \
            a new task's when absent).",
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": metadata,
            "spec": spec,
            "status": status,
        },
        "additionalProperties": false,
    })
});
