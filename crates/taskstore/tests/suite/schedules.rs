//! Schedules through a store: stored, read, listed in keyset pages, changed and deleted
//! with a compare-and-swap on `resourceVersion`; ticked into actions by the model's
//! catch-up and overlap decisions, each tick once, also with concurrent tick loops.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Barrier;

use chrono::{DateTime, Utc};
use serde_json::json;
use taskmodel::SeededRandom;
use taskmodel::ids::{ActionId, ScheduleId, TenantId};
use taskmodel::schedule::{
    Action, ActionState, ActionStatus, Interval, OverlapPolicy, Schedule, Trigger,
};
use taskmodel::task::{ManifestMeta, OwnerKind, OwnerReference, Task, TaskManifest, TaskPhase};
use taskstore::{ActionOutcome, Store, StoreError, StoredSchedule, Ticked};

use super::fixtures::*;

fn name(text: &str) -> ScheduleId {
    ScheduleId::new(text).unwrap()
}

/// A schedule `text` firing every `every_ms` (on whole multiples since 1970), with
/// `overlap`.
fn every(text: &str, every_ms: u64, overlap: OverlapPolicy) -> Schedule {
    let trigger = Trigger::Every {
        every: Interval::from_ms(every_ms).unwrap(),
        anchor: None,
    };
    Schedule::builder(name(text), spec(text, 0), trigger)
        .overlap(overlap)
        .build()
        .unwrap()
}

fn create(store: &mut impl Store, schedule: &Schedule) -> StoredSchedule {
    let uid = uid_of(&format!("schedule/{}", schedule.name()));
    store
        .create_schedule(&tenant(), schedule, uid, at(0))
        .unwrap()
}

/// Ticks at `ms`, the action ids drawn from a source seeded with `ms` (each test ticks at
/// different times).
fn tick(store: &mut impl Store, ms: i64) -> Vec<Ticked> {
    let mut rng = SeededRandom::new(u64::try_from(ms).unwrap());
    store.tick_schedules(at(ms), 100, &mut rng).unwrap()
}

/// The due times of a tick's actions, in ms after t0.
fn dues(ticked: &Ticked) -> Vec<i64> {
    ticked
        .actions
        .iter()
        .map(|action| (action.due_at() - at(0)).num_milliseconds())
        .collect()
}

/// Fires the tenant's due actions at `ms` and completes them (no task started).
fn complete_due(store: &mut impl Store, ms: i64) -> usize {
    let fired = store.fire_due(&tenant(), at(ms), 1_000).unwrap();
    for action in &fired {
        let done = ActionOutcome::Completed(json!({}));
        store
            .finish_action(&tenant(), action.id(), done, ActionId::from_u128(0), at(ms))
            .unwrap();
    }
    fired.len()
}

