//! The embedded engine loses nothing and does nothing twice when its process is killed in
//! the middle of writes: a child process (this test binary, run again) writes task after
//! task and reports each acknowledged write on a pipe; the test kills it with `SIGKILL` at
//! random moments, reopens the file, and checks every acknowledged write is there and none
//! happened twice. The child resumes from what it finds, so a write that committed but was
//! not acknowledged is repeated, and must be answered as a repeat.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use taskmodel::SeededRandom;
use taskmodel::fleet::KindSet;
use taskmodel::ids::{RunnerId, TaskId, TenantId, Uid};
use taskmodel::selector::Labels;
use taskmodel::task::attempt::LogKey;
use taskmodel::task::{
    AttemptOutcome, AttemptResult, AttemptState, LeaseId, SubprocessMode, Task, TaskEnv, TaskKind,
    TaskManifest, TaskPhase, TaskSpec,
};
use taskstore::{ClaimRequest, LogLine, LogStream, SqliteStore, Store, StoreError};

/// Set in the child: the database file it writes.
const CHILD: &str = "TASKSTORE_KILL_CHILD";
const TEST: &str = "a_killed_writer_loses_nothing_and_does_nothing_twice";
const KILLS: usize = 6;
const LINES: u64 = 3;

fn tenant() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn name(index: u64) -> TaskId {
    TaskId::new(format!("k{index:06}")).unwrap()
}

fn at(index: u64, step: i64) -> DateTime<Utc> {
    let base = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    base + TimeDelta::seconds(i64::try_from(index).unwrap() * 10 + step)
}

/// How far a task has come, as the child's steps leave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Created,
    Claimed,
    Started,
    Logged,
    Reported,
}

impl Step {
    fn parse(text: &str) -> Step {
        match text {
            "created" => Step::Created,
            "claimed" => Step::Claimed,
            "started" => Step::Started,
            "logged" => Step::Logged,
            "reported" => Step::Reported,
            other => panic!("unknown step {other}"),
        }
    }
}

/// What the store holds for task `index`: its step, checking that nothing happened twice
/// (one attempt at most, the version the steps make, the log lines once).
fn stored_step(store: &mut SqliteStore, index: u64) -> Option<Step> {
    let stored = match store.get(&tenant(), &name(index)) {
        Ok(stored) => stored,
        Err(StoreError::NotFound { .. }) => return None,
        Err(error) => panic!("task {index}: {error}"),
    };
    let (task, attempt) = (stored.task, stored.attempt);
    let lines = store.logs(&tenant(), &name(index), None, 100).unwrap();
    assert!(
        task.status().attempt() <= 1,
        "task {index} claimed twice: {task:?}"
    );
    let step = match (task.phase(), attempt.as_ref().map(|run| run.state())) {
        (TaskPhase::Pending, None) => Step::Created,
        (TaskPhase::Running, Some(AttemptState::Leased)) => Step::Claimed,
        (TaskPhase::Running, Some(AttemptState::Running)) if lines.is_empty() => Step::Started,
        (TaskPhase::Running, Some(AttemptState::Running)) => Step::Logged,
        (TaskPhase::Succeeded, Some(AttemptState::Succeeded)) => Step::Reported,
        other => panic!("task {index} in an impossible state {other:?}"),
    };
    let version = match step {
        Step::Created => 1,
        Step::Claimed => 2,
        Step::Started | Step::Logged => 3,
        Step::Reported => 4,
    };
    assert_eq!(
        task.resource_version(),
        version,
        "task {index} at {step:?} changed more than once"
    );
    let keys: Vec<LogKey> = lines.iter().map(|line| line.key).collect();
    let expected: Vec<LogKey> = if step >= Step::Logged {
        (0..LINES).map(|n| LogKey::new(1, n)).collect()
    } else {
        Vec::new()
    };
    assert_eq!(keys, expected, "task {index}: log lines lost or repeated");
    Some(step)
}

