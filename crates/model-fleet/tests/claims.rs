//! The claim holds to a plain reference walk of the queue: on random queues (priorities,
//! times, slots, kinds, admission policies, selectors of every operator, running slots) and
//! random fleets (labels, kinds, capacities, states, last-seen times), `claim`,
//! `claim_many` and `explain` give what walking the tasks in queue order and testing each
//! one gives.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test setup fails loudly"
)]

use std::cmp::Reverse;
use std::collections::BTreeSet;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_fleet::KindSet;
use model_fleet::{
    ClaimRequest, LivenessTtl, Queue, QueueEntry, QueueKey, QueuedTask, Runner, RunnerState,
};
use model_ids::{Slot, TaskId, TenantId, Uid};
use model_policy::AdmissionPolicy;
use model_selector::{LabelSelector, Labels};
use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec};
use proptest::prelude::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
}

const TTL_MS: u64 = 10_000;

const KINDS: [KindSet; 3] = [KindSet::SUBPROCESS, KindSet::CONTAINER, KindSet::WASM];

/// Selectors of every shape a queue holds: equality on one or two keys, `In`, `NotIn`,
/// `Exists`, `DoesNotExist`, and none.
const SELECTORS: [&str; 12] = [
    "",
    "zone=eu",
    "zone=us",
    "zone=eu,gpu=h100",
    "team=ml",
    "team=web,zone=us",
    "zone in (eu,ap)",
    "gpu notin (h100)",
    "gpu",
    "!gpu",
    "zone=ap,team in (ml,web)",
    "gpu in (a100,h100),zone!=us",
];

const POLICIES: [AdmissionPolicy; 3] = [
    AdmissionPolicy::DropIfRunning,
    AdmissionPolicy::Replace,
    AdmissionPolicy::Queue,
];

/// One queued task as the test knows it.
#[derive(Debug, Clone)]
struct Queued {
    key: QueueKey,
    slot: usize,
    kind: usize,
    admission: usize,
    selector: usize,
}

impl Queued {
    fn entry(&self) -> QueueEntry {
        QueueEntry::new(
            self.key.clone(),
            slot(self.slot),
            KINDS[self.kind].clone(),
            POLICIES[self.admission],
            SELECTORS[self.selector].parse().unwrap(),
        )
    }
}

fn slot(i: usize) -> Slot {
    Slot::new(format!("slot-{i}")).unwrap()
}

/// A task running in slot `i`.
fn running(i: usize) -> Task {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
    let spec = TaskSpec::builder(format!("slot-{i}"), kind, 60_000)
        .build()
        .unwrap();
    let manifest = TaskManifest::named(TaskId::new(format!("running-{i}")).unwrap(), spec);
    let tenant = TenantId::new("acme").unwrap();
    let mut task = Task::create(manifest, tenant, Uid::from_u128(i as u128), now()).unwrap();
    task.begin_attempt(None, now()).unwrap();
    task
}

prop_compose! {
    fn any_queued(id: usize)(
        priority in -2..=2i32,
        offset in -3..=3i64,
        slot in 0..4usize,
        kind in 0..3usize,
        admission in 0..3usize,
        selector in 0..SELECTORS.len(),
    ) -> Queued {
        let at = now() + TimeDelta::seconds(offset);
        let key = QueueKey::new(priority, at, TaskId::new(format!("t{id:02}")).unwrap());
        Queued { key, slot, kind, admission, selector }
    }
}

fn any_queue() -> impl Strategy<Value = Vec<Queued>> {
    (0..40usize).prop_flat_map(|n| (0..n).map(any_queued).collect::<Vec<_>>())
}

