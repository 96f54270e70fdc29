//! Backends, tasks and times the tests share.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use taskmodel::SeededRandom;
use taskmodel::fleet::KindSet;
use taskmodel::ids::{RunnerId, TaskId, TenantId, Uid};
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy};
use taskmodel::selector::{LabelSelector, Labels};
pub use taskmodel::task::Precondition;
use taskmodel::task::{
    AttemptOutcome, AttemptResult, LeaseId, SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest,
    TaskSpec,
};
use taskstore::{ClaimRequest, Store, StoreError};

/// A database for one test: each call to `open` is a new connection to it.
pub trait Backend: Sync {
    /// The engine.
    type Store: Store + Send;
    /// A new connection.
    fn open(&self) -> Self::Store;
}

/// 2025-01-01T00:00:00Z.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

/// `t0` plus `ms` milliseconds.
pub fn at(ms: i64) -> DateTime<Utc> {
    t0() + TimeDelta::milliseconds(ms)
}

pub fn tenant() -> TenantId {
    TenantId::new("acme").unwrap()
}

pub fn id(name: &str) -> TaskId {
    TaskId::new(name).unwrap()
}

pub fn runner(name: &str) -> RunnerId {
    RunnerId::new(name).unwrap()
}

/// A subprocess kind every runner of the tests runs.
pub fn kind() -> TaskKind {
    TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap()
}

/// A spec in `slot`: restart on failure one second later, at most `max_retries` retries.
pub fn spec(slot: &str, max_retries: u32) -> TaskSpec {
    TaskSpec::builder(slot, kind(), 60_000)
        .restart(RestartPolicy::OnFailure)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 1_000, 1.0).unwrap())
        .max_retries(max_retries)
        .build()
        .unwrap()
}

/// A spec with its own admission policy, runner selector and labels.
pub fn spec_with(
    slot: &str,
    admission: AdmissionPolicy,
    selector: &str,
    labels: &[(&str, &str)],
) -> TaskSpec {
    TaskSpec::builder(slot, kind(), 60_000)
        .admission(admission)
        .runner_selector(selector.parse::<LabelSelector>().unwrap())
        .labels(Labels::from_pairs(labels.iter().copied()).unwrap())
        .build()
        .unwrap()
}

/// A new task `name` in its own slot (named after it), created at `created`.
pub fn task(name: &str, created: DateTime<Utc>) -> Task {
    new_task(&tenant(), id(name), spec(name, 0), created)
}

/// A new task of `tenant` with `spec`, created at `created`, its uid drawn from its tenant,
/// id and creation time (the same in every run).
pub fn new_task(tenant: &TenantId, id: TaskId, spec: TaskSpec, created: DateTime<Utc>) -> Task {
    let uid = uid_of(&format!(
        "{tenant}/{id}@{}",
        created.timestamp_nanos_opt().unwrap()
    ));
    Task::create(TaskManifest::named(id, spec), tenant.clone(), uid, created).unwrap()
}

/// A uid drawn from `text` (two FNV-1a hashes of it).
pub fn uid_of(text: &str) -> Uid {
    let fnv = |seed: u64| {
        text.bytes().fold(seed, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    Uid::from_u128((u128::from(fnv(0xcbf2_9ce4_8422_2325)) << 64) | u128::from(fnv(1)))
}

/// Creates tasks, each in its own transaction.
pub fn create_all(store: &mut impl Store, tasks: &[Task]) {
    for task in tasks {
        store
            .create(&tenant(), task, task.metadata().created_at())
            .unwrap();
    }
}

/// Starts the attempt of task `name` under `lease` at `started`, and reports it succeeded at
/// `reported` (backoff seed 1).
pub fn succeed(
    store: &mut impl Store,
    name: &str,
    lease: u64,
    started: DateTime<Utc>,
    reported: DateTime<Utc>,
) {
    store
        .start(&tenant(), &id(name), LeaseId::new(lease), started)
        .unwrap();
    let done = AttemptResult::new(AttemptOutcome::Succeeded);
    store
        .report(
            &tenant(),
            &id(name),
            LeaseId::new(lease),
            done,
            &mut SeededRandom::new(1),
            reported,
        )
        .unwrap();
}

/// Claims the head of the queue as `runner` under `lease` at `ms` and starts it (at
/// `ms + 1`); returns its task id.
pub fn start_next(store: &mut impl Store, runner: &str, lease: u64, ms: i64) -> String {
    let claimed = store
        .claim(&tenant(), &request(runner, lease, at(ms)), at(ms))
        .unwrap()
        .expect("a job's task is queued");
    let task = claimed.task.id().clone();
    store
        .start(&tenant(), &task, LeaseId::new(lease), at(ms + 1))
        .unwrap();
    task.as_str().to_owned()
}

/// A claim by `name` (any labels, every kind) under `lease`, expiring 30 s after `now`.
pub fn request(name: &str, lease: u64, now: DateTime<Utc>) -> ClaimRequest {
    ClaimRequest::new(
        runner(name),
        Labels::new(),
        KindSet::ALL,
        LeaseId::new(lease),
        now + TimeDelta::seconds(30),
    )
}

/// Retries `f` while it fails with a retryable error (a lost race).
pub fn retrying<T>(mut f: impl FnMut() -> Result<T, StoreError>) -> Result<T, StoreError> {
    loop {
        match f() {
            Err(error) if error.is_retryable() => std::thread::yield_now(),
            other => return other,
        }
    }
}
