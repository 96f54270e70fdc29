//! `Task::apply` and the generation rules through the public API: what each change moves
//! (version, generation, conditions), which changes an attempt in flight allows
//! (`docs/attempts.md`, "Changing the spec"), what an attempt of an older generation may
//! decide, and a property test of random applies among lifecycle calls.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{ErrorKind, RunnerId, TaskId, TenantId, Uid};
use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
use model_selector::Labels;
use model_task::lifecycle::{ConditionStatus, ConditionType};
use model_task::task::{ApplyChanges, Precondition};
use model_task::{
    Annotations, Applied, AttemptOutcome, AttemptResult, LeaseId, ManifestMeta, OwnerKind,
    OwnerReference, RestartDecision, SubprocessMode, Task, TaskEnv, TaskError, TaskKind,
    TaskManifest, TaskPhase, TaskRun, TaskSpec,
};
use proptest::prelude::*;

fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

const UID: u128 = 42;

fn name() -> TaskId {
    TaskId::new("job").unwrap()
}

/// A spec in `slot` with `timeout_ms`, restarting on failure after 1 s.
fn spec(slot: &str, timeout_ms: u64) -> TaskSpec {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    TaskSpec::builder(slot, kind, timeout_ms)
        .restart(RestartPolicy::OnFailure)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 1_000, 1.0).unwrap())
        .build()
        .unwrap()
}

fn manifest(spec: TaskSpec) -> TaskManifest {
    TaskManifest::named(name(), spec)
}

fn task() -> Task {
    Task::create(
        manifest(spec("lane", 1_000)),
        TenantId::new("infra").unwrap(),
        Uid::from_u128(UID),
        t(0),
    )
    .unwrap()
}

fn labels(team: &str) -> Labels {
    Labels::from_pairs([("team", team)]).unwrap()
}

fn rng() -> SeededRandom {
    SeededRandom::new(1)
}

/// Leases attempt `n` of `task` at `now` (after `previous`) and starts it.
fn run(task: &mut Task, previous: Option<&TaskRun>, now: DateTime<Utc>) -> TaskRun {
    let n = task.status().attempt() + 1;
    let lease = LeaseId::new(u64::from(n));
    let runner = RunnerId::new("r-1").unwrap();
    let mut run = task
        .lease_attempt(
            None,
            previous,
            runner,
            lease,
            now + TimeDelta::seconds(60),
            now,
        )
        .unwrap();
    assert_eq!(
        task.start_attempt(&mut run, lease, now).unwrap(),
        Applied::Changed(())
    );
    run
}

/// Applies a new spec (a longer timeout) at `now`; the generation goes up.
fn change_spec(task: &mut Task, now: DateTime<Utc>) {
    let generation = task.metadata().generation();
    let changes = task
        .apply(manifest(spec("lane", 9_000)), None, now)
        .unwrap();
    assert!(changes.spec);
    assert_eq!(task.metadata().generation(), generation + 1);
}

fn condition(task: &Task, kind: ConditionType) -> (ConditionStatus, DateTime<Utc>) {
    let condition = task.status().condition(kind);
    (condition.status(), condition.last_transition_time())
}

#[test]
fn metadata_changes_move_the_version_and_never_the_generation() {
    let mut task = task();
    let owner = OwnerReference::new(OwnerKind::Schedule, "nightly", Uid::from_u128(7))
        .unwrap()
        .controlling();
    let notes = Annotations::from_pairs([("example.com/note", "any text")]).unwrap();
    let steps = [
        (ManifestMeta::new(name()).with_labels(labels("a")), "labels"),
        (
            ManifestMeta::new(name())
                .with_labels(labels("a"))
                .with_annotations(notes.clone()),
            "annotations",
        ),
        (
            ManifestMeta::new(name())
                .with_labels(labels("b"))
                .with_annotations(notes)
                .with_owner_references(vec![owner])
                .unwrap(),
            "labels and owners",
        ),
    ];
    for (version, (meta, what)) in (2..).zip(steps) {
        let before = task.clone();
        let changes = task
            .apply(
                TaskManifest::new(meta, spec("lane", 1_000)),
                Some(version - 1),
                t(version as i64),
            )
            .unwrap();
        assert!(changes.is_metadata_only(), "{what}: {changes:?}");
        assert_eq!(task.resource_version(), version, "{what}");
        assert_eq!(task.metadata().generation(), 1, "{what}");
        assert_eq!(
            task.status(),
            before.status(),
            "{what}: the status is the same"
        );
    }
    assert_eq!(task.metadata().labels(), &labels("b"));
    assert_eq!(
        task.metadata().controller().map(OwnerReference::name),
        Some("nightly")
    );
    assert_eq!(task.manifest().metadata().labels(), &labels("b"));
}