prop_compose! {
    fn any_runner()(
        zone in prop::option::of(prop::sample::select(vec!["eu", "us", "ap"])),
        gpu in prop::option::of(prop::sample::select(vec!["a100", "h100"])),
        team in prop::option::of(prop::sample::select(vec!["ml", "web"])),
        kinds in prop::collection::vec(any::<bool>(), 3),
        capacity in 1..=3u32,
        state in prop::sample::select(RunnerState::ALL.to_vec()),
        seen in prop::option::of(-20..=1i64),
    ) -> Runner {
        let labels = [("zone", zone), ("gpu", gpu), ("team", team)]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)));
        let mut set = KindSet::EMPTY;
        for (on, kind) in kinds.into_iter().zip(KINDS) {
            if on {
                set = set.union(&kind).unwrap();
            }
        }
        let json = serde_json::json!({
            "id": "r1",
            "labels": Labels::from_pairs(labels).unwrap(),
            "kinds": set,
            "maxConcurrent": capacity,
            "state": state.as_str(),
            "lastSeenAt": seen.map(|s| now() + TimeDelta::seconds(s)),
        });
        serde_json::from_value(json).unwrap()
    }
}

/// Whether the runner takes anything now, written out.
fn runner_free(runner: &Runner, active: u32) -> u32 {
    let alive = runner
        .last_seen_at()
        .is_some_and(|seen| now() < seen + TimeDelta::milliseconds(TTL_MS as i64));
    if runner.state() == RunnerState::Online && alive {
        runner.max_concurrent().saturating_sub(active)
    } else {
        0
    }
}

/// The reference: walk every task in queue order and test each rule plainly; up to `n`
/// tasks, one per slot.
fn walk(
    tasks: &[Queued],
    busy: &BTreeSet<usize>,
    runner: &Runner,
    active: u32,
    n: u32,
) -> Vec<TaskId> {
    let wanted = runner_free(runner, active).min(n) as usize;
    let mut order: Vec<&Queued> = tasks.iter().collect();
    order.sort_by_key(|t| {
        (
            Reverse(t.key.priority()),
            t.key.queued_at(),
            t.key.id().to_string(),
        )
    });
    let mut taken_slots = BTreeSet::new();
    let mut claimed = Vec::new();
    for task in order {
        if claimed.len() == wanted {
            break;
        }
        let selector: LabelSelector = SELECTORS[task.selector].parse().unwrap();
        let may = runner.kinds().contains(&KINDS[task.kind])
            && selector.matches(runner.labels())
            && task.key.queued_at() <= now()
            && !busy.contains(&task.slot)
            && !taken_slots.contains(&task.slot);
        if may {
            taken_slots.insert(task.slot);
            claimed.push(task.key.id().clone());
        }
    }
    claimed
}

fn ids(tasks: Vec<QueuedTask<'_>>) -> Vec<TaskId> {
    tasks.into_iter().map(|t| t.key().id().clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn claims_agree_with_the_reference_walk(
        tasks in any_queue(),
        busy in prop::collection::btree_set(0..4usize, 0..3),
        runners in prop::collection::vec(any_runner(), 1..4),
        active in 0..4u32,
    ) {
        let mut queue = Queue::new(TenantId::new("acme").unwrap());
        for task in &tasks {
            queue.insert(task.entry()).unwrap();
        }
        for slot in &busy {
            queue.update(&running(*slot)).unwrap();
        }
        prop_assert_eq!(queue.len(), tasks.len());
        let ttl = LivenessTtl::from_ms(TTL_MS).unwrap();
        for runner in &runners {
            let request = ClaimRequest::new(runner, active, now(), ttl);
            let first = walk(&tasks, &busy, runner, active, 1);
            prop_assert_eq!(ids(queue.claim(&request).into_iter().collect()), first.clone());
            for n in [0, 2, 3] {
                prop_assert_eq!(
                    ids(queue.claim_many(&request, n)),
                    walk(&tasks, &busy, runner, active, n)
                );
            }
            for task in &tasks {
                let id = task.key.id();
                let explained = queue.explain(&request, id);
                prop_assert_eq!(explained.is_claimable(), first.first() == Some(id), "{}", explained);
                // Alone (without the queue order), the decision is the walk's test.
                let view = queue.get(id).unwrap();
                let alone = request.check(view, queue.running(view.slot()));
                let walked = walk(std::slice::from_ref(task), &busy, runner, active, 1);
                prop_assert_eq!(alone.is_claimable(), walked.first() == Some(id), "{}", alone);
                prop_assert_eq!(request.admits(view, queue.running(view.slot())), alone.is_claimable());
            }
        }
    }
}
