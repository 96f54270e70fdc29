//! The store contract of `docs/attempts.md`: a store that fences every write on the task's
//! `resourceVersion` alone never loses an acknowledged change. Several actors (a control
//! plane that leases, cancels and expires, and the runner) read the task and its current
//! attempt, decide, and compare-and-swap on the version; every call that answers `Changed`
//! bumps the version by exactly one, and an acknowledged cancel is never lost.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers fail loudly"
)]

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{RunnerId, TaskId, TenantId, Uid};
use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
use model_task::{
    AttemptOutcome, AttemptResult, AttemptState, LeaseId, SubprocessMode, Task, TaskEnv, TaskError,
    TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec,
};
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

fn task(restart: RestartPolicy, max_retries: u32) -> Task {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    let spec = TaskSpec::builder("lane", kind, 1_000)
        .restart(restart)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1, 1, 1.0).unwrap())
        .max_retries(max_retries)
        .build()
        .unwrap();
    Task::create(
        TaskManifest::named(TaskId::new("job").unwrap(), spec),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(1),
        t0(),
    )
    .unwrap()
}

/// What a store keeps: the task and its current attempt, written together.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    task: Task,
    run: Option<TaskRun>,
}

/// A store that compares only the version: a write based on a read at version `v` is
/// accepted exactly when the stored task is still at `v`.
struct Store {
    stored: Stored,
}

impl Store {
    fn compare_and_swap(&mut self, read_version: u64, next: Stored) -> bool {
        if self.stored.task.resource_version() == read_version {
            self.stored = next;
            true
        } else {
            false
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Action {
    Lease,
    Start,
    Heartbeat,
    Report(AttemptOutcome),
    CancelAttempt,
    CancelTask,
    Expire,
}

fn action() -> impl Strategy<Value = Action> {
    let outcome = prop_oneof![
        Just(AttemptOutcome::Succeeded),
        Just(AttemptOutcome::Failed),
        Just(AttemptOutcome::Timeout),
        Just(AttemptOutcome::Canceled),
    ];
    prop_oneof![
        2 => Just(Action::Lease),
        3 => Just(Action::Start),
        2 => Just(Action::Heartbeat),
        4 => outcome.prop_map(Action::Report),
        3 => Just(Action::CancelAttempt),
        1 => Just(Action::CancelTask),
        1 => Just(Action::Expire),
    ]
}

/// One step: an actor reads the store, or acts on what it read last and writes back.
#[derive(Debug, Clone, Copy)]
enum Step {
    Read {
        actor: usize,
    },
    Act {
        actor: usize,
        action: Action,
        ms: i64,
    },
}

const ACTORS: usize = 3;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..ACTORS).prop_map(|actor| Step::Read { actor }),
        (0..ACTORS, action(), 0i64..20_000).prop_map(|(actor, action, ms)| Step::Act {
            actor,
            action,
            ms
        }),
    ]
}

/// What one actor's call did: whether it answered `Changed`, after its checks.
fn act(
    stored: &mut Stored,
    action: Action,
    lease: LeaseId,
    rng: &mut SeededRandom,
    now: DateTime<Utc>,
) -> Result<bool, TaskError> {
    let Stored { task, run } = stored;
    let version = Some(task.resource_version());
    let Some(current) = run.as_mut() else {
        return match action {
            Action::Lease => {
                let expires = now + TimeDelta::seconds(30);
                let runner = RunnerId::new("r-1").unwrap();
                *run = Some(task.lease_attempt(version, None, runner, lease, expires, now)?);
                Ok(true)
            }
            Action::CancelTask => task.cancel(version, now).map(|()| true),
            _ => Ok(false),
        };
    };
    let held = current.lease();
    match action {
        Action::Lease => {
            let expires = now + TimeDelta::seconds(30);
            let runner = RunnerId::new("r-1").unwrap();
            let next = task.lease_attempt(version, Some(current), runner, lease, expires, now)?;
            *run = Some(next);
            Ok(true)
        }
        Action::Start => Ok(task.start_attempt(current, held, now)?.is_changed()),
        Action::Heartbeat => {
            let expires = now + TimeDelta::seconds(30);
            Ok(task
                .heartbeat_attempt(current, held, expires, now)?
                .is_changed())
        }
        Action::Report(outcome) => {
            let result = AttemptResult::new(outcome);
            Ok(task
                .report_result(current, held, result, rng, now)?
                .is_changed())
        }
        Action::CancelAttempt => Ok(task.cancel_attempt(version, current, now)?.is_changed()),
        Action::CancelTask => task.cancel(version, now).map(|()| true),
        Action::Expire => Ok(task.expire_attempt(current, rng, now)?.is_changed()),
    }
}

