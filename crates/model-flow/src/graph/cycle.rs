//! Every cycle of a graph that has one: the strongly connected groups of jobs (Pearce's form
//! of Tarjan's algorithm, without recursion), and the shortest cycle through the first
//! declared job of each group (a breadth-first search inside the group). Both follow the
//! dependencies lists, so a graph with a cycle is mostly reported before its dependents
//! lists are placed: they are placed only when a search from one end grows large, for a
//! search from both ends.

use super::{Edges, Name};
use crate::error::{FlowCycle, FlowError};
use crate::limits::MAX_REPORTED_CYCLES;

/// The strongly connected groups of a graph's jobs ([`Groups::find`]), for the error of a
/// graph with cycles ([`Groups::report`]).
pub(super) struct Groups {
    /// Each job's mark: `CLOSED | group`.
    mark: Vec<u32>,
    /// `(first declared job, group)` of each group of more than one job.
    cyclic: Vec<(u32, u32)>,
}

impl Groups {
    /// The groups of `graph`'s jobs (following the dependencies lists alone), and whether
    /// some job's dependencies may have a problem `check` reports (never `false` when one
    /// has), seen in passing ([`groups`]).
    pub(super) fn find(graph: &Edges) -> (Self, bool) {
        let mut mark = vec![0; graph.jobs()];
        let (cyclic, problem) = groups::<true>(graph, &mut mark);
        (Self { mark, cyclic }, problem)
    }

    /// The groups of the jobs Kahn's algorithm could not take (`remaining[i] > 0`: every
    /// cycle is among them, and so are the jobs after one), for a graph whose lists have
    /// no problem and whose dependents lists are placed.
    pub(super) fn among(graph: &Edges, mut remaining: Vec<u32>) -> Self {
        // The counts become the marks in place: 0 for a job to search, `SORTED` for the
        // others (above every visit number, and no group's).
        for left in &mut remaining {
            *left = if *left == 0 { SORTED } else { 0 };
        }
        let mut mark = remaining;
        let (cyclic, _) = groups::<false>(graph, &mut mark);
        Self { mark, cyclic }
    }

    /// The error for a graph with cycles and no problem in its dependencies: the shortest
    /// cycle through the first declared job of each of the first [`MAX_REPORTED_CYCLES`]
    /// groups. The dependents lists are placed in `graph` (when it has none yet) only if a
    /// search from one end alone grows past one job in [`SEARCH_BUDGET`] and the search
    /// from both ends needs them.
    pub(super) fn report<N: Name>(self, graph: &mut Edges, names: &[N]) -> FlowError {
        let Self {
            mut mark,
            mut cyclic,
        } = self;
        report(graph, names, &mut mark, &mut cyclic)
    }
}

/// [`Groups::report`].
fn report<N: Name>(
    graph: &mut Edges,
    names: &[N],
    mark: &mut [u32],
    cyclic: &mut [(u32, u32)],
) -> FlowError {
    cyclic.sort_unstable();
    let unreported = cyclic.len().saturating_sub(MAX_REPORTED_CYCLES);
    let mut reached = Vec::new();
    let (mut forward, mut backward) = (Vec::new(), Vec::new());
    // With the dependents lists already placed, the search from both ends at once.
    let budget = if graph.out_start.is_empty() {
        mark.len() / SEARCH_BUDGET
    } else {
        0
    };
    let mut found = Vec::new();
    for &(first, group) in cyclic.iter().take(MAX_REPORTED_CYCLES) {
        let searched = search(graph, mark, &mut reached, (first, group), budget);
        for &(job, _) in &reached {
            set(mark, job, group);
        }
        let jobs = match searched {
            Ok(jobs) => jobs,
            Err(()) => {
                if graph.out_start.is_empty() {
                    let (out_start, outs, _) =
                        super::order::dependents(graph.jobs(), &graph.dep_start, &graph.deps);
                    (graph.out_start, graph.outs) = (out_start, outs);
                }
                let jobs = two_way(graph, mark, (&mut forward, &mut backward), first, group);
                for &job in forward.iter().chain(backward.iter()) {
                    set(mark, job, group);
                }
                jobs
            }
        };
        found.extend(jobs.map(|jobs| cycle_of(graph, names, first, &jobs)));
    }
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

/// The mark of a job [`Groups::among`] leaves out: above every visit number and no group's.
const SORTED: u32 = u32::MAX;

/// A job the depth-first search has entered and not left: the job, the rest of its
/// dependencies to look at, the lowest visit number it reaches so far (its own while it
/// is the first visited job of its group as far as the search has seen), and a mask of
/// the low six bits of the dependencies looked at, with whether two of them met in it or
/// one was the job (then the job's list may name the job or repeat an entry).
struct Frame<'g> {
    job: u32,
    rest: std::slice::Iter<'g, u32>,
    low: u32,
    mask: u64,
    suspect: bool,
}