#[test]
fn the_same_manifest_again_changes_nothing_at_all() {
    let mut task = task();
    assert!(
        task.apply(manifest(spec("lane", 5_000)), None, t(1))
            .unwrap()
            .spec
    );
    let before = task.clone();
    let changes = task.apply(task.manifest(), None, t(9)).unwrap();
    assert_eq!(changes, ApplyChanges::default());
    assert!(!changes.is_changed());
    assert_eq!(task, before, "version and updatedAt included");
}

#[test]
fn a_spec_change_moves_the_generation_and_the_scheduled_condition() {
    let mut task = task();
    let mut first = run(&mut task, None, t(1));
    assert_eq!(
        condition(&task, ConditionType::Scheduled),
        (ConditionStatus::True, t(1))
    );
    let failed = AttemptResult::new(AttemptOutcome::Failed);
    let decision = task.report_result(&mut first, LeaseId::new(1), failed, &mut rng(), t(2));
    assert!(decision.unwrap().is_changed());
    assert_eq!(task.status().next_attempt_at(), Some(t(3)));
    let version = task.resource_version();

    // Waiting for a restart due at t(3), the spec changes at t(2): a new generation, due
    // at once, and Scheduled flips to False.
    let changes = task
        .apply(manifest(spec("lane", 2_000)), Some(version), t(2))
        .unwrap();
    assert!(changes.spec && !changes.labels);
    assert_eq!(
        (task.resource_version(), task.metadata().generation()),
        (version + 1, 2)
    );
    assert_eq!(task.status().observed_generation(), 1);
    assert_eq!(task.status().queued_at(), Some(t(2)));
    assert_eq!(task.status().next_attempt_at(), Some(t(2)));
    assert_eq!(
        condition(&task, ConditionType::Scheduled),
        (ConditionStatus::False, t(2))
    );
    assert_eq!(
        task.status().condition(ConditionType::Scheduled).reason(),
        "SpecChanged"
    );
    // Running stayed False: its time did not move.
    assert_eq!(
        condition(&task, ConditionType::Running),
        (ConditionStatus::False, t(2))
    );

    // The next attempt runs generation 2, with a retry budget of its own.
    let second = run(&mut task, Some(&first), t(2));
    assert_eq!(second.generation(), 2);
    assert_eq!(first.generation(), 1);
    assert_eq!(task.status().observed_generation(), 2);
    assert_eq!(task.status().consecutive_failures(), 0);
    assert_eq!(
        condition(&task, ConditionType::Scheduled),
        (ConditionStatus::True, t(2))
    );
    // A later due restart is not moved later by a spec change.
    let serialized = serde_json::to_string(&task).unwrap();
    assert_eq!(serde_json::from_str::<Task>(&serialized).unwrap(), task);
}

