//! The JSON Schemas `taskctl schema` prints agree with the parsers.
//!
//! Every file in `examples/` and every accepted block of `docs/wire-format.md` validates
//! against its type's schema. Invalid documents are rejected by the parser and, where JSON
//! Schema can express the rule, by the schema too; for the rules it cannot express, the
//! schema accepts the document, and the test says so (`docs/schema.md` lists those rules).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

mod common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use taskmodel::fleet::KindSet;
use taskmodel::flow::{FlowRun, FlowSpec, FlowStatus, JobResult, SkipReason};
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy};
use taskmodel::query::{TaskQuery, TaskRunQuery};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::attempt::LogKey;
use taskmodel::task::event::OutputStream;
use taskmodel::task::lifecycle::MAX_STATUS_ERROR_BYTES;
use taskmodel::task::spec::{
    ExtensionKind, ExtensionSpec, KindName, MAX_SCRIPT_BODY_ENCODED_BYTES, MAX_TIMEOUT_MS,
    RunnerEnv,
};
use taskmodel::task::spec::{MAX_PRIORITY, MAX_TTL_AFTER_FINISHED_MS, MIN_PRIORITY};
use taskmodel::task::task::MAX_ANNOTATIONS_BYTES;
use taskmodel::task::{
    Annotations, AttemptOutcome, AttemptState, LeaseId, ManifestMeta, ObjectMeta, OutputEvent,
    OwnerReference, Task, TaskEnv, TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec,
    TaskStatus, TaskWatchEvent, Token,
};
use taskmodel::{AgentId, FailurePolicy, RunnerId, Slot, TaskId, TenantId, TriggerRule, Uid};

use common::{root, run};

// ---- Schemas (as taskctl prints them) and parsers, by type name.

/// Every schema by type name, from `taskctl schema --output json`.
fn schemas() -> &'static BTreeMap<String, Value> {
    static SCHEMAS: OnceLock<BTreeMap<String, Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let out = run(&["schema", "--output", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        serde_json::from_str(&out.stdout).unwrap()
    })
}

/// Validates `doc` against `schema` (formats such as `date-time` checked too); the error
/// lists every complaint with its location.
fn validate(schema: &Value, doc: &Value) -> Result<(), String> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}\n{schema}"));
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Validates `json` against the schema of `type_name`.
fn schema_check(type_name: &str, json: &str) -> Result<(), String> {
    let schema = schemas()
        .get(type_name)
        .unwrap_or_else(|| panic!("taskctl schema lists no {type_name}"));
    let doc: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"));
    validate(schema, &doc)
}

fn parse<T: DeserializeOwned>(json: &str) -> Result<(), String> {
    serde_json::from_str::<T>(json)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Parses `json` as `type_name` with the library's own parser.
fn parser_check(type_name: &str, json: &str) -> Result<(), String> {
    match type_name {
        "TaskId" => parse::<TaskId>(json),
        "Slot" => parse::<Slot>(json),
        "AgentId" => parse::<AgentId>(json),
        "RunnerId" => parse::<RunnerId>(json),
        "RestartPolicy" => parse::<RestartPolicy>(json),
        "JitterPolicy" => parse::<JitterPolicy>(json),
        "BackoffPolicy" => parse::<BackoffPolicy>(json),
        "AdmissionPolicy" => parse::<AdmissionPolicy>(json),
        "Labels" => parse::<Labels>(json),
        "LabelSelector" => parse::<LabelSelector>(json),
        "TenantId" => parse::<TenantId>(json),
        "Uid" => parse::<Uid>(json),
        "Task" => parse::<Task>(json),
        "TaskManifest" => parse::<TaskManifest>(json),
        "ManifestMeta" => parse::<ManifestMeta>(json),
        "ObjectMeta" => parse::<ObjectMeta>(json),
        "OwnerReference" => parse::<OwnerReference>(json),
        "Annotations" => parse::<Annotations>(json),
        "TaskSpec" => parse::<TaskSpec>(json),
        "TaskKind" => parse::<TaskKind>(json),
        "TaskEnv" => parse::<TaskEnv>(json),
        "RunnerEnv" => parse::<RunnerEnv>(json),
        "TaskStatus" => parse::<TaskStatus>(json),
        "Condition" => parse::<taskmodel::task::Condition>(json),
        "TaskPhase" => parse::<TaskPhase>(json),
        "AttemptOutcome" => parse::<AttemptOutcome>(json),
        "TaskRun" => parse::<TaskRun>(json),
        "AttemptState" => parse::<AttemptState>(json),
        "LogKey" => parse::<LogKey>(json),
        "LeaseId" => parse::<LeaseId>(json),
        "TaskQuery" => parse::<TaskQuery>(json),
        "TaskRunQuery" => parse::<TaskRunQuery>(json),
        "ExtensionKind" => parse::<ExtensionKind>(json),
        "ExtensionSpec" => parse::<ExtensionSpec>(json),
        "KindName" => parse::<KindName>(json),
        "KindSet" => parse::<KindSet>(json),
        "TaskWatchEvent" => parse::<TaskWatchEvent>(json),
        "OutputEvent" => parse::<OutputEvent>(json),
        "OutputStream" => parse::<OutputStream>(json),
        "Token" => parse::<Token>(json),
        "FlowSpec" => parse::<FlowSpec>(json),
        "FlowRun" => parse::<FlowRun>(json),
        "TriggerRule" => parse::<TriggerRule>(json),
        "FailurePolicy" => parse::<FailurePolicy>(json),
        "JobResult" => parse::<JobResult>(json),
        "SkipReason" => parse::<SkipReason>(json),
        "FlowStatus" => parse::<FlowStatus>(json),
        "Schedule" => parse::<taskmodel::schedule::Schedule>(json),
        "Trigger" => parse::<taskmodel::schedule::Trigger>(json),
        "Action" => parse::<taskmodel::schedule::Action>(json),
        "OwnedResource" => parse::<taskmodel::retention::OwnedResource>(json),
        "RetentionPolicy" => parse::<taskmodel::retention::RetentionPolicy>(json),
        "RetentionRule" => parse::<taskmodel::retention::RetentionRule>(json),
        "Lifecycle" => parse::<taskmodel::retention::Lifecycle>(json),
        "CascadePolicy" => parse::<taskmodel::retention::CascadePolicy>(json),
        "Runner" => parse::<taskmodel::fleet::Runner>(json),
        "ApiError" => parse::<taskmodel::fleet::ApiError>(json),
        "Context" => parse::<taskmodel::fleet::Context>(json),
        "LogBatch" => parse::<taskmodel::fleet::LogBatch>(json),
        other => panic!("no parser for {other}: add it here"),
    }
}

/// Both the schema and the parser accept `json` as `type_name`.
fn both_accept(type_name: &str, json: &str, what: &str) {
    if let Err(e) = parser_check(type_name, json) {
        panic!("{what}: the {type_name} parser rejects it: {e}");
    }
    if let Err(e) = schema_check(type_name, json) {
        panic!("{what}: the {type_name} schema rejects it: {e}");
    }
}

/// What the schema does with a document the parser rejects.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Schema {
    /// The schema rejects it too.
    Rejects,
    /// The rule is beyond JSON Schema: the schema accepts it, and only parsing catches it.
    CannotExpress,
}

