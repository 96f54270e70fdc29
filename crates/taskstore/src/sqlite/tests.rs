//! SQLite's group commit of claims (a group answers what the same claims answer one by
//! one), the plans of the statements over partial indexes, and the claim's reads of the
//! queue without a temporary B-tree for the runner's kinds, and the writer the stores of
//! one file share.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use taskmodel::fleet::KindSet;
use taskmodel::ids::{RunnerId, TaskId, TenantId, Uid};
use taskmodel::selector::Labels;
use taskmodel::task::{
    LeaseId, SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskPhase, TaskSpec,
};

use super::{FILES, FileKey, SqliteStore};
use crate::attempts::EXPIRED;
use crate::claim::{RUNNER_PLACES, queue_statements};
use crate::error::StoreError;
use crate::group::{ClaimCall, ClaimResult, run_queued};
use crate::store::Store;
use crate::tx::{Sql, Value};
use crate::values::ClaimRequest;

fn tenant() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn at(ms: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::milliseconds(ms)
}

fn task(n: u32) -> Task {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let spec = TaskSpec::builder(format!("s{n}"), kind, 60_000)
        .build()
        .unwrap();
    let manifest = TaskManifest::named(TaskId::new(format!("t{n}")).unwrap(), spec);
    Task::create(
        manifest,
        tenant(),
        Uid::from_u128(u128::from(n) + 1),
        at(i64::from(n)),
    )
    .unwrap()
}

/// A fresh database of three queued tasks, in a folder of this process.
fn store(name: &str) -> SqliteStore {
    let dir = std::env::temp_dir()
        .join("taskstore-group")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let mut store = SqliteStore::open(&path).unwrap();
    store
        .import(&tenant(), &[task(0), task(1), task(2)])
        .unwrap();
    store
}

/// A claim by runner `runner`; `refused` asks for a lease that expires as it is granted,
/// which the model refuses.
fn call(runner: &str, lease: u64, refused: bool) -> ClaimCall {
    let now = at(10);
    let expires = if refused {
        now
    } else {
        now + TimeDelta::seconds(30)
    };
    ClaimCall {
        tenant: tenant(),
        request: ClaimRequest::new(
            RunnerId::new(runner).unwrap(),
            Labels::new(),
            KindSet::ALL,
            LeaseId::new(lease),
            expires,
        ),
        now,
    }
}

fn calls() -> Vec<ClaimCall> {
    vec![call("a", 1, false), call("b", 2, true), call("c", 3, false)]
}

/// Runs `calls` as one group on `store`, all queued before it starts.
fn group(store: &mut SqliteStore, calls: Vec<ClaimCall>) -> Vec<ClaimResult> {
    run_queued(calls, |batch| {
        store
            .file
            .with_writer(|conn| super::claim_group(conn, batch));
    })
}

/// What a result says, comparable: the claimed task and attempt, or the error's variant.
fn outcome(result: &ClaimResult) -> String {
    match result {
        Ok(Some(claimed)) => format!("{:?} {:?}", claimed.task, claimed.attempt),
        Ok(None) => "nothing".to_owned(),
        Err(StoreError::Rejected { task, .. }) => format!("rejected {task}"),
        Err(other) => format!("error {other}"),
    }
}

/// A claim the model refuses in the middle of a group rolls back only its own savepoint:
/// the claims before and after it are committed, and each of the three answers exactly
/// what it answers when the claims run one by one.
#[test]
fn a_refused_claim_in_a_group_undoes_no_other_and_answers_as_alone() {
    let mut grouped = store("grouped");
    let together: Vec<String> = group(&mut grouped, calls()).iter().map(outcome).collect();
    let mut lone = store("lone");
    let one_by_one: Vec<String> = calls()
        .into_iter()
        .map(|call| outcome(&group(&mut lone, vec![call]).remove(0)))
        .collect();
    assert_eq!(together.len(), 3);
    assert_eq!(together, one_by_one);
    assert_eq!(together[1], "rejected t1");
    assert_eq!(
        phases(&mut grouped),
        [TaskPhase::Running, TaskPhase::Running, TaskPhase::Pending]
    );
}

