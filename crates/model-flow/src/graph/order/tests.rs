//! Unit tests for `order`: the ready set gives its smallest position first; the search for a
//! cycle finds one exactly when there is one.

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

/// `(dep_start, deps)` of jobs given as their dependencies' positions.
fn lists(jobs: &[&[u32]]) -> (Vec<u32>, Vec<u32>) {
    let mut dep_start = vec![0];
    let mut deps = Vec::new();
    for list in jobs {
        deps.extend_from_slice(list);
        dep_start.push(deps.len() as u32);
    }
    (dep_start, deps)
}

#[test]
fn a_cycle_is_found_wherever_the_search_meets_it() {
    let table: &[(&[&[u32]], bool)] = &[
        (&[&[], &[0], &[1, 0]], false),
        // Out of declaration order, no cycle.
        (&[&[2], &[0], &[]], false),
        // A job reached twice, by two paths: no cycle.
        (&[&[1, 2], &[3], &[3], &[]], false),
        (&[&[1], &[0]], true),
        (&[&[0]], true),
        // A cycle below the job the search started from.
        (&[&[1], &[2], &[1]], true),
        // The cycle away from the first jobs, behind a job already left.
        (&[&[], &[0], &[3, 0], &[4], &[2]], true),
        // An entry naming no job is passed over.
        (&[&[u32::MAX], &[0]], false),
    ];
    for (jobs, cyclic) in table {
        let (dep_start, deps) = lists(jobs);
        assert_eq!(has_cycle(&dep_start, &deps), *cyclic, "{jobs:?}");
    }
}
