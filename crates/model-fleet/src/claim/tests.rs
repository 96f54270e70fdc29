//! Unit tests for `claim`: each reason a task is not claimable, alone and together, the
//! order of claims, batches and slots.

use chrono::{TimeDelta, TimeZone};
use model_ids::RunnerId;
use model_ids::{TenantId, Uid};
use model_policy::AdmissionPolicy;
use model_selector::{LabelSelector, Labels};
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskManifest, TaskSpec};

use super::*;
use crate::queue::{QueueEntry, QueueKey};
use crate::runner::RunnerState;

fn t(s: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap() + TimeDelta::seconds(s)
}

fn id(s: &str) -> TaskId {
    TaskId::new(s).unwrap()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn ttl() -> LivenessTtl {
    LivenessTtl::from_ms(10_000).unwrap()
}

/// A queued task `name` of slot `slot`, priority `priority`, queued at `t(at)`.
fn entry(name: &str, priority: i32, at: i64, slot: &str, selector: &str) -> QueueEntry {
    QueueEntry::new(
        QueueKey::new(priority, t(at), id(name)),
        Slot::new(slot).unwrap(),
        KindSet::SUBPROCESS,
        AdmissionPolicy::Queue,
        selector.parse().unwrap(),
    )
}

/// A task of `slot` that runs.
fn running(name: &str, slot: &str) -> Task {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
    let spec = TaskSpec::builder(slot, kind, 60_000).build().unwrap();
    let mut task = Task::create(
        TaskManifest::named(id(name), spec),
        acme(),
        Uid::from_u128(1),
        t(-100),
    )
    .unwrap();
    task.begin_attempt(None, t(-100)).unwrap();
    task
}

fn runner(labels: &[(&str, &str)], kinds: KindSet, capacity: u32) -> Runner {
    Runner::builder(RunnerId::new("r1").unwrap(), kinds)
        .labels(Labels::from_pairs(labels.iter().copied()).unwrap())
        .max_concurrent(capacity)
        .build()
        .unwrap()
        .register(None, t(0), ttl())
        .unwrap()
}

fn queue(entries: Vec<QueueEntry>) -> Queue {
    let mut queue = Queue::new(TenantId::new("acme").unwrap());
    for entry in entries {
        queue.insert(entry).unwrap();
    }
    queue
}

fn claimed(queue: &Queue, request: &ClaimRequest<'_>, n: u32) -> Vec<String> {
    queue
        .claim_many(request, n)
        .iter()
        .map(|task| task.key().id().to_string())
        .collect()
}

#[test]
fn the_first_task_in_queue_order_is_claimed() {
    let queue = queue(vec![
        entry("late", 0, -1, "a", ""),
        entry("early", 0, -5, "b", ""),
        entry("urgent", 7, 0, "c", ""),
        entry("early-b", 0, -5, "d", ""),
        entry("low", -3, -50, "e", ""),
    ]);
    let runner = runner(&[], KindSet::ALL, 10);
    let request = ClaimRequest::new(&runner, 0, t(1), ttl());
    assert_eq!(
        claimed(&queue, &request, 10),
        ["urgent", "early", "early-b", "late", "low"]
    );
    assert_eq!(
        queue
            .claim(&request)
            .map(|task| task.key().id().to_string()),
        Some("urgent".to_owned())
    );
    assert_eq!(claimed(&queue, &request, 2), ["urgent", "early"]);
    assert!(claimed(&queue, &request, 0).is_empty());
}

#[test]
fn capacity_and_slots_bound_a_batch() {
    let queue = queue(vec![
        entry("a1", 0, -3, "a", ""),
        entry("a2", 0, -2, "a", ""),
        entry("b1", 0, -1, "b", ""),
        entry("c1", 0, 0, "c", ""),
    ]);
    let runner = runner(&[], KindSet::ALL, 3);
    let check = |active: u32, n: u32, want: &[&str]| {
        let request = ClaimRequest::new(&runner, active, t(0), ttl());
        assert_eq!(claimed(&queue, &request, n), want, "active {active}, n {n}");
    };
    check(0, 10, &["a1", "b1", "c1"]);
    check(1, 10, &["a1", "b1"]);
    check(2, 10, &["a1"]);
    check(3, 10, &[]);
    check(0, 2, &["a1", "b1"]);
}

#[test]
fn each_reason_alone_and_all_together() {
    let mut queue = queue(vec![
        entry("ok", 0, 0, "free", "zone=eu"),
        entry("elsewhere", 0, 0, "free2", "zone=us,gpu"),
        entry("later", 0, 30, "free3", ""),
        entry("waits", 0, 0, "busy", ""),
        QueueEntry::new(
            QueueKey::new(0, t(0), id("wasm")),
            Slot::new("free4").unwrap(),
            KindSet::WASM,
            AdmissionPolicy::Replace,
            LabelSelector::new(),
        ),
        QueueEntry::new(
            QueueKey::new(0, t(0), id("drops")),
            Slot::new("busy").unwrap(),
            KindSet::SUBPROCESS,
            AdmissionPolicy::DropIfRunning,
            LabelSelector::new(),
        ),
    ]);
    queue.update(&running("runs", "busy")).unwrap();
    let runner = runner(&[("zone", "eu")], KindSet::SUBPROCESS, 1);
    let request = ClaimRequest::new(&runner, 0, t(1), ttl());
    let check = |task: &str, text: &str| {
        assert_eq!(queue.explain(&request, &id(task)).to_string(), text);
    };
    check("ok", "task ok is claimable");
    check(
        "elsewhere",
        r#"task elsewhere is not claimable: matchExpressions[0] (gpu): key missing; matchLabels["zone"] (zone=us): value "eu" is not listed"#,
    );
    check(
        "later",
        "task later is not claimable: not due until 2026-11-22T10:00:30Z",
    );
    check(
        "waits",
        "task waits is not claimable: slot busy is busy with task runs: it waits for the slot",
    );
    check(
        "drops",
        "task drops is not claimable: slot busy is busy with task runs: it is not to run while the slot is busy",
    );
    check(
        "wasm",
        "task wasm is not claimable: the runner runs subprocess, not wasm",
    );
    check("runs", "task runs is not claimable: the task is not queued");
    check(
        "nothing",
        "task nothing is not claimable: the task is not queued",
    );

    // The runner's own state comes first, then the task's reasons, each once.
    let mut tired = runner.clone();
    let _ = tired.drain().unwrap();
    let late = ClaimRequest::new(&tired, 1, t(20), ttl());
    let explained = queue.explain(&late, &id("elsewhere"));
    assert_eq!(
        explained.blockers.first(),
        Some(&ClaimBlocker::Runner(RunnerUnavailable::Draining))
    );
    assert_eq!(
        explained.to_string(),
        r#"task elsewhere is not claimable: the runner is draining; the runner is stale (last seen at 2026-11-22T10:00:00Z); the runner is at capacity (1 of 1 active); matchExpressions[0] (gpu): key missing; matchLabels["zone"] (zone=us): value "eu" is not listed"#
    );
    assert_eq!(tired.state(), RunnerState::Draining);
    assert!(queue.claim(&late).is_none());
}

#[test]
fn a_claimable_task_behind_another_says_which() {
    let queue = queue(vec![
        entry("first", 1, 0, "a", ""),
        entry("second", 0, 0, "b", ""),
    ]);
    let runner = runner(&[], KindSet::ALL, 1);
    let request = ClaimRequest::new(&runner, 0, t(0), ttl());
    let explained = queue.explain(&request, &id("second"));
    assert_eq!(
        explained.blockers,
        [ClaimBlocker::Behind { first: id("first") }]
    );
    assert_eq!(
        explained.to_string(),
        "task second is not claimable: claimable, but task first comes first in queue order"
    );
    let view = queue.get(&id("second")).unwrap();
    assert!(
        request.check(view, None).is_claimable(),
        "alone, it may be taken"
    );
    assert!(request.admits(view, None));
}

#[test]
fn a_slot_frees_when_its_task_ends() {
    let mut queue = queue(vec![entry("next", 0, 0, "s", "")]);
    let mut busy = running("now", "s");
    queue.update(&busy).unwrap();
    let runner = runner(&[], KindSet::ALL, 1);
    let request = ClaimRequest::new(&runner, 0, t(0), ttl());
    assert!(queue.claim(&request).is_none());
    let result = model_task::AttemptResult::new(model_task::AttemptOutcome::Succeeded);
    let _ = busy
        .end_attempt(None, result, &mut model_policy::SeededRandom::new(1), t(0))
        .unwrap();
    queue.update(&busy).unwrap();
    assert_eq!(
        queue
            .claim(&request)
            .map(|task| task.key().id().to_string()),
        Some("next".to_owned())
    );
}

/// A queue whose first claimable task is number `first` in queue order (counting from 1):
/// before it, tasks the runner (`zone=eu`, subprocess) may not take, for each reason in
/// turn (selector, `NotIn` selector, slot busy), with a wasm task it does not run between each; from
/// it on, claimable tasks of distinct slots, then one more that fails its selector.
fn head_of(first: usize) -> Queue {
    let mut entries = Vec::new();
    // Earlier `at` comes first in queue order; wasm tasks are queued at odd seconds.
    let at = |n: usize| -1_000 + 2 * n as i64;
    for n in 1..first {
        let (slot, selector) = match n % 3 {
            0 => ("busy", ""),
            1 => ("free", "zone=us"),
            _ => ("free", "zone notin (eu)"),
        };
        entries.push(entry(&format!("no-{n:03}"), 0, at(n), slot, selector));
        entries.push(QueueEntry::new(
            QueueKey::new(0, t(at(n) + 1), id(&format!("wasm-{n:03}"))),
            Slot::new("free").unwrap(),
            KindSet::WASM,
            AdmissionPolicy::Queue,
            LabelSelector::new(),
        ));
    }
    // Not due, so never claimable: last in queue order.
    entries.push(entry("later", 0, 30, "free", ""));
    for (k, n) in (first..first + 3).enumerate() {
        entries.push(entry(
            &format!("ok-{k}"),
            0,
            at(n),
            &format!("s{k}"),
            "zone=eu",
        ));
    }
    entries.push(entry("no-tail", 0, at(first + 3), "free", "zone=us"));
    let mut queue = queue(entries);
    queue.update(&running("runs", "busy")).unwrap();
    queue
}

#[test]
fn the_claim_is_the_same_either_side_of_the_head_probe() {
    let eu = runner(&[("zone", "eu")], KindSet::SUBPROCESS, 3);
    let request = ClaimRequest::new(&eu, 0, t(0), ttl());
    let first = |queue: &Queue| queue.claim(&request).map(|t| t.key().id().to_string());
    for at in [
        1,
        CLAIM_HEAD_PROBE - 1,
        CLAIM_HEAD_PROBE,
        CLAIM_HEAD_PROBE + 1,
        CLAIM_HEAD_PROBE + 2,
        3 * CLAIM_HEAD_PROBE,
    ] {
        let queue = head_of(at);
        assert_eq!(
            first(&queue).as_deref(),
            Some("ok-0"),
            "first claimable at {at}"
        );
        assert_eq!(
            claimed(&queue, &request, 3),
            ["ok-0", "ok-1", "ok-2"],
            "first claimable at {at}"
        );
        assert_eq!(claimed(&queue, &request, 2), ["ok-0", "ok-1"], "at {at}");
        assert!(
            queue.explain(&request, &id("ok-0")).is_claimable(),
            "at {at}"
        );
        assert_eq!(
            queue.explain(&request, &id("ok-2")).blockers,
            [ClaimBlocker::Behind { first: id("ok-0") }],
            "at {at}"
        );
        // The same tasks, once the first claimable one's slot is busy: the claim moves on
        // to the next, whichever side of the probe it lies.
        let mut busier = queue.clone();
        busier.update(&running("runs-s0", "s0")).unwrap();
        assert_eq!(claimed(&busier, &request, 3), ["ok-1", "ok-2"], "at {at}");
    }
    // Nothing claimable (nothing is due yet), with a head shorter than the probe and longer.
    let early = ClaimRequest::new(&eu, 0, t(-2_000), ttl());
    assert_eq!(early.free_capacity(), 3);
    for at in [1, CLAIM_HEAD_PROBE, 3 * CLAIM_HEAD_PROBE] {
        assert!(head_of(at).claim_many(&early, 3).is_empty(), "at {at}");
    }
}