impl<'g> Frame<'g> {
    /// The search entering `job`, its `visit`th job, along its dependencies or (when
    /// `!ALONG_DEPENDENCIES`) its dependents.
    fn enter<const ALONG_DEPENDENCIES: bool>(graph: &'g Edges, job: u32, visit: u32) -> Self {
        let next = if ALONG_DEPENDENCIES {
            graph.deps_of(job as usize)
        } else {
            graph.outs_of(job as usize)
        };
        Self {
            job,
            rest: next.iter(),
            low: visit,
            mask: 0,
            suspect: false,
        }
    }
}

/// A job's bit in a [`Frame`]'s mask.
fn bit(job: u32) -> u64 {
    1 << (job & 63)
}

/// The longest list whose entries [`groups`] compares pair by pair (when its mask says it
/// may name its job or repeat one); a longer one is left to `check`, so that the search
/// stays linear.
const PAIRWISE: usize = 16;

/// Whether `list`, job `job`'s dependencies, may name the job or repeat an entry (never
/// `false` when it does).
fn names_itself_or_twice(list: &[u32], job: u32) -> bool {
    if list.len() > PAIRWISE {
        return true;
    }
    let mut found = false;
    for (k, &dep) in list.iter().enumerate() {
        found |= dep == job;
        for &later in list.iter().skip(k + 1) {
            found |= dep == later;
        }
    }
    found
}