/// The parser rejects `json`; the schema rejects it or, for a rule JSON Schema cannot
/// express, accepts it.
fn parser_rejects(type_name: &str, json: &str, schema: Schema, what: &str) {
    assert!(
        parser_check(type_name, json).is_err(),
        "{what}: the {type_name} parser accepts it"
    );
    let by_schema = schema_check(type_name, json);
    match schema {
        Schema::Rejects => assert!(
            by_schema.is_err(),
            "{what}: the {type_name} schema accepts it"
        ),
        Schema::CannotExpress => assert_eq!(
            by_schema,
            Ok(()),
            "{what}: the {type_name} schema now rejects it; move the case to Schema::Rejects \
             and docs/schema.md's list of rules JSON Schema cannot express"
        ),
    }
}

// ---- examples/

/// A runner in `examples/runners.json` (the inventory of `taskctl route --runners`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "the fields are parsed for their validation only")]
struct Runner {
    id: RunnerId,
    labels: Labels,
    kinds: KindSet,
    #[serde(rename = "maxConcurrent")]
    max_concurrent: Option<u32>,
}

/// The inventory's schema, built from the printed RunnerId, Labels and KindSet schemas (their
/// definitions moved to the root, where their references point).
fn inventory_schema() -> Value {
    let mut defs = serde_json::Map::new();
    let mut part = |name: &str| {
        let mut schema = schemas()[name].clone();
        let map = schema.as_object_mut().unwrap();
        map.remove("$schema");
        map.remove("title");
        if let Some(Value::Object(found)) = map.remove("$defs") {
            defs.extend(found);
        }
        schema
    };
    let (id, labels, kinds) = (part("RunnerId"), part("Labels"), part("KindSet"));
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": {
            "type": "object",
            "required": ["id", "labels", "kinds"],
            "properties": {
                "id": id,
                "labels": labels,
                "kinds": kinds,
                "maxConcurrent": { "type": "integer", "minimum": 1, "maximum": 1024 },
            },
            "additionalProperties": false,
        },
        "$defs": defs,
    })
}

#[test]
fn every_example_file_validates_against_its_schema() {
    let mut seen = BTreeMap::<&str, usize>::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let json = std::fs::read_to_string(&path).unwrap();
        let what = format!("examples/{name}");
        let kind = if name.starts_with("spec-") {
            both_accept("TaskSpec", &json, &what);
            "spec"
        } else if name.starts_with("task") {
            both_accept("Task", &json, &what);
            "task"
        } else if name.starts_with("schedule-") {
            both_accept("Schedule", &json, &what);
            "schedule"
        } else if name.starts_with("invalid-spec") {
            parser_rejects("TaskSpec", &json, Schema::Rejects, &what);
            "invalid spec"
        } else if name.starts_with("flow-") {
            both_accept("FlowSpec", &json, &what);
            "flow"
        } else if name.starts_with("invalid-flow") {
            parser_rejects("FlowSpec", &json, Schema::Rejects, &what);
            "invalid flow"
        } else if name == "runners.json" {
            serde_json::from_str::<Vec<Runner>>(&json)
                .unwrap_or_else(|e| panic!("{what}: the runners do not parse: {e}"));
            let doc: Value = serde_json::from_str(&json).unwrap();
            if let Err(e) = validate(&inventory_schema(), &doc) {
                panic!("{what}: the inventory schema rejects it: {e}");
            }
            "inventory"
        } else {
            panic!(
                "{what}: which type is this? Name it spec-*, task*, schedule-*, flow-*, invalid-spec*, invalid-flow* or add it here"
            )
        };
        *seen.entry(kind).or_default() += 1;
    }
    for kind in [
        "spec",
        "task",
        "schedule",
        "invalid spec",
        "flow",
        "invalid flow",
        "inventory",
    ] {
        assert!(seen.contains_key(kind), "no {kind} example in examples/");
    }
}

// ---- docs/wire-format.md

/// A `<!-- wire: Type [rejected] -->` block of the wire format document (the flow types'
/// blocks are marked `<!-- wire(flow): ... -->`, and read the same).
struct Block {
    type_name: String,
    rejected: bool,
    json: String,
    line: usize,
}

/// The marked json blocks of `markdown`.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = markdown.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        // `<!-- wire: T -->`, or `<!-- wire(crate): T -->` for a type a higher layer owns.
        let Some(marker) = line
            .trim()
            .strip_prefix("<!-- wire")
            .and_then(|rest| rest.strip_suffix("-->"))
            .and_then(|rest| match rest.strip_prefix('(') {
                Some(owned) => owned.split_once("):").map(|(_, marker)| marker),
                None => rest.strip_prefix(':'),
            })
        else {
            continue;
        };
        let words: Vec<&str> = marker.split_whitespace().collect();
        let (type_name, rejected) = match words[..] {
            [name] => (name, false),
            [name, "rejected"] => (name, true),
            _ => panic!("line {}: unexpected marker {line:?}", index + 1),
        };
        assert_eq!(
            lines.next().map(|(_, l)| l.trim()),
            Some("```json"),
            "line {}: marker without a json block",
            index + 1
        );
        let json: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| l.trim() != "```")
            .collect();
        found.push(Block {
            type_name: type_name.to_owned(),
            rejected,
            json: json.join("\n"),
            line: index + 1,
        });
    }
    found
}

