//! Every cycle of a graph that could not be sorted: the strongly connected groups of jobs
//! (Tarjan's algorithm, without recursion), and the shortest cycle through the first
//! declared job of each group (a breadth-first search inside the group).

use model_ids::JobName;

use super::{Edges, Name};
use crate::error::{FlowCycle, FlowError};
use crate::limits::MAX_REPORTED_CYCLES;

/// Marks a job not yet visited (positions are below `MAX_FLOW_JOBS`).
const NONE: u32 = u32::MAX;

/// The error for a graph with cycles. `remaining[i] > 0` marks the jobs Kahn's algorithm
/// could not take: every cycle is among them, and so are the jobs after one.
pub(super) fn cycles<N: Name>(graph: &Edges, names: &[N], remaining: &[u32]) -> FlowError {
    let groups = groups(graph, remaining);
    let mut cyclic: Vec<(u32, u32)> = groups
        .groups
        .iter()
        .enumerate()
        .filter(|(_, group)| group.size > 1)
        .map(|(id, group)| (group.first, id as u32))
        .collect();
    cyclic.sort_unstable();
    let unreported = cyclic.len().saturating_sub(MAX_REPORTED_CYCLES);
    let mut search = Search::new(graph.jobs());
    let found = cyclic
        .iter()
        .take(MAX_REPORTED_CYCLES)
        .filter_map(|&(first, group)| {
            search.shortest_cycle(graph, names, &groups.member_of, first, group)
        })
        .collect();
    FlowError::Cycle {
        cycles: found,
        unreported,
    }
}

/// One strongly connected group: its size and its first declared job.
struct Group {
    size: u32,
    first: u32,
}

/// The groups of the unsorted jobs, and which group each job is in (`NONE` for sorted jobs).
struct Groups {
    groups: Vec<Group>,
    member_of: Vec<u32>,
}

/// Tarjan's strongly connected components over the jobs with `remaining > 0`, following
/// edges from a job to its dependents (which are all unsorted too).
fn groups(graph: &Edges, remaining: &[u32]) -> Groups {
    let jobs = graph.jobs();
    let mut index = vec![NONE; jobs];
    let mut low = vec![0u32; jobs];
    let mut on_stack = vec![false; jobs];
    let mut stack: Vec<u32> = Vec::new();
    // The explicit call stack: a job and how many of its dependents were looked at.
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut member_of = vec![NONE; jobs];
    let mut groups = Vec::new();
    let mut next_index = 0u32;
    for root in 0..jobs {
        if remaining.get(root).is_none_or(|&r| r == 0) || index.get(root) != Some(&NONE) {
            continue;
        }
        visit(
            root as u32,
            &mut next_index,
            &mut index,
            &mut low,
            &mut on_stack,
            &mut stack,
        );
        calls.push((root as u32, 0));
        while let Some(&mut (job, ref mut seen)) = calls.last_mut() {
            let dependents = graph.outs_of(job as usize);
            if let Some(&next) = dependents.get(*seen) {
                *seen += 1;
                let n = next as usize;
                if index.get(n) == Some(&NONE) {
                    visit(
                        next,
                        &mut next_index,
                        &mut index,
                        &mut low,
                        &mut on_stack,
                        &mut stack,
                    );
                    calls.push((next, 0));
                } else if on_stack.get(n) == Some(&true) {
                    let reached = index.get(n).copied().unwrap_or(NONE);
                    lower(&mut low, job, reached);
                }
                continue;
            }
            calls.pop();
            let job_low = low.get(job as usize).copied().unwrap_or(NONE);
            if let Some(&(parent, _)) = calls.last() {
                lower(&mut low, parent, job_low);
            }
            if Some(&job_low) == index.get(job as usize) {
                let id = groups.len() as u32;
                let mut group = Group {
                    size: 0,
                    first: job,
                };
                while let Some(member) = stack.pop() {
                    if let Some(flag) = on_stack.get_mut(member as usize) {
                        *flag = false;
                    }
                    if let Some(slot) = member_of.get_mut(member as usize) {
                        *slot = id;
                    }
                    group.size += 1;
                    group.first = group.first.min(member);
                    if member == job {
                        break;
                    }
                }
                groups.push(group);
            }
        }
    }
    Groups { groups, member_of }
}

/// Gives `job` the next index and puts it on the stack.
fn visit(
    job: u32,
    next_index: &mut u32,
    index: &mut [u32],
    low: &mut [u32],
    on_stack: &mut [bool],
    stack: &mut Vec<u32>,
) {
    let j = job as usize;
    if let (Some(i), Some(l), Some(flag)) = (index.get_mut(j), low.get_mut(j), on_stack.get_mut(j))
    {
        *i = *next_index;
        *l = *next_index;
        *flag = true;
    }
    *next_index += 1;
    stack.push(job);
}

/// `low[job] = min(low[job], value)`.
fn lower(low: &mut [u32], job: u32, value: u32) {
    if let Some(l) = low.get_mut(job as usize) {
        *l = (*l).min(value);
    }
}

/// A breadth-first search reused across groups: its parent links are reset after each use.
struct Search {
    parent: Vec<u32>,
    queue: Vec<u32>,
}

impl Search {
    fn new(jobs: usize) -> Self {
        Self {
            parent: vec![NONE; jobs],
            queue: Vec::new(),
        }
    }

    /// The shortest cycle through `start`, staying inside group `group`.
    fn shortest_cycle<N: Name>(
        &mut self,
        graph: &Edges,
        names: &[N],
        member_of: &[u32],
        start: u32,
        group: u32,
    ) -> Option<FlowCycle> {
        self.queue.clear();
        self.queue.push(start);
        let mut head = 0;
        let mut last = None;
        'search: while let Some(&job) = self.queue.get(head) {
            head += 1;
            for &next in graph.outs_of(job as usize) {
                if next == start {
                    last = Some(job);
                    break 'search;
                }
                let fresh = self.parent.get(next as usize) == Some(&NONE);
                if fresh && member_of.get(next as usize) == Some(&group) {
                    if let Some(p) = self.parent.get_mut(next as usize) {
                        *p = job;
                    }
                    self.queue.push(next);
                }
            }
        }
        let cycle = last.map(|last| self.path(graph, names, start, last));
        for &job in &self.queue {
            if let Some(p) = self.parent.get_mut(job as usize) {
                *p = NONE;
            }
        }
        cycle
    }

    /// The cycle `start -> ... -> last -> start` from the parent links, with the field path
    /// of `start`'s dependency on `last`.
    fn path<N: Name>(&self, graph: &Edges, names: &[N], start: u32, last: u32) -> FlowCycle {
        let mut back = vec![last];
        let mut job = last;
        while job != start {
            job = self.parent.get(job as usize).copied().unwrap_or(start);
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
}
