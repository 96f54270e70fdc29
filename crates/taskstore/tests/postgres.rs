//! The conformance suite on PostgreSQL, against the server `TASKSTORE_POSTGRES_URL` names
//! (`cargo xtask test` starts a throwaway one). Without it the tests fail when `CI` is
//! set, and skip with a message otherwise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod suite;

use std::num::NonZeroU32;

use postgres::{Client, NoTls};
use suite::Backend;
use taskstore::{PostgresStore, Store, StoreError};

/// The variable that names the test server.
const URL: &str = "TASKSTORE_POSTGRES_URL";

struct Postgres {
    /// The server's URL with this test's schema first on the search path.
    url: String,
}

impl Backend for Postgres {
    type Store = PostgresStore;
    /// A connection that tries to move the queue floor up after every claim, so the suite
    /// runs with floors as high as they go.
    fn open(&self) -> PostgresStore {
        let mut store = PostgresStore::connect(&self.url).unwrap();
        store.set_queue_floor_interval(NonZeroU32::MIN);
        store
    }
}

/// The server's URL, or `None` to skip (never under CI).
fn server() -> Option<String> {
    match std::env::var(URL) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!(
                "{URL} is not set and CI is: the PostgreSQL tests must run (use `cargo xtask test`)"
            )
        }
        _ => {
            eprintln!(
                "skipping the PostgreSQL tests: {URL} is not set (`cargo xtask test` starts a server and sets it)"
            );
            None
        }
    }
}

/// A fresh schema for one test: dropped if left from an earlier run, created, and put
/// first on the search path of every connection the test opens.
fn postgres(name: &str) -> Option<Postgres> {
    let url = server()?;
    let mut admin = Client::connect(&url, NoTls)
        .unwrap_or_else(|error| panic!("{URL}={url} does not answer: {error}"));
    let schema = format!("t_{name}");
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let separator = if url.contains('?') { '&' } else { '?' };
    Some(Postgres {
        url: format!("{url}{separator}options=-csearch_path%3D{schema}"),
    })
}

conformance!(postgres);

/// The `CHECK`s `tasks` and `attempts` had on PostgreSQL before schema version 11 dropped
/// them, by their names (the lists in the form before version 9): with
/// [`suite::TO_VERSION_3`], a database as an earlier version left it.
const CHECKS_BEFORE_VERSION_11: &str = "
ALTER TABLE tasks
    ADD CONSTRAINT tasks_phase_check CHECK (phase IN ('pending', 'running', 'succeeded', 'failed', 'timeout', 'canceled', 'exhausted')),
    ADD CONSTRAINT tasks_resource_version_check CHECK (resource_version >= 1),
    ADD CONSTRAINT tasks_attempt_check CHECK (attempt >= 0),
    ADD CONSTRAINT tasks_check CHECK (generation BETWEEN 1 AND resource_version),
    ADD CONSTRAINT tasks_check1 CHECK ((phase = 'pending') = (queued_ns IS NOT NULL)),
    ADD CONSTRAINT tasks_check2 CHECK ((phase IN ('pending', 'running')) = (finished_ns IS NULL)),
    ADD CONSTRAINT tasks_check3 CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL);
ALTER TABLE attempts
    ADD CONSTRAINT attempts_attempt_check CHECK (attempt >= 1),
    ADD CONSTRAINT attempts_runner_slot_check CHECK (runner_slot >= 0),
    ADD CONSTRAINT attempts_state_check CHECK (state IN ('leased', 'running', 'cancelling', 'succeeded', 'failed', 'timeout', 'canceled', 'expired'));
";

/// What schema version 12 added on PostgreSQL, undone: with [`suite::TO_VERSION_3`], a
/// database as an earlier version left it.
const FLOORS_BEFORE_VERSION_12: &str = "DROP TABLE queue_floors;";