/// The strongly connected groups of the jobs whose `mark` is 0 (the others' is [`SORTED`],
/// and none of those depends on one of these), as `(first declared job, group)` for each
/// group of more than one job, following edges from a job to its dependencies with
/// `CHECK`, else (the lists checked and the dependents lists placed) to its dependents (the
/// groups are the same either way), each job's mark `CLOSED | group` after: Pearce's
/// space-saving form of
/// Tarjan's algorithm, without recursion. One number per job serves as its visit number
/// while the search is in it, then as the lowest visit number it reaches while its group
/// is open, then as its group; the jobs whose group is still open wait on one stack. A job
/// reaching an open one takes its visit number, as in Tarjan's own form.
///
/// The job being searched is kept in locals, not on the stack of callers: the loop over
/// its dependencies (most of the work) then touches no memory but the dependencies and
/// their marks.
///
/// Every list is read once here, so with `CHECK` the search also says whether some job's
/// dependencies may have a problem `check` reports (the second value, never `false` when
/// one has): an entry naming no job, and a list its mask says may name its job or repeat
/// an entry ([`names_itself_or_twice`] on it when the search leaves its job).
fn groups<const CHECK: bool>(graph: &Edges, mark: &mut [u32]) -> (Vec<(u32, u32)>, bool) {
    let mut problem = false;
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
        let mut current = Frame::enter::<CHECK>(graph, root, visits);
        loop {
            // Look at the current job's dependencies until one is not visited yet: the
            // search goes into it, and comes back to the rest later.
            let mut unvisited = None;
            let (mut low, mut mask, mut suspect) = (current.low, current.mask, current.suspect);
            for &next in current.rest.by_ref() {
                if CHECK {
                    suspect |= (mask & bit(next) != 0) | (next == current.job);
                    mask |= bit(next);
                }
                match mark.get(next as usize) {
                    Some(0) => {
                        unvisited = Some(next);
                        break;
                    }
                    Some(&reached) => low = low.min(reached),
                    // An entry naming no job.
                    None => problem = true,
                }
            }
            (current.low, current.mask, current.suspect) = (low, mask, suspect);
            if let Some(next) = unvisited {
                visits += 1;
                set(mark, next, visits);
                let callee = Frame::enter::<CHECK>(graph, next, visits);
                calls.push(std::mem::replace(&mut current, callee));
                continue;
            }
            let Frame {
                job, low, suspect, ..
            } = current;
            problem |= CHECK && suspect && names_itself_or_twice(graph.deps_of(job as usize), job);
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
    (cyclic, problem)
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

/// The mark of a job of the group a search has reached, with its place in the search's
/// list of reached jobs (below `CLOSED` and not 0: no group's mark nor a sorted job's).
const REACHED: u32 = 1 << 30;

// Places (at most one per job) stay below that bit.
const _: () = assert!(crate::limits::MAX_FLOW_JOBS < REACHED as usize);

/// A search from one end alone gives up past one job in this many of the flow's: then the
/// dependents lists are placed for a search from both ends (a search from `start` alone
/// sees most of a big group before it comes back, 88,000 jobs in a flow of 100,000 with one
/// cycle, for 13 M instructions; placing the lists costs 10 to 12 M).
const SEARCH_BUDGET: usize = 16;

/// The cycle error's entry for the cycle `jobs` through `start` (from `start` back to it).
fn cycle_of<N: Name>(graph: &Edges, names: &[N], start: u32, jobs: &[u32]) -> FlowCycle {
    let last = jobs.iter().rev().nth(1).copied().unwrap_or(start);
    let entry = graph
        .deps_of(start as usize)
        .iter()
        .position(|&d| d == last)
        .unwrap_or_default();
    let name = |j: &u32| names.get(*j as usize).map(|n| n.job_name().clone());
    FlowCycle::new(
        format!("jobs[{start}].dependsOn[{entry}]"),
        jobs.iter().filter_map(name).collect(),
    )
}

/// The shortest cycle through `start`, staying inside group `group` (the jobs whose `mark`
/// it is), and of those the first in the order that compares two cycles by their steps'
/// places in the dependents lists (each step, of the dependents on a shortest cycle, the
/// first declared), from `start` back to it; nothing when no cycle goes through `start`;
/// `Err` past `budget` jobs reached. Leaves its marks on the jobs it puts in `reached`
/// (which it clears first, and starts with `start`), each with the first declared job of
/// the layer before that depends on it.
///
/// A breadth-first search from `start` backwards (along dependencies) reaches the jobs a
/// layer at a time (layer `k`: `k` steps from the job to `start`), until jobs of the last
/// layer depend on `start`: they close the shortest cycles. For each job reached it keeps
/// the first declared job of the layer before that depends on it, so the cycle is walked
/// from `start` by those, from the first declared job that closes one.
fn search(
    graph: &Edges,
    mark: &mut [u32],
    reached: &mut Vec<(u32, u32)>,
    (start, group): (u32, u32),
    budget: usize,
) -> Result<Option<Vec<u32>>, ()> {
    reached.clear();
    reached.push((start, start));
    set(mark, start, REACHED);
    // The first declared job that depends on `start` in the last layer searched.
    let mut closing = None::<u32>;
    let mut steps = 0;
    let mut from = 0;
    while closing.is_none() {
        let to = reached.len();
        if from == to {
            return Ok(None);
        }
        if to > budget {
            return Err(());
        }
        for at in from..to {
            let job = reached.get(at).map_or(start, |&(job, _)| job);
            for &dep in graph.deps_of(job as usize) {
                let Some(m) = mark.get_mut(dep as usize) else {
                    continue;
                };
                if dep == start {
                    closing = Some(closing.map_or(job, |c| c.min(job)));
                } else if *m == group {
                    *m = REACHED | reached.len() as u32;
                    reached.push((dep, job));
                } else if *m >= REACHED | to as u32
                    && *m < CLOSED
                    && let Some((_, first)) = reached.get_mut((*m & !REACHED) as usize)
                {
                    // Reached in this layer already: by the first declared job.
                    *first = (*first).min(job);
                }
            }
        }
        steps += 1;
        from = to;
    }
    let mut cycle = Vec::with_capacity(steps + 1);
    cycle.push(start);
    let mut job = closing.unwrap_or(start);
    while job != start {
        cycle.push(job);
        let at = get(mark, job) & !REACHED;
        job = reached.get(at as usize).map_or(start, |&(_, first)| first);
    }
    cycle.push(start);
    Ok(Some(cycle))
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

/// [`shortest_cycle`]'s search: the cycle's jobs from `start` back to it, or nothing when
/// no cycle goes through `start`. Leaves its marks on the jobs it puts in `forward` and
/// `backward` (which it clears first, and starts with `start`).
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
