//! Unit tests for `keys`: the documented form, tenants apart, and attempt order.

use model_ids::{FlowId, ScheduleId, TaskId, TenantId};

use super::*;

#[test]
fn keys_are_written_as_documented() {
    let acme = TenantId::new("acme").unwrap();
    let task = TaskId::new("backup.9ix").unwrap();
    let table = [
        (task_key(&acme, &task), "task:acme:backup.9ix"),
        (run_key(&acme, &task, 1), "run:acme:backup.9ix:0000000001"),
        (
            run_key(&acme, &task, u32::MAX),
            "run:acme:backup.9ix:4294967295",
        ),
        (run_key_prefix(&acme, &task), "run:acme:backup.9ix:"),
        (
            flow_key(&acme, &FlowId::new("nightly-etl").unwrap()),
            "flow:acme:nightly-etl",
        ),
        (
            schedule_key(&acme, &ScheduleId::new("hourly").unwrap()),
            "schedule:acme:hourly",
        ),
    ];
    for (key, want) in table {
        assert_eq!(key, want);
    }
}

#[test]
fn tenants_never_share_a_key() {
    let task = TaskId::new("t").unwrap();
    let a = TenantId::new("a").unwrap();
    let ab = TenantId::new("a.b").unwrap();
    assert_ne!(task_key(&a, &task), task_key(&ab, &task));
    // A run prefix of one tenant is not the prefix of another tenant's runs.
    assert!(!run_key(&ab, &task, 0).starts_with(&run_key_prefix(&a, &task)));
}

#[test]
fn run_keys_sort_in_attempt_order() {
    let tenant = TenantId::new("acme").unwrap();
    let task = TaskId::new("t").unwrap();
    let mut keys: Vec<String> = [10, 2, 1, 100, u32::MAX, 0]
        .iter()
        .map(|&a| run_key(&tenant, &task, a))
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