/// Wire types of `docs/wire-format.md` that have no schema yet; their blocks are checked
/// by the parser only. An entry must be removed when its type gets a schema.
const NO_SCHEMA_YET: &[&str] = &[];

/// Rejected blocks whose rule JSON Schema cannot express: type, a fragment that picks the
/// block, and the rule.
const DOCS_PARSER_ONLY: &[(&str, &str, &str)] = &[
    (
        "LogBatch",
        r#"{ "sequence": 18, "stream": "stdout", "line": "b""#,
        "a batch's lines are in increasing sequence order",
    ),
    (
        "TaskEnv",
        r#"{ "key": "MODE", "value": "slow" }"#,
        "environment keys are unique",
    ),
    (
        "TaskRun",
        r#""finishedAt": "2025-01-01T00:00:04Z""#,
        "finishedAt is not before startedAt",
    ),
    ("FlowSpec", r#""name": "cyclic""#, "the jobs have no cycle"),
    (
        "FlowSpec",
        r#""name": "typo""#,
        "each dependency names a job of the flow",
    ),
    (
        "FlowSpec",
        r#""name": "self""#,
        "a job does not depend on itself",
    ),
    ("FlowSpec", r#""name": "same-name""#, "job names are unique"),
    (
        "FlowRun",
        r#""dependsOn": ["extract"], "state": "running""#,
        "a job starts only when its trigger rule holds",
    ),
    (
        "ObjectMeta",
        r#"{ "kind": "Task", "name": "job-1""#,
        "a task never owns itself",
    ),
    (
        "OwnedResource",
        r#""name": "nightly""#,
        "a resource names at most one controller",
    ),
    (
        "OwnedResource",
        r#"{ "kind": "Task", "name": "etl.load""#,
        "a resource never owns itself",
    ),
    (
        "RetentionPolicy",
        r#""flow": { "ttlAfterFinishedMs": 60000 }, "flow""#,
        "a kind is listed once",
    ),
    (
        "TaskStatus",
        r#""reason": "Stopped""#,
        "each condition agrees with the phase",
    ),
];

#[test]
fn every_wire_format_block_agrees_with_its_schema() {
    let markdown = std::fs::read_to_string(root().join("docs/wire-format.md")).unwrap();
    let blocks = blocks(&markdown);
    assert!(blocks.len() >= 20, "only {} blocks found", blocks.len());
    for name in NO_SCHEMA_YET {
        assert!(
            !schemas().contains_key(*name),
            "{name} has a schema now: drop it from NO_SCHEMA_YET"
        );
    }
    let mut parser_only_used = vec![0; DOCS_PARSER_ONLY.len()];
    for block in &blocks {
        let what = format!("docs/wire-format.md line {}", block.line);
        if NO_SCHEMA_YET.contains(&block.type_name.as_str()) {
            assert_eq!(
                parser_check(&block.type_name, &block.json).is_err(),
                block.rejected,
                "{what}: the {} parser disagrees with the marker",
                block.type_name
            );
            continue;
        }
        if !block.rejected {
            both_accept(&block.type_name, &block.json, &what);
            continue;
        }
        let parser_only = DOCS_PARSER_ONLY.iter().position(|(name, fragment, _)| {
            *name == block.type_name && block.json.contains(fragment)
        });
        let schema = match parser_only {
            Some(index) => {
                parser_only_used[index] += 1;
                Schema::CannotExpress
            }
            None => Schema::Rejects,
        };
        parser_rejects(&block.type_name, &block.json, schema, &what);
    }
    for ((name, _, rule), used) in DOCS_PARSER_ONLY.iter().zip(parser_only_used) {
        assert_eq!(
            used, 1,
            "the {name} block for \"{rule}\" is not in the docs once"
        );
    }
}

// ---- Boundaries and invalid documents

/// A minimal valid spec with `patch`'s fields set (a `null` removes a field).
fn spec(patch: Value) -> String {
    let mut spec = json!({
        "slot": "a",
        "kind": { "type": "wasm", "module": "m.wasm" },
        "timeoutMs": 1000,
    });
    for (key, value) in patch.as_object().unwrap() {
        if value.is_null() {
            spec.as_object_mut().unwrap().remove(key);
        } else {
            spec[key] = value.clone();
        }
    }
    spec.to_string()
}

/// A spec whose kind is a bash script with `body`.
fn script(body: &str) -> String {
    spec(json!({ "kind": {
        "type": "subprocess",
        "mode": { "type": "script", "interpreter": "bash", "body": body },
    }}))
}

/// `n` labels `k0=v`, `k1=v`, ...
fn labels(n: usize) -> Value {
    (0..n).map(|i| (format!("k{i}"), json!("v"))).collect()
}

/// `n` `Exists` requirements on keys `e0`, `e1`, ...
fn exists(n: usize) -> Value {
    (0..n)
        .map(|i| json!({ "key": format!("e{i}"), "operator": "Exists" }))
        .collect()
}

fn selector(requirement: Value) -> String {
    spec(json!({ "runnerSelector": { "matchExpressions": [requirement] } }))
}

/// `doc` with what a status needs for its attempt and phase, unless it gives them:
/// `observedGeneration` 1 from the first attempt on, and conditions that agree with the
/// phase, flipped at T0.
fn with_conditions(mut doc: Value) -> Value {
    let phase = doc["phase"].as_str().unwrap_or_default().to_owned();
    let attempted = doc["attempt"].as_u64().unwrap_or_default() > 0;
    let object = doc.as_object_mut().unwrap();
    if attempted && !object.contains_key("observedGeneration") {
        object.insert("observedGeneration".into(), json!(1));
    }
    let one = |kind: &str, status: &str| json!({ "type": kind, "status": status, "reason": "R", "lastTransitionTime": T0 });
    let succeeded = match phase.as_str() {
        "succeeded" => "True",
        "pending" | "running" => "Unknown",
        _ => "False",
    };
    object.entry("conditions").or_insert_with(|| {
        json!([
            one("Scheduled", if attempted { "True" } else { "False" }),
            one("Running", if phase == "running" { "True" } else { "False" }),
            one("Succeeded", succeeded),
        ])
    });
    doc
}

/// A status with the fields its phase and outcome need, unless `doc` gives them: `queuedAt`
/// while pending (the restart's `nextAttemptAt`, else T0), `finishedAt` in a final phase,
/// one failure in a row after a failed outcome, and [`with_conditions`]'s.
fn status(doc: Value) -> String {
    let mut doc = with_conditions(doc);
    let phase = doc["phase"].as_str().unwrap_or_default().to_owned();
    let object = doc.as_object_mut().unwrap();
    if phase == "pending" && !object.contains_key("queuedAt") {
        let queued = object.get("nextAttemptAt").cloned().unwrap_or(json!(T0));
        object.insert("queuedAt".into(), queued);
    }
    let fin = ["succeeded", "failed", "timeout", "canceled", "exhausted"];
    if fin.contains(&phase.as_str()) && !object.contains_key("finishedAt") {
        object.insert("finishedAt".into(), json!(T1));
    }
    let outcome = object
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if ["failed", "timeout"].contains(&outcome) && !object.contains_key("consecutiveFailures") {
        object.insert("consecutiveFailures".into(), json!(1));
    }
    doc.to_string()
}

/// One row of the table of accepted documents.
fn accept(type_name: &str, json: String, what: &str) {
    both_accept(type_name, &json, what);
}

/// One row of the table of rejected documents.
fn reject(type_name: &str, json: String, schema: Schema, what: &str) {
    parser_rejects(type_name, &json, schema, what);
}

const T0: &str = "2025-01-01T00:00:00Z";
const T1: &str = "2025-01-01T00:00:01Z";
const UID1: &str = "00000000-0000-4000-8000-000000000001";
const UID2: &str = "00000000-0000-4000-8000-000000000002";
const UID3: &str = "00000000-0000-4000-8000-000000000003";

/// Metadata of task `t` created and updated at T0, with `patch`'s fields set.
fn meta_doc(patch: Value) -> String {
    let mut meta = json!({
        "name": "t", "uid": UID1, "tenant": "infra", "resourceVersion": 1, "generation": 1,
        "createdAt": T0, "updatedAt": T0,
    });
    for (key, value) in patch.as_object().unwrap() {
        meta[key] = value.clone();
    }
    meta.to_string()
}

#[test]
fn documents_at_the_limits_are_accepted_by_both() {
    accept("TaskSpec", spec(json!({})), "the minimal spec");
    accept(
        "TaskSpec",
        spec(json!({ "slot": "s".repeat(64) })),
        "a 64-byte slot",
    );
    accept(
        "TaskSpec",
        spec(json!({ "timeoutMs": MAX_TIMEOUT_MS })),
        "the longest timeout",
    );
    accept(
        "TaskSpec",
        spec(json!({ "maxRetries": 0, "restart": "always" })),
        "no retries",
    );
    accept(
        "TaskSpec",
        spec(json!({ "labels": labels(64) })),
        "64 labels",
    );
    accept(
        "TaskSpec",
        spec(json!({ "labels": { "example.com/zone": "v".repeat(63), "empty": "" } })),
        "a prefixed key, a 63-byte value and an empty value",
    );
    accept(
        "TaskSpec",
        spec(json!({ "labels": { format!("{}/n", "p".repeat(253)): "v" } })),
        "a 253-byte key prefix",
    );
    accept(
        "TaskSpec",
        selector(json!({ "key": "cores", "operator": "Gt", "values": ["+5"] })),
        "Gt +5",
    );
    accept(
        "TaskSpec",
        selector(json!({ "key": "ssd", "operator": "Exists", "values": [] })),
        "Exists, empty values",
    );
    accept(
        "TaskSpec",
        spec(json!({ "runnerSelector": {
                "matchLabels": labels(32),
                "matchExpressions": exists(32),
            } })),
        "64 requirements in all",
    );
    accept("TaskSpec", script(""), "an empty script");
    accept(
        "TaskSpec",
        script("ZWNobyBoaQ=="),
        "a script with one padding character",
    );
    accept("TaskSpec", script("ZWNobyBoaSE="), "a script with two");
    accept(
        "TaskKind",
        json!({ "type": "container", "image": "i", "command": [], "args": [""] }).to_string(),
        "a container with no entrypoint override and an empty argument",
    );
    accept(
        "TaskKind",
        json!({ "type": "subprocess", "mode": {
                "type": "script",
                "interpreter": { "custom": { "command": "ruby", "flag": "-e" } },
                "body": "cHV0cyAx",
            } })
        .to_string(),
        "a custom interpreter",
    );
    accept(
        "TaskEnv",
        json!([{ "key": "K", "value": "" }]).to_string(),
        "an empty value",
    );
    accept(
        "TaskStatus",
        status(json!({ "phase": "canceled", "attempt": 0, "finishedAt": T0 })),
        "canceled before any attempt",
    );
    accept(
        "TaskStatus",
        status(
            json!({ "phase": "canceled", "attempt": 2, "outcome": "canceled", "finishedAt": T0 }),
        ),
        "canceled during an attempt",
    );
    accept(
        "TaskStatus",
        status(json!({
            "phase": "succeeded", "attempt": 1, "outcome": "succeeded", "exitCode": 0,
            "finishedAt": T1,
        })),
        "succeeded",
    );
    accept(
        "TaskStatus",
        status(json!({
            "phase": "pending", "attempt": 1, "outcome": "timeout", "nextAttemptAt": T1,
            "queuedAt": T1,
        })),
        "pending after a timeout",
    );
    accept(
        "ObjectMeta",
        meta_doc(json!({})),
        "created and updated at once",
    );
    accept(
        "ObjectMeta",
        meta_doc(json!({
            "resourceVersion": 5, "generation": 5,
            "annotations": { "example.com/note": "x".repeat(MAX_ANNOTATIONS_BYTES - 16) },
            "ownerReferences": [
                { "kind": "Flow", "name": "f".repeat(128), "uid": UID2, "controller": true },
                { "kind": "Schedule", "name": "s", "uid": UID3 },
            ],
        })),
        "generation at resourceVersion, annotations at their size, one controller",
    );
    accept(
        "TaskSpec",
        spec(json!({ "priority": MIN_PRIORITY, "ttlAfterFinishedMs": 0 })),
        "the lowest priority and no time to keep",
    );
    accept(
        "TaskSpec",
        spec(json!({ "priority": MAX_PRIORITY, "ttlAfterFinishedMs": MAX_TTL_AFTER_FINISHED_MS })),
        "the highest priority and the longest time to keep",
    );
    accept(
        "TaskManifest",
        json!({
            "apiVersion": "taskmodel.io/v1", "kind": "Task",
            "metadata": { "name": "t", "labels": labels(64) },
            "spec": serde_json::from_str::<Value>(&spec(json!({}))).unwrap(),
        })
        .to_string(),
        "a manifest with 64 labels",
    );
    accept(
        "TaskQuery",
        json!({ "tenant": "team-a" }).to_string(),
        "a query of a tenant, no filter",
    );
    accept(
        "TaskQuery",
        json!({
            "tenant": "team-a",
            "slot": "nightly",
            "phases": ["Running", "pending"],
            "labelSelector": "zone=eu,!draining",
            "createdSince": T0, "createdBefore": T1, "order": "DESC", "limit": 1000,
        })
        .to_string(),
        "every field, phases and order in other letter cases",
    );
    accept("Labels", "{}".to_owned(), "no labels");
    accept("LabelSelector", "{}".to_owned(), "the empty selector");
}

#[test]
fn invalid_documents_are_rejected_by_the_parser_and_where_expressible_the_schema() {
    use Schema::{CannotExpress, Rejects};
    let meta = |created: &str, updated: &str, version: u64| {
        meta_doc(json!({ "resourceVersion": version, "createdAt": created, "updatedAt": updated }))
    };
    // Specs: fields, ids, timeout, policies.
    reject(
        "TaskSpec",
        spec(json!({ "timeoutMs": 0 })),
        Rejects,
        "zero timeoutMs",
    );
    reject(
        "TaskSpec",
        spec(json!({ "timeoutMs": MAX_TIMEOUT_MS + 1 })),
        Rejects,
        "timeoutMs over 7 days",
    );
    reject(
        "TaskSpec",
        spec(json!({ "timeoutMs": null })),
        Rejects,
        "no timeoutMs",
    );
    reject(
        "TaskSpec",
        spec(json!({ "retries": 3 })),
        Rejects,
        "an unknown field",
    );
    reject(
        "TaskSpec",
        spec(json!({ "slot": "s".repeat(65) })),
        Rejects,
        "a 65-byte slot",
    );
    reject(
        "TaskSpec",
        spec(json!({ "slot": ".." })),
        Rejects,
        "the slot ..",
    );
    reject(
        "TaskSpec",
        spec(json!({ "slot": "nightly backup" })),
        Rejects,
        "a space in the slot",
    );
    reject(
        "TaskSpec",
        spec(json!({ "restart": "sometimes" })),
        Rejects,
        "an unknown restart policy",
    );
    reject(
        "TaskSpec",
        spec(json!({ "maxRetries": -1 })),
        Rejects,
        "negative maxRetries",
    );
    reject(
        "TaskSpec",
        spec(json!({ "backoff": { "factor": 0.5 } })),
        Rejects,
        "a shrinking backoff",
    );
    reject(
        "TaskSpec",
        spec(json!({ "backoff": { "firstMs": 5000, "maxMs": 1000 } })),
        CannotExpress,
        "backoff maxMs below firstMs",
    );
    // Kinds.
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "type": "docker", "image": "i" } })),
        Rejects,
        "an unknown kind type",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "module": "m.wasm" } })),
        Rejects,
        "a kind without its type",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "type": "wasm", "module": "m.wasm", "image": "i" } })),
        Rejects,
        "a field of another kind",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "type": "wasm", "module": "" } })),
        Rejects,
        "an empty module",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "type": "wasm", "module": "m", "args": ["a\u{0}b"] } })),
        Rejects,
        "a NUL byte in an argument",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": { "type": "container", "image": "i", "command": [""] } })),
        Rejects,
        "an empty entrypoint program",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": {
                "type": "subprocess",
                "mode": { "type": "command", "command": "" },
            } })),
        Rejects,
        "an empty command",
    );
    reject(
        "TaskSpec",
        spec(json!({ "kind": {
                "type": "subprocess",
                "mode": { "type": "script", "interpreter": "perl", "body": "" },
            } })),
        Rejects,
        "an unknown interpreter",
    );
    reject(
        "TaskSpec",
        script("@@"),
        Rejects,
        "a body that is not base64",
    );
    reject(
        "TaskSpec",
        script("ZWNobyBoaQ"),
        Rejects,
        "a body without padding",
    );
    reject(
        "TaskSpec",
        script("ZWNobyBoaR=="),
        Rejects,
        "a body with non-zero trailing bits",
    );
    reject(
        "TaskSpec",
        script(&"A".repeat(MAX_SCRIPT_BODY_ENCODED_BYTES + 4)),
        Rejects,
        "a body over the encoded limit",
    );
    reject(
        "TaskSpec",
        script(&"A".repeat(MAX_SCRIPT_BODY_ENCODED_BYTES)),
        CannotExpress,
        "a body at the encoded limit that decodes to one byte too many",
    );
    reject(
        "TaskSpec",
        script("/w=="),
        CannotExpress,
        "a body that decodes to invalid UTF-8",
    );
    reject(
        "TaskSpec",
        script("AA=="),
        CannotExpress,
        "a body that decodes to a NUL byte",
    );
    // Environment.
    reject(
        "TaskEnv",
        json!([{ "key": "A=B", "value": "" }]).to_string(),
        Rejects,
        "an = in a key",
    );
    reject(
        "TaskEnv",
        json!([{ "key": "", "value": "" }]).to_string(),
        Rejects,
        "an empty key",
    );
    reject(
        "TaskEnv",
        json!([{ "key": "K" }]).to_string(),
        Rejects,
        "a variable without a value",
    );
    reject(
        "TaskEnv",
        json!([{ "key": "K", "value": "v" }, { "key": "K", "value": "w" }]).to_string(),
        CannotExpress,
        "a duplicate key",
    );
    reject(
        "TaskEnv",
        json!([{ "key": "é".repeat(200), "value": "" }]).to_string(),
        CannotExpress,
        "a key of 200 characters but 400 bytes",
    );
    // Labels and selectors.
    reject(
        "TaskSpec",
        spec(json!({ "labels": { "-bad-key": "x" } })),
        Rejects,
        "a key starting with -",
    );
    reject(
        "TaskSpec",
        spec(json!({ "labels": { "k": "v".repeat(64) } })),
        Rejects,
        "a 64-byte label value",
    );
    reject(
        "TaskSpec",
        spec(json!({ "labels": { format!("{}/n", "p".repeat(254)): "v" } })),
        Rejects,
        "a 254-byte key prefix",
    );
    reject(
        "TaskSpec",
        spec(json!({ "labels": { "Example.com/n": "v" } })),
        Rejects,
        "an upper-case key prefix",
    );
    reject(
        "TaskSpec",
        spec(json!({ "labels": labels(65) })),
        Rejects,
        "65 labels",
    );
    reject(
        "TaskSpec",
        spec(json!({ "labels": { "k": 1 } })),
        Rejects,
        "a label value that is not a string",
    );
    let twice = concat!(
        r#"{"slot": "a", "kind": {"type": "embedded"}, "timeoutMs": 1,"#,
        r#" "labels": {"k": "1", "k": "2"}}"#,
    );
    reject(
        "TaskSpec",
        twice.to_owned(),
        CannotExpress,
        "a label key twice in the JSON text",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "gpu", "operator": "in", "values": ["a"] })),
        Rejects,
        "an operator in the wrong case",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "gpu", "operator": "In", "values": [] })),
        Rejects,
        "In without values",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "gpu", "operator": "In" })),
        Rejects,
        "In with no values field",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "ssd", "operator": "Exists", "values": ["x"] })),
        Rejects,
        "Exists with a value",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "cores", "operator": "Gt", "values": ["many"] })),
        Rejects,
        "Gt with a word",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "cores", "operator": "Lt", "values": ["1", "2"] })),
        Rejects,
        "Lt with two values",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "cores", "operator": "Gt", "values": ["99999999999999999999"] })),
        CannotExpress,
        "Gt beyond i64",
    );
    reject(
        "TaskSpec",
        selector(json!({ "key": "g", "operator": "In", "values": ["a"], "extra": 1 })),
        Rejects,
        "an unknown requirement field",
    );
    reject(
        "TaskSpec",
        spec(json!({ "runnerSelector": { "matchExpressions": exists(65) } })),
        Rejects,
        "65 expressions",
    );
    reject(
        "TaskSpec",
        spec(json!({ "runnerSelector": {
                "matchLabels": labels(33),
                "matchExpressions": exists(32),
            } })),
        CannotExpress,
        "65 requirements in all",
    );
    reject(
        "LabelSelector",
        json!({ "matchLabels": { "k": "v" }, "match": {} }).to_string(),
        Rejects,
        "an unknown selector field",
    );
    // Metadata and status.
    reject("ObjectMeta", meta(T0, T0, 0), Rejects, "resourceVersion 0");
    reject(
        "ObjectMeta",
        meta("yesterday", T0, 1),
        Rejects,
        "a time that is not RFC 3339",
    );
    reject(
        "ObjectMeta",
        meta(T1, T0, 1),
        CannotExpress,
        "updatedAt before createdAt",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "generation": 2 })),
        CannotExpress,
        "generation above resourceVersion",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "uid": "x" })),
        Rejects,
        "a uid that is no uid",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "uid": "00000000-0000-4000-8000-00000000000A" })),
        Rejects,
        "an uppercase uid",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "id": "t" })),
        Rejects,
        "the old id field",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "annotations": { "bad key": "x" } })),
        Rejects,
        "an annotation key that is no label key",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "annotations": { "a": "x".repeat(MAX_ANNOTATIONS_BYTES) } })),
        CannotExpress,
        "annotations over their size in all",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "ownerReferences": [
            { "kind": "Flow", "name": "a", "uid": UID2, "controller": true },
            { "kind": "Flow", "name": "b", "uid": UID3, "controller": true },
        ] })),
        Rejects,
        "two controllers",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "ownerReferences": [
            { "kind": "Flow", "name": "a", "uid": UID2 },
            { "kind": "Flow", "name": "b", "uid": UID2 },
        ] })),
        CannotExpress,
        "an owner uid twice",
    );
    reject(
        "ObjectMeta",
        meta_doc(json!({ "ownerReferences": [{ "kind": "Flow", "name": "a", "uid": UID1 }] })),
        CannotExpress,
        "an owner with the task's own uid",
    );
    reject(
        "OwnerReference",
        json!({ "kind": "Flow", "name": "a b", "uid": UID2 }).to_string(),
        Rejects,
        "an owner name that is no id",
    );
    reject(
        "TaskSpec",
        spec(json!({ "priority": MAX_PRIORITY + 1 })),
        Rejects,
        "a priority over the highest",
    );
    reject(
        "TaskSpec",
        spec(json!({ "ttlAfterFinishedMs": MAX_TTL_AFTER_FINISHED_MS + 1 })),
        Rejects,
        "a time to keep over the longest",
    );
    reject(
        "TaskManifest",
        json!({
            "apiVersion": "taskmodel.io/v1", "kind": "Pod",
            "metadata": { "name": "t" },
            "spec": serde_json::from_str::<Value>(&spec(json!({}))).unwrap(),
        })
        .to_string(),
        Rejects,
        "a manifest of another kind",
    );
    reject(
        "TaskStatus",
        with_conditions(json!({ "phase": "pending", "attempt": 0 })).to_string(),
        Rejects,
        "pending without queuedAt",
    );
    reject(
        "TaskStatus",
        with_conditions(
            json!({ "phase": "failed", "attempt": 1, "outcome": "failed", "consecutiveFailures": 1 }),
        )
        .to_string(),
        Rejects,
        "final without finishedAt",
    );
    // Generations and conditions.
    let running = |patch: Value| {
        let mut doc = json!({ "phase": "running", "attempt": 1 });
        for (key, value) in patch.as_object().unwrap() {
            doc[key] = value.clone();
        }
        status(doc)
    };
    let condition = |kind: &str, status: &str| json!({ "type": kind, "status": status, "reason": "R", "lastTransitionTime": T0 });
    reject(
        "TaskStatus",
        running(json!({ "observedGeneration": 0 })),
        Rejects,
        "an attempt without the generation it runs",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "pending", "attempt": 0, "observedGeneration": 1 })),
        Rejects,
        "a generation before any attempt",
    );
    reject(
        "TaskStatus",
        running(json!({ "conditions": [] })),
        Rejects,
        "no conditions",
    );
    reject(
        "TaskStatus",
        running(json!({ "conditions": [
            condition("Scheduled", "True"), condition("Running", "True"),
            condition("Running", "True"), condition("Succeeded", "Unknown"),
        ] })),
        Rejects,
        "a condition type twice",
    );
    reject(
        "TaskStatus",
        running(json!({ "conditions": [
            condition("Scheduled", "True"), condition("Running", "False"), condition("Succeeded", "Unknown"),
        ] })),
        CannotExpress,
        "a condition that disagrees with the phase",
    );
    reject(
        "TaskStatus",
        running(json!({ "conditions": [
            condition("Scheduled", "True"), condition("Running", "True"),
            { "type": "Succeeded", "status": "Unknown", "reason": "not ended", "lastTransitionTime": T0 },
        ] })),
        Rejects,
        "a reason of two words",
    );
    reject(
        "TaskStatus",
        status(json!({
            "phase": "pending", "attempt": 1, "outcome": "failed", "nextAttemptAt": T1,
            "queuedAt": T0, "lastDelayMs": 1000,
        })),
        CannotExpress,
        "a restart queued before it is due",
    );
    reject(
        "TaskStatus",
        status(json!({
            "phase": "failed", "attempt": 1, "outcome": "failed", "consecutiveFailures": 0,
        })),
        Rejects,
        "a failure that does not count",
    );
    reject(
        "TaskStatus",
        status(json!({
            "phase": "failed", "attempt": 1, "outcome": "failed", "consecutiveFailures": 2,
        })),
        CannotExpress,
        "more failures in a row than attempts",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "runing", "attempt": 1 })),
        Rejects,
        "a misspelled phase",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "Running", "attempt": 1 })),
        Rejects,
        "a phase in the wrong case",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "running", "attempt": 1, "outcome": "failed" })),
        Rejects,
        "running with an outcome",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "running", "attempt": 0 })),
        Rejects,
        "running before any attempt",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "pending", "attempt": 0, "exitCode": 1 })),
        Rejects,
        "an exit code without an outcome",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "pending", "attempt": 1, "outcome": "failed" })),
        Rejects,
        "pending after an attempt without nextAttemptAt",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "pending", "attempt": 0, "nextAttemptAt": T1 })),
        Rejects,
        "nextAttemptAt before any attempt",
    );
    reject(
        "TaskStatus",
        status(json!({
            "phase": "pending",
            "attempt": u32::MAX,
            "outcome": "failed",
            "nextAttemptAt": T1,
        })),
        Rejects,
        "pending with the last attempt number",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "succeeded", "attempt": 1, "outcome": "failed" })),
        Rejects,
        "succeeded with a failed outcome",
    );
    reject(
        "TaskStatus",
        status(json!({ "phase": "exhausted", "attempt": 1, "outcome": "canceled" })),
        Rejects,
        "exhausted by a canceled attempt",
    );
    reject(
        "TaskStatus",
        status(json!({
            "phase": "failed",
            "attempt": 1,
            "outcome": "failed",
            "error": "é".repeat(MAX_STATUS_ERROR_BYTES / 2 + 1),
        })),
        CannotExpress,
        "an error of 16385 characters but 32770 bytes",
    );
    // Queries.
    reject(
        "TaskQuery",
        json!({ "slot": "nightly" }).to_string(),
        Rejects,
        "no tenant",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "limit": 0 }).to_string(),
        Rejects,
        "limit 0",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "limit": 1001 }).to_string(),
        Rejects,
        "limit over the maximum",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "order": "sideways" }).to_string(),
        Rejects,
        "an unknown order",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "phases": ["runing"] }).to_string(),
        Rejects,
        "a misspelled phase",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "phases": vec!["pending"; 17] }).to_string(),
        Rejects,
        "17 phases",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "sort": "asc" }).to_string(),
        Rejects,
        "an unknown field",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "createdSince": "2025-13-01T00:00:00Z" }).to_string(),
        Rejects,
        "a month 13",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "continue": "not a token!" }).to_string(),
        Rejects,
        "a token outside the URL-safe alphabet",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "continue": "AAAA" }).to_string(),
        CannotExpress,
        "a token with a bad checksum",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "createdSince": T1, "createdBefore": T0 }).to_string(),
        CannotExpress,
        "an empty time range",
    );
    reject(
        "TaskQuery",
        json!({ "tenant": "team-a", "labelSelector": "zone in (" }).to_string(),
        CannotExpress,
        "a selector syntax error",
    );
}

