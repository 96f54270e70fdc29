//! Claims past the head of the queue: a runner behind thousands of queued tasks it does
//! not fit (other kinds, selectors its labels do not match) finds its task, in queue order,
//! and a database of schema version 3 gains the columns a claim reads.

use taskmodel::fleet::KindSet;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::{ExtensionKind, ExtensionSpec, Task, TaskEnv, TaskKind, TaskSpec};
use taskstore::{ClaimRequest, Store};

use super::fixtures::*;

/// More queued tasks than the claim's first reads return, and than the old bound of 1,000.
pub const DEPTH: usize = 1_600;

/// Statements that take a database of this build back to schema version 3 (both engines
/// read them): the active attempts' indexes over `state IN (...)` again, no schedules table
/// and no schedule columns on actions, no per-job flow columns, no index of finished
/// actions, the queue index without `kind_name`, and neither claim column.
pub const TO_VERSION_3: &str = "
DROP INDEX attempts_active_task_uq;
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE state IN ('leased', 'running', 'cancelling');
DROP INDEX attempts_active_runner_uq;
CREATE UNIQUE INDEX attempts_active_runner_uq ON attempts (tenant, runner, runner_slot) WHERE state IN ('leased', 'running', 'cancelling');
DROP INDEX attempts_expiry_idx;
CREATE INDEX attempts_expiry_idx ON attempts (lease_expires_ns) WHERE state IN ('leased', 'running', 'cancelling');
DROP TABLE schedules;
DROP INDEX actions_tick_uq;
DROP INDEX actions_schedule_active_idx;
ALTER TABLE actions DROP COLUMN schedule_uid;
ALTER TABLE actions DROP COLUMN tick_ns;
DROP INDEX flow_jobs_position_uq;
ALTER TABLE flows DROP COLUMN job_rows;
ALTER TABLE flows DROP COLUMN failure_policy;
ALTER TABLE flows DROP COLUMN failure_seen;
ALTER TABLE flows DROP COLUMN result_bytes;
ALTER TABLE flows DROP COLUMN not_started;
ALTER TABLE flows DROP COLUMN running;
ALTER TABLE flows DROP COLUMN failed;
ALTER TABLE flows DROP COLUMN canceled;
ALTER TABLE flows DROP COLUMN other_final;
ALTER TABLE flows DROP COLUMN labels;
ALTER TABLE flows DROP COLUMN ttl_ms;
ALTER TABLE flow_jobs DROP COLUMN skip_reason;
ALTER TABLE flow_jobs DROP COLUMN rule;
ALTER TABLE flow_jobs DROP COLUMN dependencies;
ALTER TABLE flow_jobs DROP COLUMN up_succeeded;
ALTER TABLE flow_jobs DROP COLUMN up_failed;
ALTER TABLE flow_jobs DROP COLUMN up_skipped;
ALTER TABLE flow_jobs DROP COLUMN dependents;
ALTER TABLE flow_jobs DROP COLUMN result;
ALTER TABLE flow_jobs DROP COLUMN spec;
DROP INDEX actions_finished_idx;
DROP INDEX tasks_queue_idx;
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id) WHERE phase = 'pending';
ALTER TABLE tasks DROP COLUMN kind_name;
ALTER TABLE tasks DROP COLUMN runner_selector;
UPDATE schema_version SET version = 3;
";

/// A container kind (a kind the subprocess runners of the tests do not run).
pub fn container() -> TaskKind {
    TaskKind::container("img".into(), vec![], vec![], TaskEnv::empty()).unwrap()
}

/// An extension kind `images.example.com/v1/Resize`.
pub fn resize() -> TaskKind {
    TaskKind::extension(
        ExtensionKind::new("images.example.com/v1", "Resize").unwrap(),
        ExtensionSpec::empty(),
    )
}

/// Task `name` of `kind` in its own slot, with `selector` and `priority`, created at `ms`.
pub fn queued(name: &str, kind: TaskKind, selector: &str, priority: i32, ms: i64) -> Task {
    queued_in(name, name, kind, selector, priority, ms)
}

/// As [`queued`], in `slot`.
pub fn queued_in(
    name: &str,
    slot: &str,
    kind: TaskKind,
    selector: &str,
    priority: i32,
    ms: i64,
) -> Task {
    let spec = TaskSpec::builder(slot, kind, 60_000)
        .priority(priority)
        .runner_selector(selector.parse::<LabelSelector>().unwrap())
        .build()
        .unwrap();
    new_task(&tenant(), id(name), spec, at(ms))
}

/// A claim by runner `name` with `labels` and `kinds` at `at(1_000_000)`.
fn claim_by(
    store: &mut impl Store,
    name: &str,
    lease: u64,
    labels: &[(&str, &str)],
    kinds: KindSet,
) -> Option<String> {
    let now = at(1_000_000);
    let mut request: ClaimRequest = request(name, lease, now);
    request.labels = Labels::from_pairs(labels.iter().copied()).unwrap();
    request.kinds = kinds;
    store
        .claim(&tenant(), &request, now)
        .unwrap()
        .map(|claimed| claimed.task.id().as_str().to_owned())
}