/// A claim that fails after it wrote (its task's update went through, then a unique index
/// refused its attempt: here an attempt row left where the next attempt goes) makes the
/// group run again, each claim in its own savepoint: the claim before it is committed,
/// and each answers what it answers alone.
#[test]
fn a_claim_failing_after_its_write_leaves_nothing_and_answers_as_alone() {
    let plant = |store: &SqliteStore| {
        conn(store)
            .execute(
                "INSERT INTO attempts (tenant, task_id, attempt, runner_slot, runner, state, \
                 lease_expires_ns, doc) VALUES ('acme', 't1', 1, 0, 'x', 'failed', 0, '{}')",
                [],
            )
            .unwrap();
    };
    let calls = || {
        vec![
            call("a", 1, false),
            call("b", 2, false),
            call("c", 3, false),
        ]
    };
    let mut grouped = store("planted-grouped");
    plant(&grouped);
    let together: Vec<String> = group(&mut grouped, calls()).iter().map(outcome).collect();
    let mut lone = store("planted-lone");
    plant(&lone);
    let one_by_one: Vec<String> = calls()
        .into_iter()
        .map(|call| outcome(&group(&mut lone, vec![call]).remove(0)))
        .collect();
    assert_eq!(together, one_by_one);
    assert!(together[0].contains("t0"), "{}", together[0]);
    assert!(together[1].starts_with("error"), "{}", together[1]);
    assert_eq!(
        phases(&mut grouped),
        [TaskPhase::Running, TaskPhase::Pending, TaskPhase::Pending]
    );
}

/// The store's own connection (a file's database: it has one).
fn conn(store: &SqliteStore) -> &rusqlite::Connection {
    store.reader.as_ref().unwrap()
}

/// Whether task `t{n}` is in the store.
fn has(store: &mut SqliteStore, n: u32) -> bool {
    let id = TaskId::new(format!("t{n}")).unwrap();
    store.get(&tenant(), &id).is_ok()
}

/// The phases of tasks t0, t1 and t2.
fn phases(store: &mut SqliteStore) -> Vec<TaskPhase> {
    (0..3)
        .map(|n| {
            let id = TaskId::new(format!("t{n}")).unwrap();
            store.get(&tenant(), &id).unwrap().task.phase()
        })
        .collect()
}

/// The tables and indexes SQLite's plan for `sql` reads (`EXPLAIN QUERY PLAN`).
fn plan(store: &SqliteStore, sql: &Sql) -> String {
    let mut statement = conn(store)
        .prepare(&format!("EXPLAIN QUERY PLAN {}", sql.text))
        .unwrap();
    let details: Vec<String> = statement
        .query_map(
            rusqlite::params_from_iter(vec![Value::Null; statement.parameter_count()]),
            |row| row.get::<_, String>(3),
        )
        .unwrap()
        .map(Result::unwrap)
        .collect();
    details.join("; ")
}

#[test]
fn the_statements_over_active_attempts_read_their_partial_indexes() {
    let store = store("active-plans");
    for (sql, index) in [
        (&RUNNER_PLACES, "attempts_active_runner_uq"),
        (&EXPIRED, "attempts_expiry_idx"),
    ] {
        let plan = plan(&store, sql);
        assert!(plan.contains(index), "{}: {plan}", sql.text);
    }
}

