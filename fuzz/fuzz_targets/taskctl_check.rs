//! What `taskctl check` does with a document: JSON text, shape, every problem per field.
//!
//! The target calls taskctl's library (`check_document`), the code the binary runs. Its
//! report must agree with the library it diagnoses: no problem exactly when the document
//! parses (and, for a spec, passes `validate`), one problem with its line and column and no
//! shape exactly when `serde_json::Value` cannot read the text (it is not JSON, or holds a
//! number past `f64`'s range or nesting past serde_json's recursion limit, which serde's
//! `IgnoredAny` lets through), the shape that the keys give (a schedule's, a task's, a
//! flow's `jobs`, else a spec), and a message for every problem.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use taskctl::{Shape, check_document, check_document_as};
use taskmodel::fleet::KindSet;
use taskmodel::flow::FlowSpec;
use taskmodel::schedule::Schedule;
use taskmodel::task::{OutputEvent, Task, TaskManifest, TaskSpec, TaskWatchEvent};

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
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        assert_eq!(checked.shape, None, "a shape for what is not JSON: {text}");
        let [syntax] = checked.problems.as_slice() else {
            panic!("not one syntax error for {text}: {:?}", checked.problems);
        };
        assert!(
            syntax.line.is_some() && syntax.column.is_some(),
            "{syntax:?}"
        );
        // `check --type` reads the text the same way first.
        let named = check_document_as(text, "OutputEvent").expect("a listed wire type");
        assert_eq!(named.shape, None, "check --type gave a shape to {text}");
        return;
    };
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
    let (shape, library_ok) = match (is_schedule, resource, stored) {
        (true, _, _) => (
            Shape::Schedule,
            serde_json::from_str::<Schedule>(text).is_ok(),
        ),
        (false, false, _) if is_flow => (
            Shape::Flow,
            serde_json::from_str::<FlowSpec>(text).is_ok_and(|flow| flow.validate().is_ok()),
        ),
        (false, false, _) => (
            Shape::TaskSpec,
            serde_json::from_str::<TaskSpec>(text).is_ok_and(|spec| spec.validate().is_ok()),
        ),
        (false, true, true) => (Shape::Task, serde_json::from_str::<Task>(text).is_ok()),
        (false, true, false) => (
            Shape::TaskManifest,
            serde_json::from_str::<TaskManifest>(text)
                .is_ok_and(|manifest| manifest.validate().is_ok()),
        ),
    };
    assert_eq!(checked.shape, Some(shape), "{text}");
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