/// What one run found: calls that answered `Changed` without bumping the version by one,
/// and acknowledged cancels that a later write lost.
#[derive(Debug, Default)]
struct Findings {
    unbumped: usize,
    lost_cancels: usize,
}

fn run(restart: RestartPolicy, max_retries: u32, steps: &[Step], seed: u64) -> Findings {
    let mut store = Store {
        stored: Stored {
            task: task(restart, max_retries),
            run: None,
        },
    };
    let mut reads: Vec<Stored> = vec![store.stored.clone(); ACTORS];
    let mut rng = SeededRandom::new(seed);
    let mut now = t0();
    let mut next_lease = 1;
    let mut findings = Findings::default();
    // The attempt whose cancel was acknowledged, if any.
    let mut canceled: Option<u32> = None;
    for step in steps {
        match *step {
            Step::Read { actor } => {
                if let Some(read) = reads.get_mut(actor) {
                    *read = store.stored.clone();
                }
            }
            Step::Act { actor, action, ms } => {
                now += TimeDelta::milliseconds(ms);
                let Some(read) = reads.get(actor) else {
                    continue;
                };
                let read_version = read.task.resource_version();
                let mut mine = read.clone();
                let lease = LeaseId::new(next_lease);
                next_lease += 1;
                let Ok(true) = act(&mut mine, action, lease, &mut rng, now) else {
                    continue;
                };
                if mine.task.resource_version() != read_version + 1 {
                    findings.unbumped += 1;
                }
                let cancel_requested = matches!(action, Action::CancelAttempt)
                    && mine
                        .run
                        .as_ref()
                        .is_some_and(|r| r.state() == AttemptState::Cancelling);
                if store.compare_and_swap(read_version, mine.clone()) {
                    if cancel_requested {
                        canceled = mine.run.as_ref().map(TaskRun::attempt);
                    }
                    if let Some(read) = reads.get_mut(actor) {
                        *read = mine;
                    }
                }
            }
        }
        // An acknowledged cancel stands: the attempt can only end Canceled, and the task
        // with it.
        let Stored { task, run } = &store.stored;
        if let (Some(attempt), Some(run)) = (canceled, run)
            && run.attempt() == attempt
        {
            let ended_otherwise = run.is_final() && run.state() != AttemptState::Canceled;
            let task_otherwise = !matches!(task.phase(), TaskPhase::Running | TaskPhase::Canceled);
            if ended_otherwise || task_otherwise {
                findings.lost_cancels += 1;
                canceled = None;
            }
        }
    }
    findings
}

fn restart() -> impl Strategy<Value = RestartPolicy> {
    prop_oneof![
        Just(RestartPolicy::Never),
        Just(RestartPolicy::OnFailure),
        Just(RestartPolicy::always()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_store_fencing_on_the_version_alone_loses_no_change(
        restart in restart(),
        max_retries in 0u32..4,
        steps in prop::collection::vec(step(), 0..80),
        seed in any::<u64>(),
    ) {
        let findings = run(restart, max_retries, &steps, seed);
        prop_assert_eq!(findings.unbumped, 0, "a Changed call did not bump the version by one");
        prop_assert_eq!(findings.lost_cancels, 0, "an acknowledged cancel was lost");
    }
}

/// The race the contract exists for, spelled out: the admin's cancel and the runner's
/// result are both computed at the same version; the store takes the cancel, so it must
/// refuse the result.
#[test]
fn a_result_computed_before_an_acknowledged_cancel_is_refused() {
    let steps = [
        Step::Read { actor: 0 },
        Step::Act {
            actor: 0,
            action: Action::Lease,
            ms: 0,
        },
        Step::Act {
            actor: 0,
            action: Action::Start,
            ms: 1,
        },
        // Admin (1) and runner (2) read the same version.
        Step::Read { actor: 1 },
        Step::Read { actor: 2 },
        Step::Act {
            actor: 1,
            action: Action::CancelAttempt,
            ms: 1,
        },
        Step::Act {
            actor: 2,
            action: Action::Report(AttemptOutcome::Succeeded),
            ms: 1,
        },
    ];
    let findings = run(RestartPolicy::Never, 0, &steps, 1);
    assert_eq!(findings.lost_cancels, 0);
    assert_eq!(findings.unbumped, 0);
}