/// A schedule is stored once under its name and uid, read back equal, listed in name
/// order a page at a time (its tenant's only), changed and paused only at the version read,
/// and deleted with its pending actions.
pub fn schedules_are_stored_listed_changed_and_deleted<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let nightly = every("nightly", 60_000, OverlapPolicy::Skip);
    let stored = create(&mut store, &nightly);
    assert_eq!(stored.resource_version, 1);
    assert_eq!(stored.after, at(0));
    assert_eq!(stored.next_due, Some(at(60_000)));
    assert_eq!(store.schedule(&tenant(), &name("nightly")).unwrap(), stored);
    for text in ["backup", "report", "cleanup"] {
        create(&mut store, &every(text, 1_000, OverlapPolicy::Allow));
    }
    let other = TenantId::new("other").unwrap();
    store
        .create_schedule(&other, &nightly, uid_of("other"), at(0))
        .unwrap();
    assert!(matches!(
        store.create_schedule(&tenant(), &nightly, uid_of("new"), at(0)),
        Err(StoreError::ScheduleExists { .. })
    ));
    let same_uid = every("fresh", 1_000, OverlapPolicy::Skip);
    assert!(matches!(
        store.create_schedule(&tenant(), &same_uid, stored.uid, at(0)),
        Err(StoreError::ScheduleExists { .. })
    ));

    let first = store.schedules(&tenant(), None, 3).unwrap();
    let names: Vec<&str> = first.iter().map(|s| s.schedule.name().as_str()).collect();
    assert_eq!(names, ["backup", "cleanup", "nightly"]);
    let rest = store
        .schedules(&tenant(), Some(first[2].schedule.name()), 3)
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].schedule.name().as_str(), "report");
    assert!(matches!(
        store.schedules(&tenant(), None, 0),
        Err(StoreError::OutOfRange { field: "limit", .. })
    ));

    let slower = every("nightly", 120_000, OverlapPolicy::Skip);
    let stale = store.update_schedule(&tenant(), &slower, Precondition::version(7), at(5));
    assert!(
        matches!(&stale, Err(error @ StoreError::ScheduleConflict { .. }) if error.is_retryable()),
        "{stale:?}"
    );
    let changed = store
        .update_schedule(&tenant(), &slower, Precondition::version(1), at(5))
        .unwrap();
    assert_eq!(changed.resource_version, 2);
    assert_eq!(changed.schedule, slower);
    assert_eq!((changed.uid, changed.after), (stored.uid, at(0)));
    assert_eq!(changed.next_due, Some(at(120_000)));
    let paused = store
        .pause_schedule(
            &tenant(),
            &name("nightly"),
            true,
            Precondition::version(2),
            at(6),
        )
        .unwrap();
    assert!(paused.schedule.paused());
    assert_eq!((paused.resource_version, paused.next_due), (3, None));
    let resumed = store
        .pause_schedule(
            &tenant(),
            &name("nightly"),
            false,
            Precondition::default(),
            at(7),
        )
        .unwrap();
    assert_eq!(resumed.next_due, Some(at(120_000)));
    assert_eq!(
        store.schedule(&tenant(), &name("nightly")).unwrap(),
        resumed
    );

    // A tick of "backup" leaves a pending action, which its deletion removes.
    let ticked = store
        .tick_schedules(at(1_000), 100, &mut SeededRandom::new(1))
        .unwrap();
    let backup = ticked
        .iter()
        .find(|t| t.schedule.as_str() == "backup")
        .unwrap();
    let pending = backup.actions[0].id();
    assert!(matches!(
        store.delete_schedule(
            &tenant(),
            &name("backup"),
            Precondition::default().and_uid(uid_of("x"))
        ),
        Err(StoreError::ScheduleConflict { .. })
    ));
    store
        .delete_schedule(&tenant(), &name("backup"), Precondition::default())
        .unwrap();
    assert!(matches!(
        store.schedule(&tenant(), &name("backup")),
        Err(StoreError::ScheduleNotFound { .. })
    ));
    assert!(matches!(
        store.action(&tenant(), pending),
        Err(StoreError::ActionNotFound { .. })
    ));
    assert!(matches!(
        store.delete_schedule(&tenant(), &name("backup"), Precondition::default()),
        Err(StoreError::ScheduleNotFound { .. })
    ));
    assert_eq!(
        store.schedule(&other, &name("nightly")).unwrap().uid,
        uid_of("other")
    );

    // A fire time with microseconds: what creating returns reads back equal.
    let anchor = at(0) + chrono::TimeDelta::microseconds(1_500);
    let trigger = Trigger::Every {
        every: Interval::from_ms(1_000).unwrap(),
        anchor: Some(anchor),
    };
    let odd = Schedule::builder(name("odd"), spec("odd", 0), trigger)
        .build()
        .unwrap();
    let created = create(&mut store, &odd);
    assert_eq!(created.next_due, Some(at(1)));
    assert_eq!(store.schedule(&tenant(), &name("odd")).unwrap(), created);
}

