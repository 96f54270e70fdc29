//! Every cycle of a graph that could not be sorted: the strongly connected groups of jobs
//! (Pearce's form of Tarjan's algorithm, without recursion; or, for a flow declared in order
//! but for a few dependencies, `back`'s passes), and the shortest cycle through the first
//! declared job of each group (a breadth-first search inside the group, from both ends).

use super::back::{self, Search};
use super::{Edges, Name};
use crate::error::{FlowCycle, FlowError};
use crate::limits::MAX_REPORTED_CYCLES;

/// The error for a graph with cycles. `remaining[i] > 0` marks the jobs Kahn's algorithm
/// could not take: every cycle is among them, and so are the jobs after one.
pub(super) fn cycles<N: Name>(graph: &Edges, names: &[N], mut remaining: Vec<u32>) -> FlowError {
    // The counts become the marks in place (no second array of a mark a job to allocate
    // and fault in): 0 for a job to search, `SORTED` for the others.
    for left in &mut remaining {
        *left = if *left == 0 { SORTED } else { 0 };
    }
    let mut mark = remaining;
    let cyclic = groups(graph, &mut mark);
    let (mut forward, mut backward) = (Vec::new(), Vec::new());
    report(graph, names, mark, cyclic, |mark, start, group| {
        let jobs = two_way(graph, mark, (&mut forward, &mut backward), start, group);
        for &job in forward.iter().chain(backward.iter()) {
            set(mark, job, group);
        }
        jobs
    })
}

/// The error for a graph whose lists are valid and whose dependencies on later jobs are
/// few enough for [`back::search`] and close a cycle, or nothing (the graph is to be
/// checked and sorted, and may still have cycles). The graph's dependents lists need not
/// be placed: the shortest cycles are found along the dependencies.
pub(super) fn nearly_in_order<N: Name>(graph: &Edges, names: &[N]) -> Option<FlowError> {
    match back::search(graph) {
        Search::Cyclic { mark, cyclic } => {
            Some(report(graph, names, mark, cyclic, |mark, start, group| {
                back::shortest(graph, mark, start, group)
            }))
        }
        Search::Acyclic | Search::Unsearched => None,
    }
}

/// The error for the groups `cyclic` (each as `(first declared job, group)`), whose jobs
/// are marked `group` in `mark` (and no other job is): for each group, by first job, the
/// cycle `shortest(mark, first, group)` gives (its jobs from `first` back to it), which
/// puts back every mark it changes.
fn report<N: Name>(
    graph: &Edges,
    names: &[N],
    mut mark: Vec<u32>,
    mut cyclic: Vec<(u32, u32)>,
    mut shortest: impl FnMut(&mut [u32], u32, u32) -> Option<Vec<u32>>,
) -> FlowError {
    cyclic.sort_unstable();
    let unreported = cyclic.len().saturating_sub(MAX_REPORTED_CYCLES);
    let name = |j: &u32| names.get(*j as usize).map(|n| n.job_name().clone());
    let found = cyclic
        .iter()
        .take(MAX_REPORTED_CYCLES)
        .filter_map(|&(start, group)| {
            let jobs = shortest(&mut mark, start, group)?;
            let last = jobs.iter().rev().nth(1).copied().unwrap_or(start);
            let entry = graph
                .deps_of(start as usize)
                .iter()
                .position(|&d| d == last)
                .unwrap_or_default();
            Some(FlowCycle::new(
                format!("jobs[{start}].dependsOn[{entry}]"),
                jobs.iter().filter_map(name).collect(),
            ))
        })
        .collect();
    FlowError::Cycle {
        cycles: found,
        unreported,
    }
}

/// Marks a job whose group is closed: `CLOSED | group` is above every visit number, so a
/// closed job never lowers an open one's.
pub(super) const CLOSED: u32 = 1 << 31;

// Visit numbers (from 1, at most one per job) stay below `CLOSED`.
const _: () = assert!(crate::limits::MAX_FLOW_JOBS < CLOSED as usize);

/// The mark of a sorted job: above every visit number and no group's.
pub(super) const SORTED: u32 = u32::MAX;