#[test]
fn an_attempt_of_an_older_generation_is_recorded_but_decides_nothing_for_the_newer() {
    for outcome in [
        AttemptOutcome::Succeeded,
        AttemptOutcome::Failed,
        AttemptOutcome::Timeout,
    ] {
        let mut task = task();
        let mut old = run(&mut task, None, t(1));
        // The spec changes while attempt 1 runs generation 1: allowed, but for the slot.
        change_spec(&mut task, t(2));
        assert_eq!(task.phase(), TaskPhase::Running);
        assert_eq!(task.metadata().generation(), 2);
        let result = AttemptResult::new(outcome).with_exit_code(3);
        let decision = task
            .report_result(&mut old, LeaseId::new(1), result, &mut rng(), t(4))
            .unwrap();
        assert_eq!(
            decision,
            Applied::Changed(RestartDecision::Restart {
                retry: 0,
                delay_ms: 0,
                at: t(4)
            }),
            "{outcome:?}"
        );
        // The attempt keeps its result, the task records it, and waits for generation 2.
        assert_eq!(old.exit_code(), Some(3));
        assert_eq!(task.phase(), TaskPhase::Pending);
        assert_eq!(task.status().outcome(), Some(outcome));
        assert_eq!(task.status().queued_at(), Some(t(4)));
        let next = run(&mut task, Some(&old), t(4));
        assert_eq!((next.attempt(), next.generation()), (2, 2));
        assert_eq!(task.status().consecutive_failures(), 0);
    }
}

#[test]
fn a_canceled_or_expired_attempt_of_an_older_generation() {
    // Cancel intent wins whatever the generation.
    let mut task = task();
    let mut old = run(&mut task, None, t(1));
    change_spec(&mut task, t(2));
    assert!(
        task.cancel_attempt(None, &mut old, t(3))
            .unwrap()
            .is_changed()
    );
    let canceled = AttemptResult::new(AttemptOutcome::Canceled);
    let decision = task.report_result(&mut old, LeaseId::new(1), canceled, &mut rng(), t(4));
    assert!(decision.unwrap().is_changed());
    assert_eq!(task.phase(), TaskPhase::Canceled);

    // An expired attempt of generation 1 requeues the task for generation 2.
    let mut task = self::task();
    let mut old = run(&mut task, None, t(1));
    change_spec(&mut task, t(2));
    let decision = task.expire_attempt(&mut old, &mut rng(), t(61)).unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Restart {
            retry: 0,
            delay_ms: 0,
            at: t(61)
        })
    );
    assert_eq!(task.status().outcome(), Some(AttemptOutcome::Failed));
}

#[test]
fn while_an_attempt_runs_every_field_but_the_slot_may_change() {
    let mut task = task();
    let _attempt = run(&mut task, None, t(1));
    let before = task.clone();
    let err = task
        .apply(manifest(spec("other-lane", 1_000)), None, t(2))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            TaskError::ApplyRefused {
                phase: TaskPhase::Running,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.path(), Some("spec.slot"));
    assert_eq!(err.kind(), ErrorKind::InvalidTransition);
    assert_eq!(task, before, "a refused apply changes nothing");
    let mut other = spec("lane", 3_000).clone();
    other = TaskSpec::builder("lane", other.kind().clone(), 3_000)
        .restart(RestartPolicy::always())
        .priority(7)
        .runner_selector("zone=eu".parse().unwrap())
        .build()
        .unwrap();
    assert!(task.apply(manifest(other), None, t(2)).unwrap().spec);
}

#[test]
fn a_task_that_ended_keeps_its_spec_but_not_its_labels() {
    let mut task = task();
    task.cancel(None, t(1)).unwrap();
    let before = task.clone();
    let err = task
        .apply(manifest(spec("lane", 2_000)), None, t(2))
        .unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::ApplyRefused {
                phase: TaskPhase::Canceled,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.path(), Some("spec"));
    assert_eq!(task, before);
    let relabeled = TaskManifest::new(
        ManifestMeta::new(name()).with_labels(labels("x")),
        spec("lane", 1_000),
    );
    assert!(task.apply(relabeled, None, t(2)).unwrap().labels);
    assert_eq!(task.phase(), TaskPhase::Canceled);
    assert_eq!(task.status().finished_at(), Some(t(1)));
}

