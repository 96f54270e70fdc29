//! Which migrations a database of each version still needs.

use super::checks::CHECK_LISTS;
use super::floors::QUEUE_FLOORS;
use super::rules::UNCHECKED_ROWS;
use super::{MIGRATIONS, SCHEMA_VERSION, pending};
use crate::error::StoreError;

#[test]
fn migrations_run_in_order_up_to_the_newest_and_a_newer_database_is_refused() {
    let versions: Vec<i64> = MIGRATIONS.iter().map(|m| m.version).collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
    assert_eq!(pending(0).unwrap().len(), MIGRATIONS.len());
    assert!(pending(SCHEMA_VERSION).unwrap().is_empty());
    assert!(matches!(
        pending(SCHEMA_VERSION + 1),
        Err(StoreError::SchemaTooNew { found, supported: SCHEMA_VERSION }) if found == SCHEMA_VERSION + 1
    ));
}

#[test]
fn both_engines_create_the_same_tables_and_indexes() {
    let names = |text: &str| -> Vec<String> {
        text.split_whitespace()
            .collect::<Vec<_>>()
            .windows(3)
            .filter(|w| w[0] == "TABLE" || w[0] == "INDEX")
            .map(|w| w[1].to_owned())
            .collect()
    };
    // The check-lists step builds `tasks` and `attempts` again on SQLite and changes two
    // constraints in place on PostgreSQL: the SQLite engine's tests check that the rebuilt
    // tables keep every index they had. The unchecked-rows step alters the two tables on
    // PostgreSQL only.
    let one_engine = [
        CHECK_LISTS.version,
        UNCHECKED_ROWS.version,
        QUEUE_FLOORS.version,
    ];
    for migration in MIGRATIONS
        .iter()
        .filter(|migration| !one_engine.contains(&migration.version))
    {
        assert_eq!(
            names(migration.sqlite),
            names(migration.postgres),
            "version {}",
            migration.version
        );
    }
}
