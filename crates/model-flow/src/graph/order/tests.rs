//! Unit tests for `order`: the ready set gives its smallest position first.

use super::*;

#[test]
fn the_ready_set_gives_its_smallest_first() {
    let mut set = ReadySet::new(MAX_FLOW_JOBS);
    for p in [99_999, 0, 64, 63, 4_096, 4_095, 70_000, 65] {
        set.insert(p);
    }
    let mut popped = Vec::new();
    while let Some(p) = set.pop_first() {
        popped.push(p);
        // A smaller position inserted while popping comes out next.
        if p == 4_096 {
            set.insert(5);
        }
    }
    assert_eq!(popped, [0, 63, 64, 65, 4_095, 4_096, 5, 70_000, 99_999]);
    assert_eq!(set.pop_first(), None);
    let mut tiny = ReadySet::new(1);
    tiny.insert(0);
    assert_eq!(tiny.pop_first(), Some(0));
    assert_eq!(tiny.pop_first(), None);
}