/// A runner behind [`DEPTH`] queued tasks of another kind claims its own, each kind by its
/// name (an extension's `apiVersion/kind` too); an embedded task is no runner's.
pub fn a_runner_behind_other_kinds_claims_its_task<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let mut tasks = vec![queued("embedded", TaskKind::Embedded, "", 10, 0)];
    tasks.extend((0..DEPTH).map(|n| queued(&format!("c{n:05}"), container(), "", 0, 0)));
    tasks.push(queued("resize", resize(), "", 0, 1));
    tasks.push(queued("sub", kind(), "", 0, 2));
    store.import(&tenant(), &tasks).unwrap();
    let subprocess = claim_by(&mut store, "r-sub", 1, &[], KindSet::SUBPROCESS);
    assert_eq!(subprocess.as_deref(), Some("sub"));
    let extension: KindSet = "images.example.com/v1/Resize".parse().unwrap();
    assert_eq!(
        claim_by(&mut store, "r-resize", 2, &[], extension.clone()).as_deref(),
        Some("resize")
    );
    assert_eq!(claim_by(&mut store, "r-again", 3, &[], extension), None);
    // A runner of every built-in kind takes the head, never the embedded task before it.
    assert_eq!(
        claim_by(&mut store, "r-all", 4, &[], KindSet::ALL).as_deref(),
        Some("c00000")
    );
}

/// A runner behind [`DEPTH`] queued tasks whose selectors its labels do not match claims the
/// tasks it fits in queue order (priority, then time queued, then id), passing over a task
/// whose slot is busy.
pub fn a_runner_behind_selectors_it_does_not_match_claims_in_queue_order<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let others = ["zone=us", "gpu in (h100)", "ssd,zone=ap", "zone notin (eu)"];
    let mut tasks = vec![queued_in("held", "shared", kind(), "", 10, 0)];
    tasks.extend((0..DEPTH).map(|n| {
        let selector = others.get(n % others.len()).unwrap();
        // Over three priorities, so the claim reads on from one priority to the next.
        let priority = i32::try_from(n % 3).unwrap();
        queued(&format!("u{n:05}"), kind(), selector, priority, 0)
    }));
    tasks.extend([
        queued("fit-low", kind(), "", -1, 0),
        queued_in("fit-busy", "shared", kind(), "zone=eu", 0, 1),
        queued("fit-c", kind(), "zone in (eu,us)", 0, 3),
        queued("fit-a", kind(), "zone=eu", 0, 2),
        queued("fit-b", kind(), "", 0, 2),
    ]);
    store.import(&tenant(), &tasks).unwrap();
    // "held" runs in slot "shared", so "fit-busy" waits behind it.
    assert_eq!(
        claim_by(&mut store, "us", 1, &[("zone", "us")], KindSet::ALL).as_deref(),
        Some("held")
    );
    let eu: Vec<Option<String>> = (0..5)
        .map(|n| {
            claim_by(
                &mut store,
                &format!("eu{n}"),
                10 + n,
                &[("zone", "eu")],
                KindSet::ALL,
            )
        })
        .collect();
    let eu: Vec<Option<&str>> = eu.iter().map(Option::as_deref).collect();
    assert_eq!(
        eu,
        [
            Some("fit-a"),
            Some("fit-b"),
            Some("fit-c"),
            Some("fit-low"),
            None
        ]
    );
}

/// A database of schema version 3 was migrated with `tasks` stored: a claim finds each by
/// its kind and selector, which it reads from the columns the migration filled.
pub fn a_version_3_database_migrates_on_open(store: &mut impl Store, tasks: &[Task]) {
    for task in tasks {
        assert_eq!(&store.get(&tenant(), task.id()).unwrap().task, task);
    }
    assert_eq!(
        claim_by(store, "ap", 1, &[("zone", "ap")], KindSet::ALL),
        None
    );
    assert_eq!(
        claim_by(store, "eu", 2, &[("zone", "eu")], KindSet::SUBPROCESS).as_deref(),
        Some("eu")
    );
    let extension: KindSet = "images.example.com/v1/Resize".parse().unwrap();
    assert_eq!(
        claim_by(store, "resize", 3, &[], extension).as_deref(),
        Some("resize")
    );
}

/// The tasks a version-3 database holds before it is migrated: a subprocess task for the
/// `zone=eu` runners and an extension task behind a task of the `zone=us` runners.
pub fn version_3_tasks() -> Vec<Task> {
    vec![
        queued("us", kind(), "zone=us", 5, 0),
        queued("eu", kind(), "zone=eu", 0, 1),
        queued("resize", resize(), "", 0, 2),
    ]
}

/// The claim columns `(id, kind_name, runner_selector)` the migration must fill for
/// [`version_3_tasks`], by id.
pub fn version_3_columns() -> Vec<(String, String, String)> {
    [
        ("eu", "subprocess", "zone=eu"),
        ("resize", "images.example.com/v1/Resize", ""),
        ("us", "subprocess", "zone=us"),
    ]
    .map(|(id, kind, selector)| (id.to_owned(), kind.to_owned(), selector.to_owned()))
    .to_vec()
}
