//! Property test on random graphs with several cycles and long tails (chains of jobs leading
//! into and out of them): the cycle error is exactly the one a plain reference gives, group
//! by group in order of their first declared jobs, each with the shortest cycle through that
//! job and, of the shortest, the one that takes at each step the first declared dependent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use model_flow::{FlowError, FlowGraph, JobNames, MAX_REPORTED_CYCLES, TriggerRule};
use model_ids::JobName;
use proptest::prelude::*;

mod common;
use common::reaches;

/// A graph of 2 to 60 jobs: `deps[i]` are the positions job `i` depends on. Most jobs
/// depend on the one before (long chains) and on a few earlier ones; extra edges, in
/// either direction (half of them a few jobs forward, for many small cycles), close cycles
/// through those chains.
fn graph() -> impl Strategy<Value = Vec<Vec<usize>>> {
    (2usize..=60)
        .prop_flat_map(|n| {
            let chained = proptest::collection::vec(proptest::bool::weighted(0.8), n);
            let earlier = proptest::collection::vec(proptest::collection::vec(0..n, 0..3), n);
            let extra = proptest::collection::vec((0..n, 0..n, any::<bool>()), 1..=n / 2 + 1);
            (chained, earlier, extra)
        })
        .prop_map(|(chained, earlier, extra)| {
            let n = chained.len();
            let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
            for i in 1..n {
                if chained[i] {
                    deps[i].push(i - 1);
                }
                for &d in &earlier[i] {
                    let d = d % i;
                    if !deps[i].contains(&d) {
                        deps[i].push(d);
                    }
                }
            }
            for (a, b, short) in extra {
                // A short edge forward closes a small cycle over a chain.
                let b = if short { (a + 1 + b % 3).min(n - 1) } else { b };
                if a != b && !deps[a].contains(&b) {
                    deps[a].push(b);
                }
            }
            deps
        })
}

/// The groups of jobs that reach each other (more than one job each), as their first
/// declared job and members, by first job.
fn groups(deps: &[Vec<usize>]) -> Vec<(usize, Vec<usize>)> {
    let n = deps.len();
    let reach = reaches(deps);
    (0..n)
        .map(|i| {
            (
                i,
                (0..n)
                    .filter(|&j| reach[i][j] && reach[j][i])
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(i, members)| members.len() > 1 && members[0] == *i)
        .collect()
}

/// The shortest cycle through `start` inside `group`, and of those the one that takes at
/// each step the first declared dependent on a shortest cycle: each job's steps back to
/// `start` (a breadth-first search along dependencies), then the walk from `start`.
fn shortest(deps: &[Vec<usize>], group: &[usize], start: usize) -> Vec<usize> {
    let n = deps.len();
    let mut to_start = vec![usize::MAX; n];
    to_start[start] = 0;
    let mut layer = vec![start];
    while !layer.is_empty() {
        let mut next = Vec::new();
        for &job in &layer {
            for &d in &deps[job] {
                if group.contains(&d) && to_start[d] == usize::MAX {
                    to_start[d] = to_start[job] + 1;
                    next.push(d);
                }
            }
        }
        layer = next;
    }
    let dependents = |x: usize| (0..n).filter(move |&y| deps[y].contains(&x));
    let length = 1 + dependents(start)
        .filter(|y| group.contains(y))
        .map(|y| to_start[y])
        .min()
        .unwrap();
    let mut cycle = vec![start];
    let mut job = start;
    for step in 1..length {
        job = dependents(job)
            .find(|&y| group.contains(&y) && to_start[y] == length - step)
            .unwrap();
        cycle.push(job);
    }
    cycle.push(start);
    cycle
}

/// `deps` after 130 jobs of which every other one depends on the job after it: 65
/// dependencies on later jobs that close no cycle, more than the graph's search for a flow
/// nearly in order takes, so the flow is sorted first and its cycles searched after.
fn after_many_later_dependencies(deps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const LADDER: usize = 130;
    let mut all: Vec<Vec<usize>> = (0..LADDER)
        .map(|i| if i % 2 == 0 { vec![i + 1] } else { Vec::new() })
        .collect();
    all.extend(
        deps.iter()
            .map(|ds| ds.iter().map(|&d| d + LADDER).collect()),
    );
    all
}

/// The cycle error of the flow of `deps` is exactly the reference one.
fn check(deps: &[Vec<usize>]) -> Result<(), TestCaseError> {
    let names: Vec<JobName> = (0..deps.len())
        .map(|i| JobName::new(format!("j{i}")).unwrap())
        .collect();
    let lists: Vec<JobNames> = deps
        .iter()
        .map(|ds| JobNames::from_iter(ds.iter().map(|&d| &names[d])))
        .collect();
    let built = FlowGraph::new(
        names
            .iter()
            .zip(&lists)
            .map(|(name, list)| (name, list, TriggerRule::AllSucceeded)),
    );
    let expected = groups(deps);
    let Err(err) = built else {
        prop_assert!(expected.is_empty(), "no cycle found, but {expected:?}");
        return Ok(());
    };
    let FlowError::Cycle { cycles, unreported } = &err else {
        panic!("{err}");
    };
    prop_assert_eq!(
        *unreported,
        expected.len().saturating_sub(MAX_REPORTED_CYCLES)
    );
    let shown: Vec<(String, Vec<String>)> = cycles
        .iter()
        .map(|c| {
            (
                c.path().to_string(),
                c.jobs().iter().map(ToString::to_string).collect(),
            )
        })
        .collect();
    let reference: Vec<(String, Vec<String>)> = expected
        .iter()
        .take(MAX_REPORTED_CYCLES)
        .map(|(first, group)| {
            let cycle = shortest(deps, group, *first);
            let last = cycle[cycle.len() - 2];
            let entry = deps[*first].iter().position(|&d| d == last).unwrap();
            (
                format!("jobs[{first}].dependsOn[{entry}]"),
                cycle.iter().map(|&j| format!("j{j}")).collect(),
            )
        })
        .collect();
    prop_assert_eq!(shown, reference);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Each graph as generated (with few dependencies on later jobs, so its cycles are
    /// found from those), and after many such dependencies that close no cycle (so it is
    /// sorted first, and its cycles searched among the jobs left).
    #[test]
    fn the_cycle_error_is_exactly_the_reference_one(deps in graph()) {
        check(&deps)?;
        check(&after_many_later_dependencies(&deps))?;
    }
}
