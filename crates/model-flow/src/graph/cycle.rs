//! Every cycle of a graph that could not be sorted: the strongly connected groups of jobs
//! (Pearce's form of Tarjan's algorithm, without recursion), and the shortest cycle through
//! the first declared job of each group (a breadth-first search inside the group).

use model_ids::JobName;

use super::{Edges, Name};
use crate::error::{FlowCycle, FlowError};
use crate::limits::MAX_REPORTED_CYCLES;

/// The error for a graph with cycles. `remaining[i] > 0` marks the jobs Kahn's algorithm
/// could not take: every cycle is among them, and so are the jobs after one.
pub(super) fn cycles<N: Name>(graph: &Edges, names: &[N], remaining: &[u32]) -> FlowError {
    let Groups {
        mut cyclic,
        mut mark,
    } = groups(graph, remaining);
    cyclic.sort_unstable();
    let unreported = cyclic.len().saturating_sub(MAX_REPORTED_CYCLES);
    let mut queue = Vec::new();
    let found = cyclic
        .iter()
        .take(MAX_REPORTED_CYCLES)
        .filter_map(|&(first, group)| {
            shortest_cycle(graph, names, &mut mark, &mut queue, first, group)
        })
        .collect();
    FlowError::Cycle {
        cycles: found,
        unreported,
    }
}

/// Marks a job whose group is closed: `CLOSED | group` is above every visit number, so a
/// closed job never lowers an open one's.
const CLOSED: u32 = 1 << 31;

// Visit numbers (from 1, at most one per job) stay below `CLOSED`.
const _: () = assert!(crate::limits::MAX_FLOW_JOBS < CLOSED as usize);

/// The groups of more than one job among the unsorted jobs, and each job's mark.
struct Groups {
    /// `(first declared job, group)` of each group of more than one job.
    cyclic: Vec<(u32, u32)>,
    /// Per job: 0 if never visited (every sorted job), `CLOSED | group` once its group is
    /// known.
    mark: Vec<u32>,
}

/// A job the depth-first search has entered and not left: the job, the rest of its
/// dependents to look at, and the lowest visit number it reaches so far (its own while it
/// is the first visited job of its group as far as the search has seen).
struct Frame<'g> {
    job: u32,
    rest: std::slice::Iter<'g, u32>,
    low: u32,
}

/// The strongly connected groups of the jobs with `remaining > 0`, following edges from a
/// job to its dependents (which are all unsorted too): Pearce's space-saving form of
/// Tarjan's algorithm, without recursion. One number per job serves as its visit number
/// while the search is in it, then as the lowest visit number it reaches while its group
/// is open, then as its group; the jobs whose group is still open wait on one stack. A job
/// reaching an open one takes its visit number, as in Tarjan's own form.
///
/// The job being searched is kept in locals, not on the stack of callers: the loop over
/// its dependents (most of the work) then touches no memory but the dependents and their
/// marks.
fn groups(graph: &Edges, remaining: &[u32]) -> Groups {
    let jobs = graph.jobs();
    let mut mark = vec![0u32; jobs];
    let mut waiting: Vec<u32> = Vec::new();
    let mut calls: Vec<Frame<'_>> = Vec::new();
    let mut cyclic = Vec::new();
    let mut visits = 0u32;
    let mut closed = 0u32;
    for (root, &left) in remaining.iter().enumerate() {
        let root = root as u32;
        if left == 0 || get(&mark, root) != 0 {
            continue;
        }
        visits += 1;
        set(&mut mark, root, visits);
        let mut current = Frame {
            job: root,
            rest: graph.outs_of(root as usize).iter(),
            low: visits,
        };
        loop {
            // Look at the current job's dependents until one is not visited yet: the
            // search goes into it, and comes back to the rest later.
            let mut unvisited = None;
            for &next in current.rest.by_ref() {
                match get(&mark, next) {
                    0 => {
                        unvisited = Some(next);
                        break;
                    }
                    reached => current.low = current.low.min(reached),
                }
            }
            if let Some(next) = unvisited {
                visits += 1;
                set(&mut mark, next, visits);
                let callee = Frame {
                    job: next,
                    rest: graph.outs_of(next as usize).iter(),
                    low: visits,
                };
                calls.push(std::mem::replace(&mut current, callee));
                continue;
            }
            let Frame { job, low, .. } = current;
            // Whether the caller's lowest visit number takes this job's.
            let open = if low == get(&mark, job) {
                // The first visited job of its group: the group is this job and the waiting
                // jobs visited after it.
                let group = CLOSED | closed;
                closed += 1;
                let mut first = job;
                let mut size = 1;
                while let Some(&member) = waiting.last() {
                    if get(&mark, member) < low {
                        break;
                    }
                    waiting.pop();
                    set(&mut mark, member, group);
                    first = first.min(member);
                    size += 1;
                }
                set(&mut mark, job, group);
                if size > 1 {
                    cyclic.push((first, group));
                }
                false
            } else {
                set(&mut mark, job, low);
                waiting.push(job);
                true
            };
            let Some(caller) = calls.pop() else {
                break;
            };
            current = caller;
            if open {
                current.low = current.low.min(low);
            }
        }
    }
    Groups { cyclic, mark }
}

/// `items[at]`, or 0 out of range.
fn get(items: &[u32], at: u32) -> u32 {
    items.get(at as usize).copied().unwrap_or(0)
}

/// `mark[job] = value`.
fn set(mark: &mut [u32], job: u32, value: u32) {
    if let Some(slot) = mark.get_mut(job as usize) {
        *slot = value;
    }
}

/// The shortest cycle through `start`, staying inside group `group` (the jobs whose `mark`
/// it is): a breadth-first search that keeps each job's parent in its mark while it runs
/// (a position, below every group's mark), and puts the group's mark back after.
fn shortest_cycle<N: Name>(
    graph: &Edges,
    names: &[N],
    mark: &mut [u32],
    queue: &mut Vec<u32>,
    start: u32,
    group: u32,
) -> Option<FlowCycle> {
    queue.clear();
    queue.push(start);
    let mut head = 0;
    let mut last = None;
    'search: while let Some(&job) = queue.get(head) {
        head += 1;
        for &next in graph.outs_of(job as usize) {
            if next == start {
                last = Some(job);
                break 'search;
            }
            if let Some(m) = mark.get_mut(next as usize)
                && *m == group
            {
                *m = job;
                queue.push(next);
            }
        }
    }
    let cycle = last.map(|last| path(graph, names, mark, start, last));
    for &job in queue.iter().skip(1) {
        set(mark, job, group);
    }
    cycle
}

/// The cycle `start -> ... -> last -> start` from the parent links in `mark`, with the
/// field path of `start`'s dependency on `last`.
fn path<N: Name>(graph: &Edges, names: &[N], mark: &[u32], start: u32, last: u32) -> FlowCycle {
    let mut back = vec![last];
    let mut job = last;
    while job != start {
        job = mark.get(job as usize).copied().unwrap_or(start);
        back.push(job);
    }
    let name = |j: u32| names.get(j as usize).map(|n| n.job_name().clone());
    let mut jobs: Vec<JobName> = back.iter().rev().filter_map(|&j| name(j)).collect();
    jobs.extend(name(start));
    let entry = graph
        .deps_of(start as usize)
        .iter()
        .position(|&d| d == last)
        .unwrap_or_default();
    FlowCycle::new(format!("jobs[{start}].dependsOn[{entry}]"), jobs)
}
