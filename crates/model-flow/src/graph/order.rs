//! The dependents lists and the topological order (Kahn's algorithm, taking the first
//! declared ready job from a three-level bitmap of positions), with each job's level.

use super::Edges;
use crate::limits::{MAX_FLOW_JOBS, MAX_JOB_DEPENDENCIES};

/// The result of sorting every job: the order (nothing when it is declaration order) and
/// every job's level.
pub(super) struct Sorted {
    pub(super) order: Vec<u32>,
    pub(super) levels: Vec<u32>,
}

/// The dependents of each of `jobs` jobs as a compressed list: `(out_start, outs)`, each
/// job's dependents ascending, and whether some job's dependencies have a problem. Each
/// job's end is counted first, and then the jobs are placed from the last, each in front
/// of those after it, so the ends become the starts.
///
/// The placing sees every problem `check` looks for in passing, for a compare or two a
/// dependency (where a pass of its own cost about 15 instructions one): an unknown name
/// (no list to go in), the job itself, more than `MAX_JOB_DEPENDENCIES`, and a repeat (a
/// job that lists a dependency twice is placed twice in a row in its list). Then the
/// caller runs `check`, which finds the first problem in declaration order.
pub(super) fn dependents(
    jobs: usize,
    dep_start: &[u32],
    deps: &[u32],
) -> (Vec<u32>, Vec<u32>, bool) {
    let mut out_start = vec![0u32; jobs + 1];
    for &d in deps {
        if let Some(count) = out_start.get_mut(d as usize) {
            *count += 1;
        }
    }
    let mut end = 0;
    for slot in &mut out_start {
        end += *slot;
        *slot = end;
    }
    let mut outs = vec![0u32; deps.len()];
    let mut problem = false;
    for (i, bounds) in dep_start.windows(2).enumerate().rev() {
        let (from, to) = match *bounds {
            [from, to] => (from as usize, to as usize),
            _ => (0, 0),
        };
        let targets = deps.get(from..to).unwrap_or_default();
        let job = i as u32;
        problem |= targets.len() > MAX_JOB_DEPENDENCIES;
        for &d in targets {
            problem |= d == job;
            let Some(next) = out_start.get_mut(d as usize) else {
                // Unknown.
                problem = true;
                continue;
            };
            *next -= 1;
            let at = *next as usize;
            if let Some(slot) = outs.get_mut(at) {
                *slot = job;
            }
            // The place after is this job's when it is a repeat, or when it starts the
            // next job's list (which this job may have been placed in first).
            if outs.get(at + 1) == Some(&job) && targets.iter().filter(|&&t| t == d).count() > 1 {
                problem = true;
            }
        }
    }
    (out_start, outs, problem)
}

/// The order and levels when every job's dependencies are declared before it (as flows
/// are mostly written): then declaration order is the order (the first job not yet taken
/// is always ready), the levels come from one pass in that order, and no sort is needed.
/// `None` at the first dependency on a later job.
pub(super) fn declared(graph: &Edges) -> Option<Sorted> {
    forward_levels(graph).map(|levels| Sorted {
        order: Vec::new(),
        levels,
    })
}

/// Kahn's algorithm: repeatedly takes, of the jobs whose dependencies are all taken, the
/// one declared first. Jobs on or after a cycle are never taken: then the error is how
/// many unsorted dependencies each job still has (non-zero only on and after cycles).
pub(super) fn topological(graph: &Edges) -> Result<Sorted, Vec<u32>> {
    let jobs = graph.jobs();
    // Per job: dependencies not yet taken, and level so far (one cache line serves both).
    let mut pending: Vec<(u32, u32)> = (0..jobs)
        .map(|i| (graph.deps_of(i).len() as u32, 0))
        .collect();
    let mut order = Vec::with_capacity(jobs);
    let mut ready = ReadySet::new(jobs);
    for (i, &(count, _)) in pending.iter().enumerate() {
        if count == 0 {
            ready.insert(i as u32);
        }
    }
    while let Some(job) = ready.pop_first() {
        order.push(job);
        let next_level = pending.get(job as usize).map_or(0, |&(_, level)| level) + 1;
        for &dependent in graph.outs_of(job as usize) {
            if let Some((count, level)) = pending.get_mut(dependent as usize) {
                *level = (*level).max(next_level);
                *count -= 1;
                if *count == 0 {
                    ready.insert(dependent);
                }
            }
        }
    }
    if order.len() < jobs {
        return Err(pending.into_iter().map(|(count, _)| count).collect());
    }
    Ok(Sorted {
        order,
        levels: pending.into_iter().map(|(_, level)| level).collect(),
    })
}

/// Every job's level, if every job depends only on jobs declared before it; `None` at the
/// first dependency that is not.
fn forward_levels(graph: &Edges) -> Option<Vec<u32>> {
    let jobs = graph.jobs();
    let mut levels: Vec<u32> = Vec::with_capacity(jobs);
    for i in 0..jobs {
        let mut level = 0;
        for &d in graph.deps_of(i) {
            level = level.max(levels.get(d as usize)? + 1);
        }
        levels.push(level);
    }
    Some(levels)
}

/// A set of positions below [`MAX_FLOW_JOBS`] that gives its smallest in constant time: a
/// bitmap of positions, a bitmap of its non-empty words, and one word over that (64³ bits
/// cover every position). Insert, smallest and remove are a few bit operations each, where
/// a binary heap would sift through `log n` levels.
struct ReadySet {
    bits: Vec<u64>,
    words: Vec<u64>,
    top: u64,
}

// Three levels of 64 cover every position.
const _: () = assert!(MAX_FLOW_JOBS <= 64 * 64 * 64);

impl ReadySet {
    fn new(len: usize) -> Self {
        let bits = len.div_ceil(64);
        Self {
            bits: vec![0; bits],
            words: vec![0; bits.div_ceil(64)],
            top: 0,
        }
    }

    fn insert(&mut self, position: u32) {
        let (word, group) = (position as usize / 64, position as usize / 4096);
        if let Some(bits) = self.bits.get_mut(word) {
            *bits |= 1 << (position % 64);
        }
        if let Some(words) = self.words.get_mut(group) {
            *words |= 1 << (word % 64);
        }
        self.top |= 1 << (group % 64);
    }

    /// Removes and returns the smallest position.
    fn pop_first(&mut self) -> Option<u32> {
        if self.top == 0 {
            return None;
        }
        let group = self.top.trailing_zeros() as usize;
        let words = self.words.get_mut(group)?;
        let word = group * 64 + words.trailing_zeros() as usize;
        let bits = self.bits.get_mut(word)?;
        let position = word * 64 + bits.trailing_zeros() as usize;
        *bits &= *bits - 1;
        if *bits == 0 {
            *words &= *words - 1;
            if *words == 0 {
                self.top &= self.top - 1;
            }
        }
        Some(position as u32)
    }
}

#[cfg(test)]
mod tests;
