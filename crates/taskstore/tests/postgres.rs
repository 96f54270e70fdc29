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
    fn open(&self) -> PostgresStore {
        PostgresStore::connect(&self.url).unwrap()
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