/// The tick stores one pending action per fire time that starts, due at it and labeled
/// with the schedule, moves the schedule past it, and fires nothing twice; missed fire
/// times older than the catch-up window are dropped; `remainingRuns` ends the schedule.
pub fn a_tick_fires_each_fire_time_once_within_the_catch_up_window<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let minutely = every("minutely", 60_000, OverlapPolicy::Allow);
    let twice = Schedule::builder(
        name("twice"),
        spec("twice", 0),
        Trigger::Every {
            every: Interval::from_ms(1_000).unwrap(),
            anchor: None,
        },
    )
    .remaining_runs(2)
    .overlap(OverlapPolicy::Allow)
    .build()
    .unwrap();
    create(&mut store, &minutely);
    create(&mut store, &twice);

    assert!(tick(&mut store, 999).is_empty(), "nothing is due yet");
    let ticked = tick(&mut store, 1_000);
    assert_eq!(ticked.len(), 1);
    assert_eq!(
        (ticked[0].schedule.as_str(), dues(&ticked[0])),
        ("twice", vec![1_000])
    );
    assert_eq!(ticked[0].next_due, Some(at(2_000)));
    let action = store.action(&tenant(), ticked[0].actions[0].id()).unwrap();
    assert_eq!(
        (action.label(), action.state()),
        ("twice", ActionState::Pending)
    );
    assert!(
        tick(&mut store, 1_000).is_empty(),
        "one fire time fires once"
    );

    let ticked = tick(&mut store, 5_500);
    assert_eq!(dues(&ticked[0]), [2_000]);
    assert_eq!(ticked[0].next_due, None, "no runs left");
    let stored = store.schedule(&tenant(), &name("twice")).unwrap();
    assert_eq!(stored.schedule.remaining_runs(), Some(0));
    assert_eq!(stored.resource_version, 3);

    // Four minutes late: the window (one minute, both ends inclusive) keeps the fire times
    // of the last minute only.
    let ticked = tick(&mut store, 240_000);
    assert_eq!(ticked.len(), 1);
    assert_eq!(dues(&ticked[0]), [180_000, 240_000]);
    assert!(ticked[0].dropped);
    assert_eq!(ticked[0].next_due, Some(at(300_000)));
    assert_eq!(
        store.schedule(&tenant(), &name("minutely")).unwrap().after,
        at(240_000)
    );
    assert_eq!(complete_due(&mut store, 240_000), 4);

    // A tick moves the version: a change made at the version read before it is refused.
    let minutely_now = store.schedule(&tenant(), &name("minutely")).unwrap();
    assert_eq!(minutely_now.resource_version, 2);
    assert!(matches!(
        store.pause_schedule(
            &tenant(),
            &name("minutely"),
            true,
            Precondition::version(1),
            at(0)
        ),
        Err(StoreError::ScheduleConflict { .. })
    ));
    // Paused, it is not ticked; resumed, what it missed goes through its window.
    let paused = store
        .pause_schedule(
            &tenant(),
            &name("minutely"),
            true,
            Precondition::version(2),
            at(250_000),
        )
        .unwrap();
    assert_eq!(paused.next_due, None);
    assert!(tick(&mut store, 400_000).is_empty());
    let resumed = store
        .pause_schedule(
            &tenant(),
            &name("minutely"),
            false,
            Precondition::version(3),
            at(400_000),
        )
        .unwrap();
    assert_eq!(resumed.next_due, Some(at(300_000)));
    let ticked = tick(&mut store, 400_001);
    assert_eq!(dues(&ticked[0]), [360_000]);
    assert!(ticked[0].dropped);
    assert_eq!(ticked[0].next_due, Some(at(420_000)));
}

/// A task the schedule started, owned by it (kind `Schedule`, its uid).
fn owned_task(schedule: &StoredSchedule, text: &str) -> Task {
    let owner = OwnerReference::new(
        OwnerKind::Schedule,
        schedule.schedule.name().as_str(),
        schedule.uid,
    )
    .unwrap()
    .controlling();
    let meta = ManifestMeta::new(id(text))
        .with_owner_references(vec![owner])
        .unwrap();
    let manifest = TaskManifest::new(meta, spec(text, 0));
    Task::create(manifest, tenant(), uid_of(text), at(0)).unwrap()
}