#[test]
fn a_database_of_a_newer_schema_is_refused() {
    let Some(backend) = postgres("newer_schema") else {
        return;
    };
    drop(backend.open());
    let mut client = Client::connect(&backend.url, NoTls).unwrap();
    client
        .execute("UPDATE schema_version SET version = version + 1", &[])
        .unwrap();
    let error = PostgresStore::connect(&backend.url).unwrap_err();
    assert!(
        matches!(error, StoreError::SchemaTooNew { found, supported } if found == supported + 1),
        "{error}"
    );
    // A database at version 1 (before actions and flows) gains the later versions on open
    // and keeps its tasks.
    let backend = postgres("version_1").unwrap();
    let task = suite::task("a", suite::at(0));
    let mut store = backend.open();
    store.create(&suite::tenant(), &task, suite::at(0)).unwrap();
    drop(store);
    let mut client = Client::connect(&backend.url, NoTls).unwrap();
    client.batch_execute(suite::TO_VERSION_3).unwrap();
    client.batch_execute(CHECKS_BEFORE_VERSION_11).unwrap();
    client.batch_execute(FLOORS_BEFORE_VERSION_12).unwrap();
    client
        .batch_execute("DROP TABLE flow_jobs; DROP TABLE flows; DROP TABLE actions; UPDATE schema_version SET version = 1")
        .unwrap();
    suite::a_version_1_database_migrates_on_open(&mut backend.open(), &task);
    // A database at version 3 (before the claim columns) gains them, filled from each
    // task's document.
    let backend = postgres("version_3").unwrap();
    let tasks = suite::version_3_tasks();
    backend.open().import(&suite::tenant(), &tasks).unwrap();
    let mut client = Client::connect(&backend.url, NoTls).unwrap();
    client.batch_execute(suite::TO_VERSION_3).unwrap();
    client.batch_execute(CHECKS_BEFORE_VERSION_11).unwrap();
    client.batch_execute(FLOORS_BEFORE_VERSION_12).unwrap();
    let mut store = backend.open();
    let columns: Vec<(String, String, String)> = client
        .query(
            "SELECT id, kind_name, runner_selector FROM tasks ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    assert_eq!(columns, suite::version_3_columns());
    suite::a_version_3_database_migrates_on_open(&mut store, &tasks);
}

#[test]
fn a_flow_stored_as_a_document_moves_into_rows() {
    let Some(backend) = postgres("flow_document") else {
        return;
    };
    let url = backend.url.clone();
    suite::a_flow_stored_as_a_document_moves_into_rows(&backend, |sql| {
        Client::connect(&url, NoTls)
            .unwrap()
            .batch_execute(sql)
            .unwrap();
    });
}

/// The plan PostgreSQL caches for a claim's read of the runner's places (`claim.rs`'s
/// statement, to the letter) on a database whose `attempts` has no statistics yet, with the
/// indexes the test leaves.
fn places_plan(client: &mut Client) -> String {
    client
        .batch_execute("SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off")
        .unwrap();
    let rows = client
        .query(
            "EXPLAIN SELECT runner_slot FROM attempts WHERE tenant = $1 AND runner = $2 AND \
             (state = 'leased' OR state = 'running' OR state = 'cancelling')",
            &[&"tenant", &"runner"],
        )
        .unwrap();
    rows.iter()
        .map(|row| row.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_runners_places_are_read_on_the_runner_index_and_never_by_tenant_alone() {
    let Some(backend) = postgres("places_plan") else {
        return;
    };
    drop(backend.open());
    let mut client = Client::connect(&backend.url, NoTls).unwrap();
    let plan = places_plan(&mut client);
    assert!(plan.contains("attempts_active_runner_uq"), "{plan}");
    // Without the runner index, the index of one active attempt per task must offer
    // nothing: keyed by tenant first, it read every active attempt of the tenant for each
    // claim.
    client
        .batch_execute("BEGIN; DROP INDEX attempts_active_runner_uq")
        .unwrap();
    let plan = places_plan(&mut client);
    client.batch_execute("ROLLBACK").unwrap();
    assert!(!plan.contains("attempts_active_task_uq"), "{plan}");
}

/// Rows of `tasks` and of `attempts` that break the rules the tables' `CHECK`s stated up to
/// schema version 10 (SQLite still has them; PostgreSQL dropped them in version 11).
fn rows_breaking_the_rules(client: &mut Client) -> (i64, i64) {
    let tasks = client
        .query_one(
            "SELECT count(*) FROM tasks WHERE (phase IN ('pending', 'running', 'succeeded', \
             'failed', 'timeout', 'canceled', 'exhausted') AND resource_version >= 1 \
             AND generation BETWEEN 1 AND resource_version AND attempt >= 0 \
             AND (phase = 'pending') = (queued_ns IS NOT NULL) \
             AND (phase IN ('pending', 'running')) = (finished_ns IS NULL) \
             AND (expires_ns IS NULL OR finished_ns IS NOT NULL)) IS NOT TRUE",
            &[],
        )
        .unwrap()
        .get(0);
    let attempts = client
        .query_one(
            "SELECT count(*) FROM attempts WHERE (attempt >= 1 AND runner_slot >= 0 \
             AND state IN ('leased', 'running', 'cancelling', 'succeeded', 'failed', \
             'timeout', 'canceled', 'expired')) IS NOT TRUE",
            &[],
        )
        .unwrap()
        .get(0);
    (tasks, attempts)
}

/// A conformance scenario on PostgreSQL.
type Scenario = fn(&Postgres);

#[test]
fn the_rows_every_scenario_leaves_keep_the_rules_the_dropped_checks_stated() {
    let scenarios: [(&str, Scenario); 8] = [
        (
            "expiry",
            suite::lease_expiry_requeues_then_exhausts_at_the_retry_limit,
        ),
        (
            "cancelling",
            suite::in_flight_cancel_goes_cancelling_then_canceled,
        ),
        (
            "cancel_race",
            suite::cancel_racing_result_converges_and_never_loses_the_cancel,
        ),
        (
            "late_result",
            suite::expiry_racing_a_late_result_never_resurrects,
        ),
        (
            "idempotent",
            suite::duplicate_start_heartbeat_and_result_are_idempotent,
        ),
        ("restart", suite::a_restart_is_not_claimed_before_it_is_due),
        (
            "gc",
            suite::gc_deletes_expired_tasks_in_batches_with_their_attempts_and_logs,
        ),
        ("flow", suite::a_diamond_flow_runs_in_order),
    ];
    for (name, scenario) in scenarios {
        let Some(backend) = postgres(&format!("rules_{name}")) else {
            return;
        };
        scenario(&backend);
        let mut client = Client::connect(&backend.url, NoTls).unwrap();
        let written: i64 = client
            .query_one("SELECT count(*) FROM tasks", &[])
            .unwrap()
            .get(0);
        assert!(written > 0, "{name}: the scenario left no task to check");
        assert_eq!(rows_breaking_the_rules(&mut client), (0, 0), "{name}");
        // The queries find rows that break a rule: a pending task with no queue time, an
        // attempt of a state no model has (when the scenario left attempts).
        let attempts: i64 = client
            .query_one("SELECT count(*) FROM attempts", &[])
            .unwrap()
            .get(0);
        client
            .batch_execute(
                "BEGIN; UPDATE tasks SET phase = 'pending', queued_ns = NULL \
                 WHERE ctid = (SELECT min(ctid) FROM tasks); \
                 UPDATE attempts SET state = 'lost' \
                 WHERE ctid = (SELECT min(ctid) FROM attempts)",
            )
            .unwrap();
        assert_eq!(
            rows_breaking_the_rules(&mut client),
            (1, attempts.min(1)),
            "{name}"
        );
        client.batch_execute("ROLLBACK").unwrap();
    }
}

/// The tenant's queue floor as `queue_floors` holds it: priority, `queued_ns`, id.
fn floor(client: &mut Client) -> Option<(i64, i64, String)> {
    client
        .query_opt(
            "SELECT priority, queued_ns, id FROM queue_floors WHERE tenant = $1",
            &[&suite::tenant().as_str()],
        )
        .unwrap()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
}

/// Where task `name` queued at `at(ms)` with `priority` waits, as a floor.
fn floor_at(priority: i64, ms: i64, name: &str) -> Option<(i64, i64, String)> {
    let ns = suite::at(ms).timestamp_nanos_opt().unwrap();
    Some((priority, ns, name.to_owned()))
}

#[test]
fn the_queue_floor_moves_up_after_claims_and_down_to_a_task_before_it() {
    let Some(backend) = postgres("queue_floor") else {
        return;
    };
    let mut client = Client::connect(&backend.url, NoTls).unwrap();
    // The suite's connections try to move the floor after every claim.
    let mut store = backend.open();
    let tasks: Vec<_> = (0..10)
        .map(|n| suite::queued_at(&format!("q{n:02}"), 0, 100 + n))
        .collect();
    store.import(&suite::tenant(), &tasks).unwrap();
    assert_eq!(floor(&mut client), None, "no floor before a claim");
    assert_eq!(suite::next(&mut store, 0).as_deref(), Some("q00"));
    assert_eq!(floor(&mut client), floor_at(0, 101, "q01"));
    for lease in 1..4 {
        suite::next(&mut store, lease).unwrap();
    }
    assert_eq!(floor(&mut client), floor_at(0, 104, "q04"));
    // A task before the floor lowers it, in the transaction that queues it.
    let mut create = |name: &str, priority: i32, ms: i64| {
        store
            .create(
                &suite::tenant(),
                &suite::queued_at(name, priority, ms),
                suite::at(ms),
            )
            .unwrap();
    };
    create("urgent", 5, 500);
    assert_eq!(floor(&mut client), floor_at(5, 500, "urgent"));
    create("later", 0, 900);
    assert_eq!(
        floor(&mut client),
        floor_at(5, 500, "urgent"),
        "a task after it"
    );
    assert_eq!(suite::next(&mut store, 4).as_deref(), Some("urgent"));
    assert_eq!(floor(&mut client), floor_at(0, 104, "q04"));
    // A connection with the default interval moves the floor after its first claim, then
    // leaves it for the interval's claims.
    let mut default = PostgresStore::connect(&backend.url).unwrap();
    assert_eq!(suite::next(&mut default, 5).as_deref(), Some("q04"));
    assert_eq!(floor(&mut client), floor_at(0, 105, "q05"));
    assert_eq!(suite::next(&mut default, 6).as_deref(), Some("q05"));
    assert_eq!(floor(&mut client), floor_at(0, 105, "q05"));
    assert_eq!(suite::next(&mut store, 7).as_deref(), Some("q06"));
    assert_eq!(floor(&mut client), floor_at(0, 107, "q07"));
}
