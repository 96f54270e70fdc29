//! The dependents lists and the topological order (Kahn's algorithm with a min-heap on
//! declaration positions), with each job's level.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::FlowGraph;

/// The result of sorting: the order of the jobs that could be sorted, every job's level,
/// and how many unsorted dependencies each job still has (non-zero only on and after cycles).
pub(super) struct Sorted {
    pub(super) order: Vec<u32>,
    pub(super) levels: Vec<u32>,
    pub(super) remaining: Vec<u32>,
}

/// The dependents of each of `jobs` jobs as a compressed list: `(out_start, outs)`, each
/// job's dependents ascending (they are filled in job order).
pub(super) fn dependents(jobs: usize, dep_start: &[u32], deps: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut out_start = vec![0u32; jobs + 1];
    for &d in deps {
        if let Some(count) = out_start.get_mut(d as usize + 1) {
            *count += 1;
        }
    }
    for i in 0..jobs {
        let before = out_start.get(i).copied().unwrap_or_default();
        if let Some(slot) = out_start.get_mut(i + 1) {
            *slot += before;
        }
    }
    let mut fill = out_start.clone();
    let mut outs = vec![0u32; deps.len()];
    for i in 0..jobs {
        let from = dep_start.get(i).map_or(0, |&s| s as usize);
        let to = dep_start.get(i + 1).map_or(0, |&s| s as usize);
        for &d in deps.get(from..to).unwrap_or_default() {
            if let Some(next) = fill.get_mut(d as usize) {
                if let Some(slot) = outs.get_mut(*next as usize) {
                    *slot = i as u32;
                }
                *next += 1;
            }
        }
    }
    (out_start, outs)
}

/// Kahn's algorithm: repeatedly takes, of the jobs whose dependencies are all taken, the
/// one declared first. Jobs on or after a cycle are never taken.
pub(super) fn topological(graph: &FlowGraph) -> Sorted {
    let jobs = graph.names.len();
    // Per job: dependencies not yet taken, and level so far (one cache line serves both).
    let mut pending: Vec<(u32, u32)> = (0..jobs)
        .map(|i| (graph.deps_of(i).len() as u32, 0))
        .collect();
    let mut order = Vec::with_capacity(jobs);
    let mut ready: BinaryHeap<Reverse<u32>> = pending
        .iter()
        .enumerate()
        .filter(|&(_, &(count, _))| count == 0)
        .map(|(i, _)| Reverse(i as u32))
        .collect();
    while let Some(Reverse(job)) = ready.pop() {
        order.push(job);
        let next_level = pending.get(job as usize).map_or(0, |&(_, level)| level) + 1;
        for &dependent in graph.outs_of(job as usize) {
            if let Some((count, level)) = pending.get_mut(dependent as usize) {
                *level = (*level).max(next_level);
                *count -= 1;
                if *count == 0 {
                    ready.push(Reverse(dependent));
                }
            }
        }
    }
    let (remaining, levels) = pending.into_iter().unzip();
    Sorted {
        order,
        levels,
        remaining,
    }
}
