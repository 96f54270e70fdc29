//! Every JSON example in `docs/wire-format.md` parses as the type its marker names (or is
//! rejected when the marker says so), and accepted examples survive a round trip.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, markdown};

use model_task::attempt::LogKey;
use model_task::lifecycle::Condition;
use model_task::{
    AttemptState, ExtensionKind, ObjectMeta, OutputEvent, OwnerReference, Task, TaskEnv, TaskKind,
    TaskManifest, TaskPhase, TaskRun, TaskSpec, TaskStatus, TaskWatchEvent, Token,
};
use serde::{Serialize, de::DeserializeOwned};

/// The `<!-- wire: Type [rejected] -->` examples of `markdown`.
fn examples(markdown: &str) -> Vec<Example> {
    wire_examples::examples(markdown, "wire")
}

fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(ex: &Example) {
    let parsed = serde_json::from_str::<T>(&ex.json);
    if ex.rejected {
        assert!(
            parsed.is_err(),
            "line {}: {} example should be rejected",
            ex.line,
            ex.type_name
        );
        return;
    }
    let value =
        parsed.unwrap_or_else(|e| panic!("line {}: {} example: {e}", ex.line, ex.type_name));
    let again: T = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(again, value, "line {}: round trip", ex.line);
}

#[test]
fn every_wire_format_example_parses_as_marked() {
    let markdown = markdown();
    let examples = examples(&markdown);
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples {
        match ex.type_name.as_str() {
            "Task" => check::<Task>(ex),
            "TaskManifest" => check::<TaskManifest>(ex),
            "OwnerReference" => check::<OwnerReference>(ex),
            "TaskSpec" => check::<TaskSpec>(ex),
            "TaskKind" => check::<TaskKind>(ex),
            "TaskStatus" => check::<TaskStatus>(ex),
            "Condition" => check::<Condition>(ex),
            "TaskPhase" => check::<TaskPhase>(ex),
            "ObjectMeta" => check::<ObjectMeta>(ex),
            "TaskEnv" => check::<TaskEnv>(ex),
            "TaskRun" => check::<TaskRun>(ex),
            "AttemptState" => check::<AttemptState>(ex),
            "LogKey" => check::<LogKey>(ex),
            "ExtensionKind" => check::<ExtensionKind>(ex),
            "TaskWatchEvent" => check::<TaskWatchEvent>(ex),
            "OutputEvent" => check::<OutputEvent>(ex),
            "Token" => check::<Token>(ex),
            other => panic!("line {}: unknown wire type {other:?}", ex.line),
        }
        if !ex.rejected {
            seen.insert(ex.type_name.as_str());
        }
    }
    for required in [
        "Task",
        "TaskManifest",
        "OwnerReference",
        "TaskSpec",
        "TaskKind",
        "TaskStatus",
        "Condition",
        "TaskPhase",
        "ObjectMeta",
        "TaskEnv",
        "TaskRun",
        "AttemptState",
        "LogKey",
        "ExtensionKind",
        "TaskWatchEvent",
        "OutputEvent",
        "Token",
    ] {
        assert!(seen.contains(required), "no accepted example of {required}");
    }
    // Each kind has an example.
    for kind in ["subprocess", "container", "wasm", "extension", "embedded"] {
        let needle = format!(r#""type": "{kind}""#);
        assert!(
            examples
                .iter()
                .any(|e| e.type_name == "TaskKind" && !e.rejected && e.json.contains(&needle)),
            "no {kind} example"
        );
    }
}

#[test]
fn the_full_task_example_is_what_the_docs_say() {
    let markdown = markdown();
    let ex = examples(&markdown)
        .into_iter()
        .find(|e| e.type_name == "Task")
        .unwrap();
    let task: Task = serde_json::from_str(&ex.json).unwrap();
    assert_eq!(task.phase(), TaskPhase::Pending);
    assert_eq!(task.status().attempt(), 1);
    assert!(task.status().next_attempt_at().is_some());
    assert_eq!(task.spec().max_retries(), Some(3));
    let TaskKind::Subprocess {
        mode: model_task::SubprocessMode::Script { body, .. },
        ..
    } = task.spec().kind()
    else {
        panic!()
    };
    assert!(body.as_str().starts_with("#!/bin/bash\n"));
    task.spec().validate().unwrap();
}

/// The rejected `type_name` examples of `docs/wire-format.md` fail as `T`, in order, with
/// errors that start with `want`.
fn rejected_for<T: DeserializeOwned + std::fmt::Debug>(type_name: &str, want: &[&str]) {
    let markdown = markdown();
    let errors: Vec<String> = examples(&markdown)
        .into_iter()
        .filter(|e| e.type_name == type_name && e.rejected)
        .map(|e| serde_json::from_str::<T>(&e.json).unwrap_err().to_string())
        .collect();
    assert_eq!(errors.len(), want.len(), "{errors:#?}");
    for (error, want) in errors.iter().zip(want) {
        assert!(error.starts_with(want), "{error}");
    }
}

#[test]
fn the_event_and_extension_examples_say_what_the_docs_say() {
    let markdown = markdown();
    let examples = examples(&markdown);
    let accepted = |type_name: &'static str| {
        examples
            .iter()
            .filter(move |e| e.type_name == type_name && !e.rejected)
            .map(|e| e.json.as_str())
    };
    // Every output event type has an example, and every watch event the docs show resumes
    // from its version.
    let outputs: Vec<OutputEvent> = accepted("OutputEvent")
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    for ty in ["chunk", "runStarted", "runFinished", "lagged"] {
        assert!(
            outputs.iter().any(|e| e.type_name() == ty),
            "no {ty} example"
        );
    }
    let watch: Vec<TaskWatchEvent> = accepted("TaskWatchEvent")
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    assert_eq!(
        watch
            .iter()
            .map(TaskWatchEvent::version)
            .collect::<Vec<_>>(),
        [4812, 4900]
    );
    // The lenient subprocess example does not fail on exit status 1.
    let lenient: TaskKind = accepted("TaskKind")
        .find(|json| json.contains("failOnNonZero"))
        .map(|json| serde_json::from_str(json).unwrap())
        .unwrap();
    assert_eq!(
        lenient.outcome_of_exit(1),
        model_task::AttemptOutcome::Succeeded
    );
    // The rejected examples fail for the reasons the docs give.
    let rejected: Vec<String> = examples
        .iter()
        .filter(|e| e.rejected)
        .filter_map(|e| match e.type_name.as_str() {
            "OutputEvent" => Some(serde_json::from_str::<OutputEvent>(&e.json).unwrap_err()),
            "TaskWatchEvent" => Some(serde_json::from_str::<TaskWatchEvent>(&e.json).unwrap_err()),
            "Token" => Some(serde_json::from_str::<Token>(&e.json).unwrap_err()),
            _ => None,
        })
        .map(|e| e.to_string())
        .collect();
    for want in [
        "unknown field `task`",
        "invalid data: must not be empty",
        "invalid dropped: must be greater than zero",
        "invalid token: expected at least 16 bytes",
    ] {
        assert!(
            rejected.iter().any(|e| e.starts_with(want)),
            "{want}: {rejected:?}"
        );
    }
}

#[test]
fn the_rejected_examples_fail_for_the_reason_the_docs_give() {
    rejected_for::<TaskRun>(
        "TaskRun",
        &[
            "invalid cancelRequested: a cancelling attempt has cancel requested",
            "invalid finishedAt: finishedAt is before the start",
            "invalid attempt: must be greater than zero",
        ],
    );
    rejected_for::<TaskStatus>(
        "TaskStatus",
        &[
            "invalid outcome: running has no outcome yet",
            "invalid outcome: no attempt has started",
            "invalid outcome: a canceled task that ran has its last attempt's outcome",
            "invalid lastDelayMs: no restart was scheduled",
            "invalid queuedAt: set exactly while pending",
            "invalid finishedAt: set exactly in a final phase",
            "invalid conditions[1].status: the condition disagrees with the task's phase",
        ],
    );
    rejected_for::<Condition>(
        "Condition",
        &["invalid reason \"attempt active\": a reason starts with a letter"],
    );
}
