//! Unit tests of the queue floors' order and statement text.

use super::{Position, from_floor};

fn at(priority: i64, queued_ns: i64, id: &str) -> Position {
    Position {
        priority,
        queued_ns,
        id: id.to_owned(),
    }
}

#[test]
fn before_is_queue_order_higher_priority_then_earlier_then_smaller_id() {
    // In queue order (`priority DESC, queued_ns, id`).
    let order = [
        at(i64::from(i32::MAX), 5, "a"),
        at(3, -7, "z"),
        at(3, 0, "a"),
        at(3, 0, "b"),
        at(3, 1, "a"),
        at(0, i64::MIN, "a"),
        at(0, 0, "a"),
        at(i64::from(i32::MIN), i64::MAX, "a"),
    ];
    for (i, a) in order.iter().enumerate() {
        for (j, b) in order.iter().enumerate() {
            assert_eq!(a.before(b), i < j, "{a:?} before {b:?}");
        }
    }
}

#[test]
fn the_read_from_a_floor_seeks_its_priority_from_its_position_then_every_lower_one() {
    let text = from_floor("t.id", "AND t.queued_ns <= ?2", "/*lock*/");
    let (same, lower) = text.split_once(" UNION ALL ").unwrap();
    assert!(same.starts_with("SELECT s.* FROM queue_floors f CROSS JOIN LATERAL"));
    assert!(
        same.contains("t.priority = f.priority AND (t.queued_ns, t.id) >= (f.queued_ns, f.id)")
    );
    assert!(same.ends_with(" s WHERE f.tenant = ?1"));
    assert!(lower.contains(
        "(SELECT COALESCE(max(g.priority), 9223372036854775807) AS priority \
         FROM queue_floors g WHERE g.tenant = ?1) f CROSS JOIN LATERAL"
    ));
    assert!(lower.contains("AND t.priority < f.priority ORDER BY"));
    for part in [same, lower] {
        assert!(part.contains("AND t.phase = 'pending' AND t.queued_ns <= ?2 AND "));
        assert!(part.contains("ORDER BY t.priority DESC, t.queued_ns, t.id LIMIT 1 /*lock*/) s"));
    }
    assert!(lower.ends_with(" s LIMIT 1"));
}