#[test]
fn guarded_writes_check_the_uid_then_the_version() {
    let mut task = task();
    let before = task.clone();
    let other = Uid::from_u128(UID + 1);
    let err = task
        .apply(
            manifest(spec("lane", 2_000)),
            Precondition::version(1).and_uid(other),
            t(1),
        )
        .unwrap_err();
    assert!(matches!(err, TaskError::UidMismatch { .. }), "{err:?}");
    assert_eq!(err.kind(), ErrorKind::Gone);
    let err = task
        .apply(
            manifest(spec("lane", 2_000)),
            Precondition::version(2).and_uid(Uid::from_u128(UID)),
            t(1),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::Conflict {
                expected: 2,
                actual: 1
            }
        ),
        "{err:?}"
    );
    // The lifecycle calls take the same guard.
    assert!(matches!(
        task.begin_attempt(Uid::from_u128(UID + 1), t(1)),
        Err(TaskError::UidMismatch { .. })
    ));
    assert!(matches!(
        task.cancel(Precondition::default().and_uid(other), t(1)),
        Err(TaskError::UidMismatch { .. })
    ));
    assert_eq!(task, before);
    assert!(
        task.begin_attempt(Precondition::version(1).and_uid(Uid::from_u128(UID)), t(1))
            .is_ok()
    );
}

#[test]
fn a_manifest_applies_to_its_own_task_and_never_makes_it_its_own_owner() {
    let mut task = task();
    let other = TaskManifest::named(TaskId::new("other").unwrap(), spec("lane", 1_000));
    let before = task.clone();
    let err = task.apply(other, None, t(1)).unwrap_err();
    assert!(
        matches!(&err, TaskError::NameMismatch { task, manifest } if task.as_str() == "job" && manifest.as_str() == "other"),
        "{err:?}"
    );
    assert_eq!(err.path(), Some("metadata.name"));
    assert_eq!(err.kind(), model_ids::ErrorKind::Invalid);
    assert_eq!(task, before);
    // A flow reference with the task's own uid is the task itself.
    let me = OwnerReference::new(OwnerKind::Flow, "etl", Uid::from_u128(UID)).unwrap();
    let meta = ManifestMeta::new(name())
        .with_owner_references(vec![me])
        .unwrap();
    let err = task
        .apply(
            TaskManifest::new(meta.clone(), spec("lane", 1_000)),
            None,
            t(1),
        )
        .unwrap_err();
    assert_eq!(err.path(), Some("metadata.ownerReferences[0]"));
    let err = Task::create(
        TaskManifest::new(meta, spec("lane", 1_000)),
        TenantId::new("infra").unwrap(),
        Uid::from_u128(UID),
        t(0),
    )
    .unwrap_err();
    assert_eq!(err.path(), Some("metadata.ownerReferences[0]"));
}

#[test]
fn a_created_task_starts_at_generation_one_with_its_conditions() {
    let task = task();
    assert_eq!(task.metadata().generation(), 1);
    assert_eq!(task.status().observed_generation(), 0);
    let statuses = task
        .status()
        .conditions()
        .map(|c| (c.kind(), c.status(), c.last_transition_time()));
    assert_eq!(
        statuses,
        [
            (ConditionType::Scheduled, ConditionStatus::False, t(0)),
            (ConditionType::Running, ConditionStatus::False, t(0)),
            (ConditionType::Succeeded, ConditionStatus::Unknown, t(0)),
        ]
    );
    assert_eq!(task.manifest(), manifest(spec("lane", 1_000)));
}

// ---- The generation rules under random applies among lifecycle calls.

#[derive(Debug, Clone)]
enum Op {
    /// Apply a manifest with this timeout (the spec), this team label (0: none) and this
    /// note annotation (0: none).
    Apply {
        timeout_ms: u64,
        team: u8,
        note: u8,
    },
    Begin,
    End(AttemptOutcome),
    Cancel,
}

fn outcome() -> impl Strategy<Value = AttemptOutcome> {
    prop::sample::select(AttemptOutcome::ALL.to_vec())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (prop::sample::select(vec![1_000u64, 2_000, 3_000]), 0u8..3, 0u8..3)
            .prop_map(|(timeout_ms, team, note)| Op::Apply { timeout_ms, team, note }),
        3 => Just(Op::Begin),
        3 => outcome().prop_map(Op::End),
        1 => Just(Op::Cancel),
    ]
}