// ---- TaskRun, LogKey, LeaseId

/// A leased run (attempt 1 of generation 1, lease "z", leased at T0 until T9) with `patch`'s fields set
/// (a `null` in the patch removes the field).
fn task_run(patch: Value) -> String {
    let mut doc = json!({
        "taskId": "t", "attempt": 1, "generation": 1, "runner": "r", "lease": "z",
        "leaseExpiresAt": T9, "state": "leased", "leasedAt": T0,
    });
    let map = doc.as_object_mut().unwrap();
    for (key, value) in patch.as_object().unwrap() {
        if value.is_null() {
            map.remove(key);
        } else {
            map.insert(key.clone(), value.clone());
        }
    }
    doc.to_string()
}

const T9: &str = "2025-01-01T00:00:09Z";
const T2: &str = "2025-01-01T00:00:02Z";

/// Every state with the fields it needs and may have, and each rule between state and
/// fields broken once: the schema and the parser agree on all of them.
#[test]
fn task_run_schema_agrees_with_the_parser_on_each_state_rule() {
    let accepted = [
        (json!({}), "leased"),
        (json!({ "state": "running", "startedAt": T1 }), "running"),
        (
            json!({ "state": "running", "startedAt": T1, "cancelRequested": false }),
            "cancel not requested",
        ),
        (
            json!({ "state": "cancelling", "cancelRequested": true }),
            "cancelling before start",
        ),
        (
            json!({ "state": "cancelling", "cancelRequested": true, "startedAt": T1 }),
            "cancelling after start",
        ),
        (
            json!({ "state": "succeeded", "startedAt": T1, "finishedAt": T2, "exitCode": 0 }),
            "succeeded",
        ),
        (
            json!({ "state": "failed", "startedAt": T1, "finishedAt": T2, "exitCode": 1, "error": "e" }),
            "failed",
        ),
        (
            json!({ "state": "timeout", "startedAt": T1, "finishedAt": T2 }),
            "timeout",
        ),
        (
            json!({ "state": "canceled", "cancelRequested": true, "finishedAt": T2 }),
            "canceled before start",
        ),
        (
            json!({ "state": "canceled", "startedAt": T1, "finishedAt": T2, "exitCode": 143 }),
            "canceled by the runner",
        ),
        (
            json!({ "state": "expired", "startedAt": T1, "finishedAt": T9 }),
            "expired",
        ),
        (
            json!({ "lease": "0000000000001", "attempt": u32::MAX }),
            "13 base-36 digits, the last attempt",
        ),
        (json!({ "lease": "3W5E11264SGSF" }), "u64::MAX in uppercase"),
        (
            json!({ "state": "failed", "startedAt": T1, "finishedAt": T2, "error": "e".repeat(MAX_STATUS_ERROR_BYTES) }),
            "the longest error",
        ),
    ];
    for (patch, what) in accepted {
        both_accept("TaskRun", &task_run(patch), what);
    }
    let rejected = [
        (json!({ "attempt": 0 }), "attempt 0"),
        (json!({ "generation": 0 }), "generation 0"),
        (json!({ "generation": null }), "no generation"),
        (json!({ "lease": "" }), "an empty lease"),
        (json!({ "lease": "9-x" }), "a lease outside base 36"),
        (json!({ "lease": "00000000000001" }), "a lease of 14 digits"),
        (json!({ "lease": 7 }), "a lease as a number"),
        (json!({ "runner": null }), "no runner"),
        (json!({ "extra": 1 }), "an unknown field"),
        (json!({ "startedAt": T1 }), "leased but started"),
        (
            json!({ "cancelRequested": true }),
            "cancel requested while leased",
        ),
        (json!({ "finishedAt": T1 }), "leased but finished"),
        (json!({ "exitCode": 0 }), "an exit code before the end"),
        (json!({ "state": "running" }), "running without startedAt"),
        (
            json!({ "state": "running", "startedAt": T1, "error": "e" }),
            "an error before the end",
        ),
        (
            json!({ "state": "cancelling" }),
            "cancelling without cancel requested",
        ),
        (
            json!({ "state": "cancelling", "cancelRequested": false }),
            "cancelling with cancel not requested",
        ),
        (
            json!({ "state": "succeeded", "startedAt": T1 }),
            "final without finishedAt",
        ),
        (
            json!({ "state": "succeeded", "finishedAt": T2 }),
            "succeeded without startedAt",
        ),
        (
            json!({ "state": "succeeded", "startedAt": T1, "finishedAt": T2, "cancelRequested": true }),
            "cancel intent ending succeeded",
        ),
        (
            json!({ "state": "expired", "finishedAt": T9, "exitCode": 1 }),
            "an expired attempt with an exit code",
        ),
        (
            json!({ "state": "expired", "finishedAt": T9, "error": "e" }),
            "an expired attempt with an error",
        ),
        (
            json!({ "state": "failed", "startedAt": T1, "finishedAt": T2, "error": "e".repeat(MAX_STATUS_ERROR_BYTES + 1) }),
            "an error one byte too long",
        ),
    ];
    for (patch, what) in rejected {
        parser_rejects("TaskRun", &task_run(patch), Schema::Rejects, what);
    }
    let parser_only = [
        (
            json!({ "leaseExpiresAt": T0 }),
            "a lease expiring when it is leased",
        ),
        (
            json!({ "state": "running", "startedAt": "2024-12-31T23:59:59Z" }),
            "started before leased",
        ),
        (
            json!({ "state": "timeout", "startedAt": T2, "finishedAt": T1 }),
            "finished before started",
        ),
        (json!({ "lease": "3w5e11264sgsg" }), "a lease past u64::MAX"),
    ];
    for (patch, what) in parser_only {
        parser_rejects("TaskRun", &task_run(patch), Schema::CannotExpress, what);
    }
}

#[test]
fn log_key_and_lease_id_schemas_agree_with_the_parser() {
    both_accept("LogKey", r#"{"attempt":1,"sequence":0}"#, "a log key");
    both_accept(
        "LogKey",
        &format!(r#"{{"attempt":{},"sequence":{}}}"#, u32::MAX, u64::MAX),
        "the largest",
    );
    for (json, what) in [
        (r#"{"attempt":1}"#, "no sequence"),
        (r#"{"attempt":-1,"sequence":0}"#, "a negative attempt"),
        (
            r#"{"attempt":1,"sequence":0,"line":"x"}"#,
            "an unknown field",
        ),
    ] {
        parser_rejects("LogKey", json, Schema::Rejects, what);
    }
    both_accept("LeaseId", r#""9ix""#, "lowercase");
    both_accept("LeaseId", r#""9IX""#, "uppercase");
    for (json, what) in [
        (r#""""#, "empty"),
        (r#""9_x""#, "not base 36"),
        ("12345", "a number"),
    ] {
        parser_rejects("LeaseId", json, Schema::Rejects, what);
    }
    parser_rejects(
        "LeaseId",
        r#""zzzzzzzzzzzzz""#,
        Schema::CannotExpress,
        "past u64::MAX",
    );
}