/// The child: from what the file holds, takes each task through its steps, one
/// transaction each, and acknowledges each step after its commit.
fn child(path: &Path) {
    let mut store = SqliteStore::open(path).unwrap();
    let stdout = std::io::stdout();
    let ack = |index: u64, step: &str| {
        let mut out = stdout.lock();
        writeln!(out, "ack {index} {step}").unwrap();
        out.flush().unwrap();
    };
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let lease = |index: u64| LeaseId::new(index + 1);
    for index in 0.. {
        let mut step = stored_step(&mut store, index);
        while step != Some(Step::Reported) {
            let t = &name(index);
            step = Some(match step {
                None => {
                    let spec = TaskSpec::builder(format!("s{index}"), kind.clone(), 60_000)
                        .build()
                        .unwrap();
                    let manifest = TaskManifest::named(t.clone(), spec);
                    let uid = Uid::from_u128(u128::from(index) + 1);
                    let task = Task::create(manifest, tenant(), uid, at(index, 0)).unwrap();
                    store.create(&tenant(), &task, at(index, 0)).unwrap();
                    ack(index, "created");
                    Step::Created
                }
                Some(Step::Created) => {
                    let request = ClaimRequest::new(
                        RunnerId::new("r").unwrap(),
                        Labels::new(),
                        KindSet::ALL,
                        lease(index),
                        at(index, 60),
                    );
                    let claimed = store
                        .claim(&tenant(), &request, at(index, 1))
                        .unwrap()
                        .unwrap();
                    assert_eq!(claimed.task.id(), t);
                    ack(index, "claimed");
                    Step::Claimed
                }
                Some(Step::Claimed) => {
                    store
                        .start(&tenant(), t, lease(index), at(index, 2))
                        .unwrap();
                    ack(index, "started");
                    Step::Started
                }
                Some(Step::Started) => {
                    let lines: Vec<_> = (0..LINES)
                        .map(|n| {
                            LogLine::new(n, LogStream::Stdout, format!("line {n}"), at(index, 3))
                                .unwrap()
                        })
                        .collect();
                    store
                        .append_logs(&tenant(), t, lease(index), &lines, at(index, 3))
                        .unwrap();
                    ack(index, "logged");
                    Step::Logged
                }
                Some(Step::Logged | Step::Reported) => {
                    let done = AttemptResult::new(AttemptOutcome::Succeeded);
                    store
                        .report(
                            &tenant(),
                            t,
                            lease(index),
                            done,
                            &mut SeededRandom::new(1),
                            at(index, 4),
                        )
                        .unwrap();
                    ack(index, "reported");
                    Step::Reported
                }
            });
        }
    }
}

/// A seed from the clock, printed so a failing run can be repeated.
fn seed() -> u64 {
    let seed = std::env::var("TASKSTORE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("kill test seed: {seed} (TASKSTORE_KILL_SEED repeats it)");
    seed
}

#[test]
fn a_killed_writer_loses_nothing_and_does_nothing_twice() {
    if let Some(path) = std::env::var_os(CHILD) {
        child(Path::new(&path));
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("taskstore-kill")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("killed.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let mut random = SeededRandom::new(seed());
    let mut acknowledged: Vec<(u64, Step)> = Vec::new();
    for kill in 0..KILLS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
            .env(CHILD, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, receive) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.strip_prefix("ack ") {
                    let (index, step) = rest.split_once(' ').unwrap();
                    send.send((index.parse::<u64>().unwrap(), Step::parse(step)))
                        .unwrap();
                }
            }
        });
        // Wait for the first write, then kill at a random moment of the writes.
        let first = receive
            .recv_timeout(Duration::from_secs(60))
            .expect("the child acknowledged nothing");
        acknowledged.push(first);
        let delay = 20 + taskmodel::RandomSource::next_u64(&mut random) % 400;
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
        reader.join().unwrap();
        acknowledged.extend(receive.try_iter());
        // Every acknowledged step is stored, and nothing happened twice.
        let mut store = SqliteStore::open(&path).unwrap();
        let last = acknowledged.iter().map(|(index, _)| *index).max().unwrap();
        for index in 0..=last {
            let stored = stored_step(&mut store, index);
            let acked = acknowledged
                .iter()
                .filter(|(i, _)| *i == index)
                .map(|(_, step)| *step)
                .max();
            assert!(
                stored >= acked,
                "kill {kill}: task {index} acknowledged {acked:?} but stored {stored:?}"
            );
        }
        eprintln!(
            "kill {kill} after {delay} ms: {} steps acknowledged, {} tasks",
            acknowledged.len(),
            last + 1
        );
    }
    assert!(acknowledged.len() > KILLS, "the child barely wrote");
    let _ = std::fs::remove_dir_all(&dir);
}
