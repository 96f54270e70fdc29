//! Unit tests for `watch`: the wire form of each event, the fields each type allows, and
//! the resume rule at its exact edges.

use chrono::DateTime;
use model_ids::{ErrorKind, TaskId, TenantId, Uid};

use super::*;
use crate::spec::{TaskKind, TaskSpec};
use crate::task::TaskManifest;

fn task() -> Task {
    let spec = TaskSpec::builder("lane", TaskKind::Embedded, 1_000)
        .build()
        .unwrap();
    Task::create(
        TaskManifest::named(TaskId::new("job-1").unwrap(), spec),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(1),
        DateTime::UNIX_EPOCH,
    )
    .unwrap()
}

fn parse(json: &str) -> Result<TaskWatchEvent, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

#[test]
fn each_event_writes_and_reads_back() {
    let task_json = serde_json::to_string(&task()).unwrap();
    for (event, json) in [
        (
            TaskWatchEvent::added(7, task()).unwrap(),
            format!(r#"{{"type":"added","version":7,"task":{task_json}}}"#),
        ),
        (
            TaskWatchEvent::modified(8, task()).unwrap(),
            format!(r#"{{"type":"modified","version":8,"task":{task_json}}}"#),
        ),
        (
            TaskWatchEvent::deleted(9, task()).unwrap(),
            format!(r#"{{"type":"deleted","version":9,"task":{task_json}}}"#),
        ),
        (
            TaskWatchEvent::bookmark(u64::MAX).unwrap(),
            r#"{"type":"bookmark","version":18446744073709551615}"#.to_owned(),
        ),
    ] {
        assert_eq!(serde_json::to_string(&event).unwrap(), json);
        assert_eq!(parse(&json).unwrap(), event);
        assert_eq!(event.type_name(), json.split('"').nth(3).unwrap());
    }
}

#[test]
fn fields_are_checked_as_they_arrive() {
    let task_json = serde_json::to_string(&task()).unwrap();
    let cases = [
        // Fields in any order, the type last.
        (
            format!(r#"{{"task":{task_json},"version":1,"type":"modified"}}"#),
            Ok(()),
        ),
        (
            r#"{"type":"bookmark","version":0}"#.to_owned(),
            Err("invalid version: must be greater than zero"),
        ),
        (
            format!(r#"{{"type":"bookmark","version":1,"task":{task_json}}}"#),
            Err("unknown field `task`, expected `type` or `version`"),
        ),
        (
            format!(r#"{{"task":{task_json},"type":"bookmark","version":1}}"#),
            Err("unknown field `task`, expected `type` or `version`"),
        ),
        (
            r#"{"type":"added","version":1}"#.to_owned(),
            Err("missing field `task`"),
        ),
        (
            format!(r#"{{"type":"added","task":{task_json}}}"#),
            Err("missing field `version`"),
        ),
        (r#"{"version":1}"#.to_owned(), Err("missing field `type`")),
        (
            r#"{"type":"changed","version":1}"#.to_owned(),
            Err("unknown variant `changed`"),
        ),
        (
            r#"{"type":"bookmark","version":1,"version":2}"#.to_owned(),
            Err("duplicate field `version`"),
        ),
        (
            r#"{"type":"bookmark","version":-1}"#.to_owned(),
            Err("invalid value: integer `-1`"),
        ),
        (
            r#"{"type":"bookmark","version":1,"object":{}}"#.to_owned(),
            Err("unknown field `object`"),
        ),
    ];
    for (json, want) in cases {
        match (parse(&json), want) {
            (Ok(_), Ok(())) => {}
            (Err(got), Err(want)) => assert!(got.starts_with(want), "{json}: {got}"),
            (got, want) => panic!("{json}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn constructors_refuse_version_zero() {
    for result in [
        TaskWatchEvent::added(0, task()),
        TaskWatchEvent::modified(0, task()),
        TaskWatchEvent::deleted(0, task()),
        TaskWatchEvent::bookmark(0),
    ] {
        assert!(matches!(
            result,
            Err(TaskError::Invalid { ref path, reason: InvalidReason::Zero, .. }) if path == "version"
        ));
    }
    let event = TaskWatchEvent::deleted(3, task()).unwrap();
    assert_eq!((event.version(), event.task()), (3, Some(&task())));
}

#[test]
fn resume_at_the_edges_of_the_window() {
    let window = WatchWindow::new(100, 250).unwrap();
    let check = |since: u64, want: Result<Option<RangeInclusive<u64>>, ErrorKind>| {
        let got = window.resume(since).map_err(|e| e.kind());
        assert_eq!(got, want, "since {since}");
    };
    check(0, Err(ErrorKind::Gone));
    check(98, Err(ErrorKind::Gone));
    check(99, Ok(Some(100..=250)));
    check(100, Ok(Some(101..=250)));
    check(249, Ok(Some(250..=250)));
    check(250, Ok(None));
    check(251, Err(ErrorKind::Invalid));
    check(u64::MAX, Err(ErrorKind::Invalid));
    assert_eq!(
        window.resume(98).unwrap_err().to_string(),
        "gone: watch version 98 is too old, the oldest change held is 100; list again"
    );
    assert_eq!(
        window.resume(251).unwrap_err().to_string(),
        "watch version 251 is after the latest change 250; list again"
    );
}

#[test]
fn windows_of_a_new_and_an_emptied_store() {
    // A store that never dropped a change replays everything to a watcher from 0.
    let fresh = WatchWindow::new(1, 5).unwrap();
    assert_eq!(fresh.resume(0).unwrap(), Some(1..=5));
    // Nothing held yet.
    let empty = WatchWindow::new(1, 0).unwrap();
    assert_eq!(empty.resume(0).unwrap(), None);
    // Everything up to 10 compacted: only a watcher at 10 may resume.
    let compacted = WatchWindow::new(11, 10).unwrap();
    assert_eq!(compacted.resume(10).unwrap(), None);
    assert_eq!(compacted.resume(9).unwrap_err().kind(), ErrorKind::Gone);
    // The window at the end of the counter.
    let last = WatchWindow::new(u64::MAX, u64::MAX).unwrap();
    assert_eq!(
        last.resume(u64::MAX - 1).unwrap(),
        Some(u64::MAX..=u64::MAX)
    );
    assert_eq!(last.resume(u64::MAX).unwrap(), None);
    for (oldest, latest) in [(0, 5), (7, 5), (2, 0)] {
        assert!(
            WatchWindow::new(oldest, latest).is_err(),
            "{oldest} {latest}"
        );
    }
}
