//! Unit tests of the PostgreSQL engine's statement text.

use super::{from_updated, shifted};

#[test]
fn shifted_moves_every_placeholder_by_the_count_and_leaves_the_rest() {
    let cases = [
        ("", 3, ""),
        ("no marks", 3, "no marks"),
        ("?1", 0, "?1"),
        ("?1", 8, "?9"),
        ("?9, ?10", 1, "?10, ?11"),
        ("VALUES (?1, ?2)", 10, "VALUES (?11, ?12)"),
        ("a = ?1 AND b = ?12", 5, "a = ?6 AND b = ?17"),
        ("ends with ?", 2, "ends with ?"),
        ("? alone", 2, "? alone"),
        ("?1?2", 1, "?2?3"),
    ];
    for (text, by, want) in cases {
        assert_eq!(shifted(text, by), want, "{text:?} by {by}");
    }
}

#[test]
fn from_updated_reads_the_values_from_the_updated_row_or_refuses_another_form() {
    let cases = [
        (
            "INSERT INTO a (x, y) VALUES (?3, ?4)",
            Some("INSERT INTO a (x, y) SELECT ?3, ?4 FROM updated"),
        ),
        ("INSERT INTO a (x) SELECT 1", None),
        ("INSERT INTO a (x) VALUES (?1", None),
    ];
    for (text, want) in cases {
        assert_eq!(from_updated(text).as_deref(), want, "{text:?}");
    }
}