/// Each overlap policy decides a tick while the schedule's run is active (an action of it
/// pending, or a task it owns unfinished): `skip` drops it, `allow` starts it, `bufferOne`
/// keeps one and starts it at the first tick after the run ends, `replace` fails the
/// pending action and cancels the task, then starts.
pub fn overlap_policies_decide_ticks_while_a_run_is_active<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let policies = [
        ("skip", OverlapPolicy::Skip),
        ("allow", OverlapPolicy::Allow),
        ("buffer", OverlapPolicy::BufferOne),
        ("replace", OverlapPolicy::Replace),
    ];
    for (text, policy) in policies {
        create(&mut store, &every(text, 1_000, policy));
    }
    let first = tick(&mut store, 1_000);
    assert!(first.iter().all(|t| dues(t) == [1_000] && t.skipped == 0));
    // Three missed fire times while each first action is still pending.
    let second = tick(&mut store, 4_000);
    let by = |text: &str| second.iter().find(|t| t.schedule.as_str() == text).unwrap();
    assert_eq!((dues(by("skip")), by("skip").skipped), (vec![], 3));
    assert_eq!(dues(by("allow")), [2_000, 3_000, 4_000]);
    assert_eq!(
        (
            dues(by("buffer")),
            by("buffer").skipped,
            by("buffer").buffered
        ),
        (vec![], 2, Some(at(2_000)))
    );
    // Each missed fire time replaces the run before it: only the last one's action stays.
    assert_eq!(dues(by("replace")), [4_000]);
    assert_eq!(by("replace").replaced.len(), 3);
    let replaced = store.action(&tenant(), by("replace").replaced[0]).unwrap();
    assert!(matches!(replaced.status(), ActionStatus::Failed { .. }));
    // While the buffered run is active, the tick looks again just after each call.
    assert_eq!(by("buffer").next_due, Some(at(4_001)));

    // The buffered schedule's first action is dispatched: it starts a task it owns, which
    // keeps its run active after the action completes.
    let buffer = store.schedule(&tenant(), &name("buffer")).unwrap();
    let task = owned_task(&buffer, "buffer-1");
    store.create(&tenant(), &task, at(4_000)).unwrap();
    complete_due(&mut store, 4_000);
    let third = tick(&mut store, 4_500);
    let buffered = third
        .iter()
        .find(|t| t.schedule.as_str() == "buffer")
        .unwrap();
    assert!(buffered.actions.is_empty() && buffered.buffered.is_some());
    store
        .cancel(
            &tenant(),
            &id("buffer-1"),
            Precondition::default(),
            at(4_600),
        )
        .unwrap();
    let fourth = tick(&mut store, 4_700);
    let buffered = fourth
        .iter()
        .find(|t| t.schedule.as_str() == "buffer")
        .unwrap();
    assert_eq!(
        dues(buffered),
        [4_700],
        "the buffered tick starts once the run ended"
    );
    assert_eq!(
        (buffered.buffered, buffered.next_due),
        (None, Some(at(5_000)))
    );

    // `replace` cancels the unfinished task its schedule owns.
    let replace = store.schedule(&tenant(), &name("replace")).unwrap();
    store
        .create(&tenant(), &owned_task(&replace, "replace-1"), at(4_800))
        .unwrap();
    complete_due(&mut store, 4_800);
    let fifth = tick(&mut store, 5_000);
    let replaced = fifth
        .iter()
        .find(|t| t.schedule.as_str() == "replace")
        .unwrap();
    assert_eq!(replaced.canceled, [id("replace-1")]);
    assert_eq!(dues(replaced), [5_000]);
    let canceled = store.get(&tenant(), &id("replace-1")).unwrap();
    assert_eq!(canceled.task.phase(), TaskPhase::Canceled);
}