/// A job the depth-first search has entered and not left: the job, the rest of its
/// dependents to look at, and the lowest visit number it reaches so far (its own while it
/// is the first visited job of its group as far as the search has seen).
struct Frame<'g> {
    job: u32,
    rest: std::slice::Iter<'g, u32>,
    low: u32,
}

/// The strongly connected groups of the jobs whose `mark` is 0 (the unsorted ones), as
/// `(first declared job, group)` for each group of more than one job, following edges from
/// a job to its dependents (which are all unsorted too), each job's mark `CLOSED | group`
/// after: Pearce's space-saving form of
/// Tarjan's algorithm, without recursion. One number per job serves as its visit number
/// while the search is in it, then as the lowest visit number it reaches while its group
/// is open, then as its group; the jobs whose group is still open wait on one stack. A job
/// reaching an open one takes its visit number, as in Tarjan's own form.
///
/// The job being searched is kept in locals, not on the stack of callers: the loop over
/// its dependents (most of the work) then touches no memory but the dependents and their
/// marks.
pub(super) fn groups(graph: &Edges, mark: &mut [u32]) -> Vec<(u32, u32)> {
    let mut waiting: Vec<u32> = Vec::new();
    let mut calls: Vec<Frame<'_>> = Vec::new();
    let mut cyclic = Vec::new();
    let mut visits = 0u32;
    let mut closed = 0u32;
    for root in 0..mark.len() as u32 {
        if get(mark, root) != 0 {
            continue;
        }
        visits += 1;
        set(mark, root, visits);
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
                match get(mark, next) {
                    0 => {
                        unvisited = Some(next);
                        break;
                    }
                    reached => current.low = current.low.min(reached),
                }
            }
            if let Some(next) = unvisited {
                visits += 1;
                set(mark, next, visits);
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
            let open = if low == get(mark, job) {
                // The first visited job of its group: the group is this job and the waiting
                // jobs visited after it.
                let group = CLOSED | closed;
                closed += 1;
                let mut first = job;
                let mut size = 1;
                while let Some(&member) = waiting.last() {
                    if get(mark, member) < low {
                        break;
                    }
                    waiting.pop();
                    set(mark, member, group);
                    first = first.min(member);
                    size += 1;
                }
                set(mark, job, group);
                if size > 1 {
                    cyclic.push((first, group));
                }
                false
            } else {
                set(mark, job, low);
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
    cyclic
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

/// Marks of a group's jobs while a two-way search runs: reached forward from the start
/// (with the number of steps), reached backward (with the steps to the start), on both
/// sides' last layers, and reached forward and on a shortest cycle. All are below
/// `CLOSED` and not 0, so no group's mark nor a sorted job's.
const FORWARD: u32 = 1 << 28;
const BACKWARD: u32 = 1 << 29;
const MEETING: u32 = 1 << 30;
const ON_CYCLE: u32 = 1 << 27;

// Steps (at most one per job) stay below the lowest of those bits.
const _: () = assert!(crate::limits::MAX_FLOW_JOBS < ON_CYCLE as usize);

/// One side of [`two_way`]'s search taking a step: the search's start and group, the mark
/// it gives the jobs it reaches, and the mark of the other side's last layer.
struct Side {
    start: u32,
    group: u32,
    reached: u32,
    other: u32,
}

impl Side {
    /// The side that marks the jobs it reaches `reached`, against the other side's last
    /// layer, marked `other`.
    const fn new((start, group): (u32, u32), reached: u32, other: u32) -> Self {
        Self {
            start,
            group,
            reached,
            other,
        }
    }

    /// Takes one layer: each job of `jobs[layer]` looks at its neighbours (`next`, the
    /// dependents going forward, the dependencies going back); a job of the group not yet
    /// reached joins `jobs` with [`reached`](Self::reached), and a job of the other side's
    /// last layer is where the sides meet (marked [`MEETING`]), as is the start when the
    /// other side has not left it (its last layer is the start's own mark, step 0).
    /// Whether the sides met.
    fn layer<'g>(
        &self,
        jobs: &mut Vec<u32>,
        layer: std::ops::Range<usize>,
        next: impl Fn(usize) -> &'g [u32],
        mark: &mut [u32],
    ) -> bool {
        let other_at_start = self.other & !(FORWARD | BACKWARD) == 0;
        let mut met = false;
        for at in layer {
            let job = jobs.get(at).copied().unwrap_or(self.start);
            for &other in next(job as usize) {
                if other == self.start {
                    met |= other_at_start;
                } else if let Some(m) = mark.get_mut(other as usize) {
                    if *m == self.group {
                        *m = self.reached;
                        jobs.push(other);
                    } else if *m == self.other {
                        *m = MEETING;
                        met = true;
                    }
                }
            }
        }
        met
    }
}

/// The jobs of the shortest cycle through `start`, from `start` back to it, staying inside
/// group `group` (the jobs whose `mark` it is), and of those the one a breadth-first
/// search from `start` finds: the first cycle in the order that compares two cycles by
/// their steps' places in the dependents lists (a search takes a job's dependents in
/// order, and the first to reach a job is its parent). Nothing when no cycle goes through
/// `start`. Leaves its marks on the jobs it puts in `forward` and `backward` (which it
/// clears first, and starts with `start`).
///
/// A search from `start` alone would see most of a big group before it came back (about
/// 90,000 jobs in a flow of 100,000 with one cycle). This one searches forward from
/// `start` and backward to it, a layer at a time, on the side with the smaller last
/// layer, until the two meet: that gives the length, after far fewer jobs. The jobs
/// forward that lie on a shortest cycle are then marked, last layer first, and the cycle
/// is walked from `start`, each step the first dependent on a shortest cycle.
fn two_way(
    graph: &Edges,
    mark: &mut [u32],
    (forward, backward): (&mut Vec<u32>, &mut Vec<u32>),
    start: u32,
    group: u32,
) -> Option<Vec<u32>> {
    forward.clear();
    forward.push(start);
    backward.clear();
    backward.push(start);
    // Where each forward layer starts in `forward`, and the last backward layer's start.
    let mut layers = vec![0usize];
    let mut behind = 0;
    // Steps taken forward and backward; the sides meet after `ahead + back` in all.
    let (mut ahead, mut back) = (0u32, 0u32);
    let mut met = false;
    while !met {
        let last_forward = forward.len() - layers.last().copied().unwrap_or(0);
        let last_backward = backward.len() - behind;
        if last_forward == 0 || last_backward == 0 {
            return None;
        }
        if last_forward <= last_backward {
            let from = layers.last().copied().unwrap_or(0);
            let to = forward.len();
            let side = Side::new((start, group), FORWARD | (ahead + 1), BACKWARD | back);
            met = side.layer(forward, from..to, |job| graph.outs_of(job), mark);
            layers.push(to);
            ahead += 1;
        } else {
            let to = backward.len();
            let side = Side::new((start, group), BACKWARD | (back + 1), FORWARD | ahead);
            met = side.layer(backward, behind..to, |job| graph.deps_of(job), mark);
            behind = to;
            back += 1;
        }
    }
    let length = ahead + back;
    // Where the sides met: `start` itself when the backward side took no step.
    let meets = |job: u32, mark: &[u32]| {
        get(mark, job) == MEETING || (back == 0 && job == start && ahead > 0)
    };
    // The forward jobs on a shortest cycle, from the layer before the meeting back.
    for step in (1..ahead).rev() {
        let from = layers.get(step as usize).copied().unwrap_or(0);
        let to = layers.get(step as usize + 1).copied().unwrap_or(0);
        for at in from..to {
            let job = forward.get(at).copied().unwrap_or(start);
            let on = graph.outs_of(job as usize).iter().any(|&next| {
                if step + 1 == ahead {
                    meets(next, mark)
                } else {
                    get(mark, next) == FORWARD | ON_CYCLE | (step + 1)
                }
            });
            if on {
                set(mark, job, FORWARD | ON_CYCLE | step);
            }
        }
    }
    // The walk: at each step the first dependent that lies on a shortest cycle.
    let mut cycle = vec![start];
    let mut job = start;
    for step in 1..=length {
        let next = graph.outs_of(job as usize).iter().copied().find(|&next| {
            if step == length {
                next == start
            } else if step < ahead {
                get(mark, next) == FORWARD | ON_CYCLE | step
            } else if step == ahead {
                meets(next, mark)
            } else {
                get(mark, next) == BACKWARD | (length - step)
            }
        })?;
        cycle.push(next);
        job = next;
    }
    Some(cycle)
}
