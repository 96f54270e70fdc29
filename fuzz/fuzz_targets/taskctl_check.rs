//! What `taskctl check` does with a document: JSON text, shape, every problem per field.
//!
//! taskctl is a binary, so this target includes its diagnosis module from source and
//! repeats the field table of its `check` command. The report must agree with the library:
//! no problem exactly when the document parses (and, for a spec, passes `validate`), and
//! every problem has a message.
#![no_main]

#[allow(
    dead_code,
    unreachable_pub,
    reason = "taskctl's module, used here in part"
)]
#[path = "../../crates/taskctl/src/diagnose.rs"]
mod diagnose;

use diagnose::{Field, Problem, parse_fields, parse_json, task_problem};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use taskmodel::Slot;
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::{ObjectMeta, Parsed, Task, TaskKind, TaskSpec, TaskStatus};
use taskmodel::task::spec::Timeout;

/// taskctl's `SPEC_FIELDS` (crates/taskctl/src/commands/check.rs).
const SPEC_FIELDS: &[Field] = &[
    Field::of::<Slot>("slot"),
    Field::of::<Parsed<TaskKind>>("kind"),
    Field::of::<Parsed<Timeout>>("timeoutMs"),
    Field::of::<Option<RestartPolicy>>("restart"),
    Field::of::<Option<Parsed<BackoffPolicy>>>("backoff"),
    Field::of::<Option<AdmissionPolicy>>("admission"),
    Field::of::<Option<Parsed<LabelSelector>>>("runnerSelector"),
    Field::of::<Option<Parsed<Labels>>>("labels"),
    Field::of::<Option<u32>>("maxRetries"),
];

/// taskctl's `TASK_FIELDS`.
const TASK_FIELDS: &[Field] = &[
    Field::of::<Parsed<ObjectMeta>>("metadata"),
    Field {
        name: "spec",
        check: |value| parse_spec(value).map(drop),
    },
    Field::of::<Option<Parsed<TaskStatus>>>("status"),
];

/// taskctl's `parse_spec`.
fn parse_spec(value: &Value) -> Result<TaskSpec, Vec<Problem>> {
    parse_fields::<Parsed<TaskSpec>>(value, SPEC_FIELDS)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let value = match parse_json(text) {
        Ok(value) => value,
        Err(problem) => {
            assert!(problem.line.is_some() && problem.column.is_some());
            assert!(!problem.message.is_empty());
            return;
        }
    };
    let is_task = value.as_object().is_some_and(|o| {
        ["metadata", "spec", "status"]
            .iter()
            .any(|k| o.contains_key(*k))
    });
    let (problems, library_ok) = if is_task {
        let found = parse_fields::<Parsed<Task>>(&value, TASK_FIELDS)
            .err()
            .unwrap_or_default();
        (found, serde_json::from_value::<Task>(value.clone()).is_ok())
    } else {
        let found = match parse_spec(&value) {
            Ok(spec) => spec.validate().err().map(|e| vec![task_problem(&e)]),
            Err(found) => Some(found),
        };
        let library = serde_json::from_value::<TaskSpec>(value.clone());
        (
            found.unwrap_or_default(),
            library.is_ok_and(|spec| spec.validate().is_ok()),
        )
    };
    assert_eq!(
        problems.is_empty(),
        library_ok,
        "taskctl and the library disagree on {text}: {problems:?}"
    );
    for problem in &problems {
        assert!(
            !problem.message.is_empty(),
            "a problem without a message: {problem:?}"
        );
    }
});