/// Tick loops on their own connections, each ticking the same clock forward, store every
/// fire time of every schedule exactly once between them.
pub fn concurrent_tick_loops_fire_each_schedule_tick_once<B: Backend>(backend: &B) {
    const SCHEDULES: usize = 24;
    const LOOPS: usize = 6;
    const SECONDS: i64 = 8;
    let mut store = backend.open();
    for n in 0..SCHEDULES {
        create(
            &mut store,
            &every(&format!("s{n:02}"), 1_000, OverlapPolicy::Allow),
        );
    }
    let barrier = Barrier::new(LOOPS);
    let fired: Vec<Vec<(String, DateTime<Utc>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..LOOPS)
            .map(|n| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let mut store = backend.open();
                    let mut rng = SeededRandom::new(u64::try_from(n).unwrap() + 100);
                    barrier.wait();
                    let mut mine = Vec::new();
                    for second in 1..=SECONDS {
                        loop {
                            let now = at(second * 1_000);
                            let batch =
                                retrying(|| store.tick_schedules(now, 5, &mut rng)).unwrap();
                            if batch.is_empty() {
                                break;
                            }
                            for ticked in batch {
                                let label = ticked.schedule.as_str().to_owned();
                                mine.extend(
                                    ticked.actions.iter().map(|a| (label.clone(), a.due_at())),
                                );
                            }
                        }
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let all: Vec<(String, DateTime<Utc>)> = fired.concat();
    let unique: BTreeSet<_> = all.iter().cloned().collect();
    assert_eq!(all.len(), unique.len(), "a tick fired twice");
    let expected: BTreeSet<_> = (0..SCHEDULES)
        .flat_map(|n| (1..=SECONDS).map(move |s| (format!("s{n:02}"), at(s * 1_000))))
        .collect();
    assert_eq!(unique, expected);
    let stored: BTreeSet<_> = store
        .fire_due(&tenant(), at(SECONDS * 1_000), 1_000)
        .unwrap()
        .iter()
        .map(|action: &Action| (action.label().to_owned(), action.due_at()))
        .collect();
    assert_eq!(stored, expected);
}

/// Tick loops racing writers that pause and resume the same schedules, each writer at the
/// version it read: no write is lost (each schedule's version is one more than the writes
/// that succeeded on it, ticks included) and no tick is stored twice.
pub fn ticks_racing_pauses_lose_no_write<B: Backend>(backend: &B) {
    const SCHEDULES: usize = 6;
    const TICKERS: u64 = 3;
    const WRITERS: usize = 2;
    const ROUNDS: usize = 20;
    let mut store = backend.open();
    let names: Vec<String> = (0..SCHEDULES).map(|n| format!("p{n}")).collect();
    for text in &names {
        create(&mut store, &every(text, 1_000, OverlapPolicy::Allow));
    }
    let barrier = Barrier::new(usize::try_from(TICKERS).unwrap() + WRITERS);
    // Per thread: the writes it made on each schedule, and the ticks it stored.
    type Writes = (BTreeMap<String, u64>, Vec<(String, DateTime<Utc>)>);
    let results: Vec<Writes> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for n in 0..TICKERS {
            let barrier = &barrier;
            handles.push(scope.spawn(move || {
                let mut store = backend.open();
                let mut rng = SeededRandom::new(n + 500);
                barrier.wait();
                let (mut writes, mut ticks) = (BTreeMap::new(), Vec::new());
                for second in 1..=i64::try_from(ROUNDS).unwrap() {
                    let now = at(second * 1_000);
                    let batch = retrying(|| store.tick_schedules(now, 100, &mut rng)).unwrap();
                    for ticked in batch {
                        let label = ticked.schedule.as_str().to_owned();
                        *writes.entry(label.clone()).or_insert(0) += 1;
                        ticks.extend(ticked.actions.iter().map(|a| (label.clone(), a.due_at())));
                    }
                }
                (writes, ticks)
            }));
        }
        for _ in 0..WRITERS {
            let (barrier, names) = (&barrier, &names);
            handles.push(scope.spawn(move || {
                let mut store = backend.open();
                barrier.wait();
                let mut writes = BTreeMap::new();
                for round in 0..ROUNDS {
                    let text = &names[round % SCHEDULES];
                    let paused = round % 4 < 2;
                    retrying(|| {
                        let read = store.schedule(&tenant(), &name(text))?;
                        let expected = Precondition::version(read.resource_version);
                        store.pause_schedule(&tenant(), &name(text), paused, expected, at(0))
                    })
                    .unwrap();
                    *writes.entry(text.clone()).or_insert(0) += 1;
                }
                (writes, Vec::new())
            }));
        }
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut writes: BTreeMap<String, u64> = BTreeMap::new();
    let mut ticks = Vec::new();
    for (mine, stored) in results {
        for (text, count) in mine {
            *writes.entry(text).or_insert(0) += count;
        }
        ticks.extend(stored);
    }
    let unique: BTreeSet<_> = ticks.iter().cloned().collect();
    assert_eq!(ticks.len(), unique.len(), "a tick stored twice");
    for text in &names {
        let stored = store.schedule(&tenant(), &name(text)).unwrap();
        let made = writes.get(text).copied().unwrap_or(0);
        assert_eq!(stored.resource_version, made + 1, "schedule {text}");
    }
}

/// Garbage collection sees a stored schedule as the live owner of the tasks it started:
/// they keep their owner reference, and its history limits decide which finished ones go.
pub fn gc_keeps_a_schedules_tasks_by_its_history_limits<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let trigger = Trigger::Every {
        every: Interval::from_ms(1_000).unwrap(),
        anchor: None,
    };
    let kept_one = Schedule::builder(name("hist"), spec("hist", 0), trigger)
        .successful_history_limit(1)
        .build()
        .unwrap();
    let stored = create(&mut store, &kept_one);
    for (n, text) in ["hist-1", "hist-2"].into_iter().enumerate() {
        let ms = 100 * (i64::try_from(n).unwrap() + 1);
        store
            .create(&tenant(), &owned_task(&stored, text), at(ms))
            .unwrap();
        let lease = u64::try_from(n).unwrap() + 1;
        let claimed = store
            .claim(&tenant(), &request("r", lease, at(ms + 1)), at(ms + 1))
            .unwrap()
            .unwrap();
        assert_eq!(claimed.task.id(), &id(text));
        succeed(&mut store, text, lease, at(ms + 2), at(ms + 3));
    }
    let collected = store.collect_garbage(&tenant(), at(10_000), 100).unwrap();
    assert!(collected.complete);
    assert_eq!(collected.deleted_tasks, [id("hist-1")]);
    assert!(collected.released.is_empty(), "{:?}", collected.released);
    let kept = store.get(&tenant(), &id("hist-2")).unwrap();
    assert_eq!(kept.task.metadata().controller().unwrap().uid(), stored.uid);
    assert_eq!(store.schedule(&tenant(), &name("hist")).unwrap(), stored);
}