/// The opcodes of SQLite's program for `sql` (`EXPLAIN`).
fn opcodes(store: &SqliteStore, sql: &Sql) -> Vec<String> {
    let mut statement = conn(store)
        .prepare(&format!("EXPLAIN {}", sql.text))
        .unwrap();
    statement
        .query_map(
            rusqlite::params_from_iter(vec![Value::Null; statement.parameter_count()]),
            |row| row.get::<_, String>(1),
        )
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn the_queue_reads_filter_up_to_eight_kinds_without_a_temporary_b_tree() {
    let store = store("queue-plans");
    for (kinds, statements) in queue_statements() {
        for sql in statements {
            let plan = plan(&store, sql);
            assert!(plan.contains("tasks_queue_idx"), "{}: {plan}", sql.text);
            let ephemeral = opcodes(&store, sql)
                .iter()
                .any(|opcode| opcode == "OpenEphemeral");
            assert_eq!(ephemeral, kinds > 8, "{kinds} kinds: {}", sql.text);
        }
    }
}

/// Two claims run the head's one prepared statement, never prepared again: the `OR` chain
/// of the kind filter leaves its plan independent of the kinds bound (with the planner
/// stability setting `sqlite.rs` turns on).
#[test]
fn the_queue_head_is_not_prepared_again_at_each_claim() {
    let mut store = store("queue-prepared");
    for call in [call("a", 1, false), call("b", 2, false)] {
        assert!(matches!(
            group(&mut store, vec![call]).remove(0),
            Ok(Some(_))
        ));
    }
    let (_, [head, ..]) = queue_statements().find(|(kinds, _)| *kinds == 4).unwrap();
    let (runs, prepared_again) = store.file.with_writer(|conn| {
        let statement = conn.prepare_cached(&head.text).unwrap();
        (
            statement.get_status(rusqlite::StatementStatus::Run),
            statement.get_status(rusqlite::StatementStatus::RePrepare),
        )
    });
    assert_eq!(runs, 2);
    assert_eq!(prepared_again, 0);
}

/// The indexes on `tasks` and `attempts` as SQLite stores them (name and text).
fn indexes(conn: &rusqlite::Connection) -> Vec<(String, String)> {
    let mut statement = conn
        .prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL \
             AND tbl_name IN ('tasks', 'attempts') ORDER BY name",
        )
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A database at the active-states step (version 8), with tasks, an owner-less claimed
/// task and its attempt, opens at the newest version: the rows are all there, the tables'
/// `CHECK` lists are written with `OR`, every index is as it was (with what the steps after
/// it change), and the foreign keys are enforced again.
#[test]
fn a_database_before_the_check_lists_step_migrates_keeping_rows_indexes_and_keys() {
    use crate::schema::{MIGRATIONS, VERSION_TABLE};
    // The rows: a store at the newest version, one of its three tasks claimed.
    let mut source = store("checks-source");
    assert!(matches!(
        group(&mut source, vec![call("a", 1, false)]).remove(0),
        Ok(Some(_))
    ));
    let source_path = conn(&source).path().unwrap().to_owned();
    drop(source);
    let old = store("checks-old");
    let path = conn(&old).path().unwrap().to_owned();
    drop(old);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    let old = rusqlite::Connection::open(&path).unwrap();
    old.execute_batch(VERSION_TABLE).unwrap();
    for migration in MIGRATIONS.iter().filter(|migration| migration.version <= 8) {
        old.execute_batch(migration.sqlite).unwrap();
    }
    old.execute("INSERT INTO schema_version (version) VALUES (8)", [])
        .unwrap();
    old.execute("ATTACH ?1 AS source", [&source_path]).unwrap();
    old.execute_batch(
        "INSERT INTO tasks SELECT * FROM source.tasks; \
         INSERT INTO attempts SELECT * FROM source.attempts; DETACH source",
    )
    .unwrap();
    let before = indexes(&old);
    assert_eq!(before.len(), 10);
    drop(old);

    let mut store = SqliteStore::open(&path).unwrap();
    let version: i64 = conn(&store)
        .query_row("SELECT version FROM schema_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, crate::SCHEMA_VERSION);
    // Every index as it was, and as the steps after this one make it (they run on the same
    // open): the steps other than this one, run on an empty database.
    let expected = {
        let scratch = rusqlite::Connection::open_in_memory().unwrap();
        scratch.execute_batch(VERSION_TABLE).unwrap();
        for migration in MIGRATIONS.iter().filter(|migration| migration.version != 9) {
            scratch.execute_batch(migration.sqlite).unwrap();
        }
        indexes(&scratch)
    };
    assert_eq!(expected.len(), before.len());
    assert_eq!(indexes(conn(&store)), expected);
    for (table, list) in [
        ("tasks", "IN ('pending', 'running', 'succeeded'"),
        ("attempts", "IN ('leased'"),
    ] {
        let sql: String = conn(&store)
            .query_row(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |row| row.get(0),
            )
            .unwrap();
        assert!(!sql.contains(list), "{sql}");
        assert!(sql.contains(" OR "), "{sql}");
    }
    assert_eq!(
        phases(&mut store),
        [TaskPhase::Running, TaskPhase::Pending, TaskPhase::Pending]
    );
    let attempts: i64 = conn(&store)
        .query_row("SELECT count(*) FROM attempts", [], |row| row.get(0))
        .unwrap();
    assert_eq!(attempts, 1);
    // The keys and the checks hold again.
    let orphan = conn(&store).execute(
        "INSERT INTO attempts VALUES ('acme', 'nope', 1, 0, 'r', 'leased', 0, '{}')",
        [],
    );
    assert!(orphan.is_err(), "{orphan:?}");
    let bad_phase = conn(&store).execute("UPDATE tasks SET phase = 'lost' WHERE id = 't1'", []);
    assert!(bad_phase.is_err(), "{bad_phase:?}");
    // The claimed task's next claim still works on the rebuilt tables.
    assert!(matches!(
        group(&mut store, vec![call("b", 2, false)]).remove(0),
        Ok(Some(_))
    ));
}

/// The stores open on one file share one writer: a write through one is on the shared
/// connection, and the others read it. The writer closes with the last store, and a file
/// made again at the same path is another file with a writer of its own.
#[test]
fn the_stores_of_one_file_share_a_writer_that_closes_with_the_last() {
    let mut first = store("shared-writer");
    let path = conn(&first).path().unwrap().to_owned();
    let mut second = SqliteStore::open(&path).unwrap();
    assert!(Arc::ptr_eq(&first.file, &second.file));
    let key = FileKey::of(Path::new(&path));
    let writer = first
        .file
        .with_writer(|conn| conn.path().unwrap().to_owned());
    assert_eq!(writer, path);
    assert!(!has(&mut second, 3));
    first.import(&tenant(), &[task(3)]).unwrap();
    assert!(has(&mut second, 3));
    let live = |key: &FileKey| {
        FILES
            .lock()
            .unwrap()
            .get(key)
            .is_some_and(|file| file.strong_count() > 0)
    };
    drop(first);
    assert!(live(&key), "the second store still holds the writer");
    drop(second);
    assert!(!live(&key), "the writer closes with the last store");
    let mut remade = store("shared-writer");
    assert!(has(&mut remade, 2) && !has(&mut remade, 3));
}

/// A database deleted and made again at one path while a store still has the old one open
/// gets its own writer: writes through a new store land in the new file.
#[test]
fn a_file_made_again_at_the_same_path_gets_a_writer_of_its_own() {
    let old = store("remade");
    let path = conn(&old).path().unwrap().to_owned();
    let mut new = store("remade");
    assert!(!Arc::ptr_eq(&old.file, &new.file));
    new.import(&tenant(), &[task(3)]).unwrap();
    let mut reader = SqliteStore::open(&path).unwrap();
    assert!(has(&mut reader, 3));
    let mut old = old;
    assert!(has(&mut old, 2) && !has(&mut old, 3));
}

/// An in-memory database is its connection's alone: two stores on `:memory:` are two
/// databases, each writing and reading its own tasks on its one connection.
#[test]
fn each_in_memory_store_writes_and_reads_its_own_database() {
    let mut first = SqliteStore::open(":memory:").unwrap();
    let mut second = SqliteStore::open(":memory:").unwrap();
    assert!(first.reader.is_none() && !Arc::ptr_eq(&first.file, &second.file));
    first.import(&tenant(), &[task(0), task(1)]).unwrap();
    second.import(&tenant(), &[task(2)]).unwrap();
    assert!(has(&mut first, 1) && !has(&mut first, 2));
    assert!(has(&mut second, 2) && !has(&mut second, 0));
}

/// A text column reads as its text; bytes that are not UTF-8 (another program wrote them)
/// read replaced, as the lossy conversion reads them.
#[test]
fn text_columns_read_whole_and_bad_bytes_read_replaced() {
    for bytes in [
        &b"{\"a\":\"\xc3\xa9\"}"[..],
        b"",
        b"plain",
        b"bad \xff end",
        b"\xe2\x82",
    ] {
        assert_eq!(
            super::text_of(bytes),
            String::from_utf8_lossy(bytes).into_owned()
        );
    }
    assert_eq!(super::text_of(b"bad \xff end"), "bad \u{fffd} end");
}