proptest! {
    #[test]
    fn generations_and_versions_follow_what_changed(ops in prop::collection::vec(op(), 0..40), always in any::<bool>()) {
        let restart = if always { RestartPolicy::always() } else { RestartPolicy::OnFailure };
        let spec_of = |timeout_ms| {
            let base = spec("lane", timeout_ms);
            TaskSpec::builder("lane", base.kind().clone(), timeout_ms)
                .restart(restart)
                .backoff(*base.backoff())
                .build()
                .unwrap()
        };
        let mut task = Task::create(manifest(spec_of(1_000)), TenantId::new("infra").unwrap(), Uid::from_u128(UID), t(0)).unwrap();
        let mut now = t(0);
        let mut rng = rng();
        for op in ops {
            now += TimeDelta::seconds(1);
            if let Some(due) = task.status().next_attempt_at() { now = now.max(due); }
            let before = task.clone();
            let changed = match op {
                Op::Apply { timeout_ms, team, note } => {
                    let notes = if note == 0 { Annotations::default() } else { Annotations::from_pairs([("example.com/note", note.to_string())]).unwrap() };
                    let meta = ManifestMeta::new(name())
                        .with_labels(if team == 0 { Labels::new() } else { labels(&team.to_string()) })
                        .with_annotations(notes);
                    let manifest = TaskManifest::new(meta, spec_of(timeout_ms));
                    match task.apply(manifest.clone(), Some(task.resource_version()), now) {
                        Ok(changes) => {
                            // The same manifest again changes nothing, the version neither.
                            let once = task.clone();
                            let again = task.apply(manifest, Some(task.resource_version()), now + TimeDelta::seconds(1));
                            prop_assert_eq!(again.ok(), Some(ApplyChanges::default()));
                            prop_assert_eq!(&task, &once);
                            // The generation moves with the spec only, by one.
                            let spec_changed = before.spec() != task.spec();
                            prop_assert_eq!(changes.spec, spec_changed);
                            prop_assert_eq!(task.metadata().generation(), before.metadata().generation() + u64::from(spec_changed));
                            prop_assert_eq!(changes.labels, before.metadata().labels() != task.metadata().labels());
                            prop_assert_eq!(changes.annotations, before.metadata().annotations() != task.metadata().annotations());
                            if !changes.spec {
                                prop_assert_eq!(task.status(), before.status());
                            }
                            changes.is_changed()
                        }
                        Err(TaskError::ApplyRefused { .. }) => false,
                        Err(other) => return Err(TestCaseError::fail(format!("{other:?}"))),
                    }
                }
                Op::Begin => task.begin_attempt(None, now).is_ok(),
                Op::End(outcome) => task.end_attempt(None, AttemptResult::new(outcome), &mut rng, now).is_ok(),
                Op::Cancel => task.cancel(None, now).is_ok(),
            };
            // Exactly one version per change; none for a call that changed nothing.
            prop_assert_eq!(task.resource_version(), before.resource_version() + u64::from(changed));
            if !changed {
                prop_assert_eq!(&task, &before);
            }
            if !matches!(op, Op::Apply { .. }) {
                prop_assert_eq!(task.metadata().generation(), before.metadata().generation());
            }
            prop_assert!(task.status().observed_generation() <= task.metadata().generation());
            prop_assert!(task.metadata().generation() <= task.resource_version());
            // A transition time moves only when its status flips, and then to updatedAt.
            for (old, new) in before.status().conditions().iter().zip(task.status().conditions()) {
                if old.status() == new.status() {
                    prop_assert_eq!(old.last_transition_time(), new.last_transition_time());
                } else {
                    prop_assert_eq!(new.last_transition_time(), task.metadata().updated_at());
                }
            }
            // Scheduled says whether the current generation had an attempt.
            let scheduled = task.status().condition(ConditionType::Scheduled).status() == ConditionStatus::True;
            prop_assert_eq!(scheduled, task.status().observed_generation() == task.metadata().generation());
            let back: Task = serde_json::from_str(&serde_json::to_string(&task).unwrap()).unwrap();
            prop_assert_eq!(&back, &task);
        }
    }
}
