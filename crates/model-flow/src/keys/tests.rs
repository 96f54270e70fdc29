//! Unit tests for `keys`: the documented form, and attempt order.

use model_ids::{FlowId, ScheduleId, TaskId};

use super::*;

#[test]
fn keys_are_written_as_documented() {
    let task = TaskId::new("backup.9ix").unwrap();
    let table = [
        (task_key(&task), "task:backup.9ix"),
        (run_key(&task, 1), "run:backup.9ix:0000000001"),
        (run_key(&task, u32::MAX), "run:backup.9ix:4294967295"),
        (run_key_prefix(&task), "run:backup.9ix:"),
        (
            flow_key(&FlowId::new("nightly-etl").unwrap()),
            "flow:nightly-etl",
        ),
        (
            schedule_key(&ScheduleId::new("hourly").unwrap()),
            "schedule:hourly",
        ),
    ];
    for (key, want) in table {
        assert_eq!(key, want);
    }
}

#[test]
fn run_keys_sort_in_attempt_order() {
    let task = TaskId::new("t").unwrap();
    let mut keys: Vec<String> = [10, 2, 1, 100, u32::MAX, 0]
        .iter()
        .map(|&a| run_key(&task, a))
        .collect();
    keys.sort();
    let attempts: Vec<&str> = keys.iter().map(|k| k.rsplit(':').next().unwrap()).collect();
    assert_eq!(
        attempts,
        [
            "0000000000",
            "0000000001",
            "0000000002",
            "0000000010",
            "0000000100",
            "4294967295"
        ]
    );
}
