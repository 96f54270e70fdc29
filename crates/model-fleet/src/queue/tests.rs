//! Unit tests for `queue`: the key's order and encoding at the edges, entries, and the
//! in-memory queue following tasks.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{ErrorKind, Slot, TaskId, TenantId, Uid};
use model_policy::AdmissionPolicy;
use model_selector::LabelSelector;
use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskPhase, TaskSpec};

use super::*;
use crate::error::FleetError;

fn key(priority: i32, at: DateTime<Utc>, id: &str) -> QueueKey {
    QueueKey::new(priority, at, TaskId::new(id).unwrap())
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
}

#[test]
fn keys_in_queue_order_encode_in_byte_order() {
    let (min, max) = (DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC);
    let leap = DateTime::from_timestamp(1_483_228_799, 1_500_000_000).unwrap();
    // Each key comes strictly after the one before it in the queue.
    let ordered = [
        key(i32::MAX, max, "a"),
        key(1, min, "z"),
        key(0, min, "a"),
        key(0, DateTime::from_timestamp(-1, 999_999_999).unwrap(), "a"),
        key(0, DateTime::from_timestamp(0, 0).unwrap(), "a"),
        key(
            0,
            DateTime::from_timestamp(1_483_228_799, 999_999_999).unwrap(),
            "a",
        ),
        key(0, leap, "a"),
        key(0, DateTime::from_timestamp(1_483_228_800, 0).unwrap(), "a"),
        key(0, t0(), "a"),
        key(0, t0(), "a.b"),
        key(0, t0(), "a0"),
        key(0, t0(), "b"),
        key(0, t0() + TimeDelta::nanoseconds(1), "a"),
        key(0, max, "a"),
        key(-1, min, "a"),
        key(i32::MIN, min, "a"),
        key(i32::MIN, max, &"z".repeat(TASK_ID_MAX)),
    ];
    for pair in ordered.windows(2) {
        let [a, b] = pair else { unreachable!() };
        assert!(a < b, "{a} before {b}");
        assert!(a.to_bytes() < b.to_bytes(), "{a} before {b} as bytes");
    }
    for k in &ordered {
        assert_eq!(QueueKey::from_bytes(&k.to_bytes()).unwrap(), *k);
        assert_eq!(
            k.to_bytes().len(),
            QUEUE_KEY_PREFIX_LEN + k.id().as_str().len()
        );
    }
}

const TASK_ID_MAX: usize = model_ids::TASK_ID_MAX_LEN;

#[test]
fn the_encoding_is_as_documented() {
    let k = key(1, DateTime::from_timestamp(1, 2).unwrap(), "t");
    assert_eq!(
        k.to_bytes(),
        [
            0x7f, 0xff, 0xff, 0xfe, // !(1 ^ 0x8000_0000)
            0x80, 0, 0, 0, 0, 0, 0, 1, // 1 s
            0, 0, 0, 2, // 2 ns
            b't'
        ]
    );
    let mut prefixed = b"acme\0".to_vec();
    k.write_bytes(&mut prefixed);
    assert_eq!(prefixed.get(5..), Some(k.to_bytes().as_slice()));
    assert_eq!(MAX_QUEUE_KEY_LEN, 16 + 256);
    assert_eq!(
        key(-5, t0(), "job-1").to_string(),
        "priority -5, queued 2026-11-22T10:00:00Z, task job-1"
    );
}

#[test]
fn bytes_that_are_no_key_are_refused() {
    let good = key(0, t0(), "t").to_bytes();
    let check = |bytes: &[u8], reason: &str| {
        let err = QueueKey::from_bytes(bytes).unwrap_err();
        assert_eq!(
            err,
            FleetError::InvalidQueueKey {
                len: bytes.len(),
                reason: match reason {
                    "short" => "shorter than the prefix",
                    "long" => "longer than the longest key",
                    "time" => "the time is out of range",
                    _ => "the id is not a task id",
                }
            },
            "{bytes:?}"
        );
        assert_eq!(err.kind(), ErrorKind::Invalid);
    };
    check(&[], "short");
    check(good.get(..15).unwrap(), "short");
    check(good.get(..16).unwrap(), "id");
    let mut bad_id = good.clone();
    bad_id.push(b' ');
    check(&bad_id, "id");
    let mut not_utf8 = good.get(..16).unwrap().to_vec();
    not_utf8.push(0xff);
    check(&not_utf8, "id");
    let mut nanos = good.clone();
    nanos.splice(12..16, 2_000_000_000u32.to_be_bytes());
    check(&nanos, "time");
    let mut seconds = good.clone();
    seconds.splice(4..12, [0xff; 8]);
    check(&seconds, "time");
    let mut long = good.get(..16).unwrap().to_vec();
    long.extend(std::iter::repeat_n(b'a', TASK_ID_MAX));
    assert!(QueueKey::from_bytes(&long).is_ok(), "the longest key reads");
    long.push(b'a');
    check(&long, "long");
    assert_eq!(
        FleetError::InvalidQueueKey {
            len: 3,
            reason: "shorter than the prefix"
        }
        .to_string(),
        "invalid queue key (3 bytes): shorter than the prefix"
    );
}

// ---- the in-memory queue

fn entry(
    name: &str,
    priority: i32,
    slot: &str,
    kind: KindSet,
    admission: AdmissionPolicy,
) -> QueueEntry {
    QueueEntry::new(
        key(priority, t0(), name),
        Slot::new(slot).unwrap(),
        kind,
        admission,
        LabelSelector::new(),
    )
}

