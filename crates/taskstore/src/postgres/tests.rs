//! Unit tests of the PostgreSQL engine's statement text.

use super::shifted;

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
