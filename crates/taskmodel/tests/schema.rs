//! With the `schema` feature, every wire type of every layer has a JSON Schema that
//! serializes, names itself, and whose references all resolve inside the document.
#![cfg(feature = "schema")]
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use serde_json::Value;
use taskmodel::schemars::{JsonSchema, schema_for};
use taskmodel::{flow, ids, policy, query, retention, schedule, selector, task};

/// The schema of `T` as JSON.
fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

/// Every `$ref` inside `value`.
fn refs<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("$ref", Value::String(target)) => found.push(target),
                    _ => refs(item, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, found)),
        _ => {}
    }
}

/// The schema of `T` is a draft 2020-12 document titled `name` whose references resolve.
fn check<T: JsonSchema>(name: &str) {
    let schema = schema::<T>();
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}"
    );
    assert_eq!(schema["title"], name);
    assert!(
        schema.get("type").is_some() || schema.get("oneOf").is_some(),
        "{name} says nothing about its shape: {schema}"
    );
    let mut found = Vec::new();
    refs(&schema, &mut found);
    for target in found {
        let def = target
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("{name}: reference {target} leaves the document"));
        assert!(
            schema["$defs"].get(def).is_some(),
            "{name}: reference {target} has no definition"
        );
        assert!(
            !def.ends_with(|c: char| c.is_ascii_digit()),
            "{name}: {def} looks like a renamed duplicate: two types share a schema name"
        );
    }
}

#[test]
fn every_wire_type_has_a_self_contained_schema() {
    check::<ids::TaskId>("TaskId");
    check::<ids::Slot>("Slot");
    check::<ids::AgentId>("AgentId");
    check::<ids::RunnerId>("RunnerId");
    check::<policy::RestartPolicy>("RestartPolicy");
    check::<policy::JitterPolicy>("JitterPolicy");
    check::<policy::BackoffPolicy>("BackoffPolicy");
    check::<policy::AdmissionPolicy>("AdmissionPolicy");
    check::<selector::Labels>("Labels");
    check::<selector::LabelSelector>("LabelSelector");
    check::<selector::SelectorRequirement>("SelectorRequirement");
    check::<selector::SelectorOperator>("SelectorOperator");
    check::<task::Task>("Task");
    check::<task::ObjectMeta>("ObjectMeta");
    check::<task::TaskSpec>("TaskSpec");
    check::<task::TaskKind>("TaskKind");
    check::<task::SubprocessMode>("SubprocessMode");
    check::<task::spec::Interpreter>("Interpreter");
    check::<task::spec::ScriptBody>("ScriptBody");
    check::<task::spec::EnvVar>("EnvVar");
    check::<task::TaskEnv>("TaskEnv");
    check::<task::spec::RunnerEnv>("RunnerEnv");
    check::<task::TaskStatus>("TaskStatus");
    check::<task::Condition>("Condition");
    check::<task::ConditionType>("ConditionType");
    check::<task::ConditionStatus>("ConditionStatus");
    check::<task::TaskPhase>("TaskPhase");
    check::<task::AttemptOutcome>("AttemptOutcome");
    check::<task::AttemptState>("AttemptState");
    check::<task::TaskRun>("TaskRun");
    check::<task::LeaseId>("LeaseId");
    check::<task::attempt::LogKey>("LogKey");
    check::<task::spec::Timeout>("Timeout");
    check::<query::TaskQuery>("TaskQuery");
    check::<query::SortOrder>("SortOrder");
    check::<query::ContinueToken>("ContinueToken");
    check::<task::spec::ExtensionKind>("ExtensionKind");
    check::<task::spec::ExtensionSpec>("ExtensionSpec");
    check::<task::spec::KindName>("KindName");
    check::<task::KindSet>("KindSet");
    check::<task::TaskWatchEvent>("TaskWatchEvent");
    check::<task::OutputEvent>("OutputEvent");
    check::<task::event::OutputStream>("OutputStream");
    check::<task::Token>("Token");
    check::<query::TaskRunQuery>("TaskRunQuery");
    check::<query::RunContinueToken>("RunContinueToken");
    check::<flow::FlowSpec>("FlowSpec");
    check::<flow::FlowJob>("FlowJob");
    check::<flow::TriggerRule>("TriggerRule");
    check::<flow::FailurePolicy>("FailurePolicy");
    check::<flow::FlowRun>("FlowRun");
    check::<flow::JobResult>("JobResult");
    check::<flow::SkipReason>("SkipReason");
    check::<flow::FlowStatus>("FlowStatus");
    check::<schedule::Schedule>("Schedule");
    check::<schedule::Trigger>("Trigger");
    check::<schedule::CronExpr>("CronExpr");
    check::<schedule::Zone>("Zone");
    check::<schedule::Interval>("Interval");
    check::<schedule::OverlapPolicy>("OverlapPolicy");
    check::<schedule::Action>("Action");
    check::<schedule::ActionState>("ActionState");
    check::<ids::ActionId>("ActionId");
    check::<retention::OwnedResource>("OwnedResource");
    check::<retention::ResourceKind>("ResourceKind");
    check::<retention::Lifecycle>("Lifecycle");
    check::<retention::Outcome>("Outcome");
    check::<retention::RetentionPolicy>("RetentionPolicy");
    check::<retention::RetentionRule>("RetentionRule");
    check::<retention::CascadePolicy>("CascadePolicy");
    check::<retention::HistoryLimits>("HistoryLimits");
}

#[test]
fn a_task_schema_pulls_in_every_layer_it_uses() {
    let schema = schema::<task::Task>();
    let defs = schema["$defs"].as_object().unwrap();
    for name in [
        "ObjectMeta",
        "TaskId",
        "TaskSpec",
        "Slot",
        "TaskKind",
        "BackoffPolicy",
        "LabelSelector",
        "Labels",
        "TaskStatus",
        "TaskPhase",
    ] {
        assert!(defs.contains_key(name), "{name} missing from Task's $defs");
    }
}

#[test]
fn retention_fields_of_flows_and_schedules_carry_the_bounds_parsing_holds() {
    let flow = schema::<flow::FlowSpec>();
    let ttl = &flow["properties"]["ttlAfterFinishedMs"];
    assert_eq!(ttl["maximum"], task::spec::MAX_TTL_AFTER_FINISHED_MS);
    assert_eq!(ttl["minimum"], 0);
    let schedule = schema::<schedule::Schedule>();
    for field in ["successfulHistoryLimit", "failedHistoryLimit"] {
        let limit = &schedule["properties"][field];
        assert_eq!(limit["maximum"], schedule::MAX_HISTORY_LIMIT, "{field}");
        assert_eq!(limit["minimum"], 0, "{field}");
        assert!(
            !schedule["required"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r == field),
            "{field} is optional"
        );
    }
}