fn order(queue: &Queue) -> Vec<String> {
    queue.iter().map(|t| t.key().id().to_string()).collect()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

/// An embedded task, which runs in process and is never queued.
fn embedded(name: &str) -> Task {
    let spec = TaskSpec::builder("lane", TaskKind::Embedded, 1_000)
        .build()
        .unwrap();
    let manifest = TaskManifest::named(TaskId::new(name).unwrap(), spec);
    Task::create(manifest, acme(), Uid::from_u128(2), t0()).unwrap()
}

fn task(name: &str, slot: &str) -> Task {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
    let spec = TaskSpec::builder(slot, kind, 60_000).build().unwrap();
    let manifest = TaskManifest::named(TaskId::new(name).unwrap(), spec);
    Task::create(manifest, acme(), Uid::from_u128(1), t0()).unwrap()
}

#[test]
fn entries_replace_by_task_and_iterate_in_queue_order_across_kinds() {
    use AdmissionPolicy::{DropIfRunning, Queue as Wait};
    let mut queue = Queue::new(TenantId::new("acme").unwrap());
    assert!(queue.is_empty());
    queue
        .insert(entry("b", 0, "s", KindSet::SUBPROCESS, Wait))
        .unwrap();
    queue
        .insert(entry("a", 0, "s", KindSet::WASM, Wait))
        .unwrap();
    queue
        .insert(entry("c", 5, "s", KindSet::CONTAINER, Wait))
        .unwrap();
    assert_eq!(order(&queue), ["c", "a", "b"]);
    // Same key, new slot and policy: the entry is replaced, in place.
    queue
        .insert(entry("b", 0, "t", KindSet::SUBPROCESS, DropIfRunning))
        .unwrap();
    let b = queue.get(&TaskId::new("b").unwrap()).unwrap();
    assert_eq!((b.slot().as_str(), b.admission()), ("t", DropIfRunning));
    // New priority and kind: it moves.
    queue
        .insert(entry("b", 9, "t", KindSet::WASM, Wait))
        .unwrap();
    assert_eq!(order(&queue), ["b", "c", "a"]);
    assert_eq!(
        queue.get(&TaskId::new("b").unwrap()).unwrap().kind(),
        &KindSet::WASM
    );
    assert_eq!(queue.len(), 3);
    assert!(queue.remove(&TaskId::new("c").unwrap()));
    assert!(!queue.remove(&TaskId::new("c").unwrap()));
    assert_eq!(order(&queue), ["b", "a"]);
    assert_eq!(queue.tenant().as_str(), "acme");
}

#[test]
fn update_follows_a_task_through_its_phases() {
    let mut queue = Queue::new(TenantId::new("acme").unwrap());
    let mut t = task("job", "lane");
    let slot = Slot::new("lane").unwrap();
    queue.update(&t).unwrap();
    assert_eq!(order(&queue), ["job"]);
    assert!(queue.running(&slot).is_none());
    t.begin_attempt(None, t0()).unwrap();
    queue.update(&t).unwrap();
    assert!(queue.is_empty());
    assert_eq!(
        queue.running(&slot).map(Task::phase),
        Some(TaskPhase::Running)
    );
    t.cancel(None, t0()).unwrap();
    queue.update(&t).unwrap();
    assert!(queue.is_empty());
    assert!(queue.running(&slot).is_none());
    assert!(!queue.remove(t.id()));
    // An embedded task is never queued.
    queue.update(&embedded("inline")).unwrap();
    assert!(queue.is_empty());
}

#[test]
fn entries_come_only_from_pending_routable_tasks() {
    let mut t = task("job", "lane");
    let entry = QueueEntry::of(&t).unwrap();
    assert_eq!(entry.key().id().as_str(), "job");
    assert_eq!(entry.slot().as_str(), "lane");
    assert_eq!(entry.kind(), &KindSet::SUBPROCESS);
    assert_eq!(entry.admission(), AdmissionPolicy::DropIfRunning);
    assert_eq!(entry.selector(), &LabelSelector::new());
    assert_eq!(entry.as_queued().key(), entry.key());
    t.begin_attempt(None, t0()).unwrap();
    let err = QueueEntry::of(&t).unwrap_err();
    assert_eq!(err.to_string(), "task job is not queued: it is running");
    assert_eq!(err.kind(), ErrorKind::InvalidTransition);
    let err = QueueEntry::of(&embedded("inline")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "task kind embedded is not routable: it runs in process"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
}

#[test]
fn entries_take_the_spec_priority_and_the_status_queued_at() {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
    use model_task::spec::{MAX_PRIORITY, MIN_PRIORITY};
    for priority in [MIN_PRIORITY, -1, 0, 7, MAX_PRIORITY] {
        let spec = TaskSpec::builder("lane", kind.clone(), 60_000)
            .priority(priority)
            .build()
            .unwrap();
        let at = t0() + TimeDelta::seconds(5);
        let manifest = TaskManifest::named(TaskId::new("job").unwrap(), spec);
        let task = Task::create(manifest, acme(), Uid::from_u128(1), at).unwrap();
        let entry = QueueEntry::of(&task).unwrap();
        assert_eq!(entry.key().priority(), priority);
        assert_eq!(Some(entry.key().queued_at()), task.status().queued_at());
    }
}

#[test]
fn a_queue_refuses_another_tenants_task() {
    let mut queue = Queue::new(TenantId::new("other").unwrap());
    let t = task("job", "lane");
    let err = queue.update(&t).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"task job belongs to tenant "acme", not to the queue's tenant "other""#
    );
    assert_eq!(err.kind(), ErrorKind::Forbidden);
    assert!(queue.is_empty());
}
