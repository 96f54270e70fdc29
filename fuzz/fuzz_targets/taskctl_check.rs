//! What `taskctl check` does with a document: JSON text, shape, every problem per field.
//!
//! The target calls taskctl's library (`check_document`), the code the binary runs. Its
//! report must agree with the library it diagnoses: no problem exactly when the document
//! parses (and, for a spec, passes `validate`), a syntax error with its line and column
//! exactly when the text is not JSON, the shape that the keys give (a schedule's, a task's,
//! a flow's `jobs`, else a spec), and a message for every problem.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;
use serde_json::Value;
use taskctl::{Shape, check_document, check_document_as};
use taskmodel::flow::FlowSpec;
use taskmodel::schedule::Schedule;
use taskmodel::task::{KindSet, OutputEvent, Task, TaskManifest, TaskSpec, TaskWatchEvent};

/// The keys that make a document a task or a manifest (docs/taskctl.md).
const RESOURCE_KEYS: [&str; 4] = ["apiVersion", "metadata", "spec", "status"];

/// The metadata keys that make a resource a stored task rather than a manifest.
const STORED_META_KEYS: [&str; 6] = [
    "uid",
    "tenant",
    "resourceVersion",
    "generation",
    "createdAt",
    "updatedAt",
];

/// The key that makes a document a schedule, before the task keys (docs/taskctl.md).
const SCHEDULE_KEY: &str = "trigger";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let checked = check_document(text);
    for problem in &checked.problems {
        assert!(
            !problem.message.is_empty(),
            "a problem without a message: {problem:?}"
        );
    }
    if serde_json::from_str::<IgnoredAny>(text).is_err() {
        assert_eq!(checked.shape, None, "a shape for what is not JSON: {text}");
        let [syntax] = checked.problems.as_slice() else {
            panic!("not one syntax error for {text}: {:?}", checked.problems);
        };
        assert!(
            syntax.line.is_some() && syntax.column.is_some(),
            "{syntax:?}"
        );
        return;
    }
    // A value nested deeper than serde_json's recursion limit is JSON but no `Value`.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let object = value.as_object();
        let is_schedule = object.is_some_and(|o| o.contains_key(SCHEDULE_KEY));
        let resource = object.is_some_and(|o| RESOURCE_KEYS.iter().any(|k| o.contains_key(*k)));
        let stored = object.is_some_and(|o| {
            o.contains_key("status")
                || o.get("metadata")
                    .and_then(Value::as_object)
                    .is_some_and(|m| STORED_META_KEYS.iter().any(|k| m.contains_key(*k)))
        });
        let is_flow = object.is_some_and(|o| o.contains_key("jobs"));
        let shape = match (is_schedule, resource, stored) {
            (true, _, _) => Shape::Schedule,
            (false, false, _) if is_flow => Shape::Flow,
            (false, false, _) => Shape::TaskSpec,
            (false, true, true) => Shape::Task,
            (false, true, false) => Shape::TaskManifest,
        };
        assert_eq!(checked.shape, Some(shape), "{text}");
    }
    let library_ok = match checked.shape {
        Some(Shape::Task) => serde_json::from_str::<Task>(text).is_ok(),
        Some(Shape::Schedule) => serde_json::from_str::<Schedule>(text).is_ok(),
        Some(Shape::TaskManifest) => serde_json::from_str::<TaskManifest>(text)
            .is_ok_and(|manifest| manifest.validate().is_ok()),
        Some(Shape::TaskSpec) => {
            serde_json::from_str::<TaskSpec>(text).is_ok_and(|spec| spec.validate().is_ok())
        }
        Some(Shape::Flow) => {
            serde_json::from_str::<FlowSpec>(text).is_ok_and(|flow| flow.validate().is_ok())
        }
        None => false,
        Some(other) => panic!("check_document gave the shape {other:?}"),
    };
    assert_eq!(
        checked.is_valid(),
        library_ok,
        "taskctl and the library disagree on {text}: {:?}",
        checked.problems
    );
    // `check --type` agrees with the parser of the named type, on the same text.
    let named = [
        ("OutputEvent", serde_json::from_str::<OutputEvent>(text).is_ok()),
        ("TaskWatchEvent", serde_json::from_str::<TaskWatchEvent>(text).is_ok()),
        ("KindSet", serde_json::from_str::<KindSet>(text).is_ok()),
    ];
    for (name, parses) in named {
        let checked = check_document_as(text, name).expect("a listed wire type");
        assert_eq!(checked.shape, Some(Shape::Wire(name)));
        assert_eq!(checked.is_valid(), parses, "check --type {name} disagrees on {text}");
    }
});
