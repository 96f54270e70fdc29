//! The cycles of a flow declared in order but for a few dependencies, found from those few
//! in passes over the dependency lists in declaration order, without a depth-first search.
//!
//! A back edge is a dependency on a job declared later. Every cycle takes at least one
//! (positions cannot only rise around a cycle), and between two back edges it goes by
//! forward ones, whose positions rise. So with at most [`MAX_BACK_EDGES`] back edges, one
//! bit each, two passes tell every job's place in the cycles:
//!
//! - in declaration order, the back edges whose head (the job that depends on a later one)
//!   reaches the job by forward edges (`from`);
//! - in reverse, the back edges whose tail (the later job) the job reaches by forward edges
//!   (`to`).
//!
//! Back edge `a` leads to back edge `b` when `a`'s head reaches `b`'s tail, a bit of `from`
//! at that tail; the cycles of the jobs are those of that small graph, whose closure takes
//! at most 64 times 64 word operations. A job lies on a cycle when a back edge whose head
//! reaches it and one whose tail it reaches are in one strongly connected group of back
//! edges, and then it is in that group of jobs.
//!
//! The passes need only the dependency lists, and the first sees each list's problems in
//! passing (an unknown name, the job itself, a repeat among at most `FEW_DEPENDENCIES`
//! entries), so a flow with a cycle is reported before its dependents lists are placed,
//! and its shortest cycles are searched along dependencies ([`shortest`]). A list with a
//! problem leaves the flow to the checks, which report it before any cycle.
//!
//! Where sorting and the depth-first search of the `cycle` module walk every job left
//! unsorted and every edge between them (most of a big flow with one cycle through its
//! first and last layers), these passes read the lists in order, and a job's reached sets
//! are mostly those of jobs declared just before it, in the cache. A flow with such
//! dependencies and no cycle pays the first pass, then is sorted as any other; past 64 of
//! them, the first pass stops at the 65th.

use super::cycle::{CLOSED, SORTED};
use super::{Edges, FEW_DEPENDENCIES};

/// The most back edges [`search`] follows: one bit of a word each.
const MAX_BACK_EDGES: usize = 64;

/// What [`search`] finds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Search {
    /// Not searched: more than [`MAX_BACK_EDGES`] back edges, a list of more than
    /// `FEW_DEPENDENCIES`, or a list with a problem (an unknown name, the job itself, a
    /// repeat), which the checks report.
    Unsearched,
    /// No cycle.
    Acyclic,
    /// The jobs on cycles: `mark[job]` is `CLOSED | group` for a job of group `group`
    /// (numbered from 0) and `SORTED` for the rest (the marks of the `cycle` module), and
    /// `cyclic` holds each group's `(first declared job, CLOSED | group)`.
    Cyclic {
        mark: Vec<u32>,
        cyclic: Vec<(u32, u32)>,
    },
}

/// The cycles of `graph` (its dependency lists only: the dependents lists need not be
/// placed).
pub(super) fn search(graph: &Edges) -> Search {
    let jobs = graph.jobs();
    // Back edge b: a job depends on job tails[b], declared after it.
    let mut tails: Vec<u32> = Vec::new();
    let mut from: Vec<u64> = Vec::with_capacity(jobs);
    for job in 0..jobs {
        let deps = graph.deps_of(job);
        if deps.len() > FEW_DEPENDENCIES {
            return Search::Unsearched;
        }
        let mut reached = 0u64;
        for (at, &dep) in deps.iter().enumerate() {
            if (dep as usize) < job {
                reached |= from.get(dep as usize).copied().unwrap_or(0);
            } else if (dep as usize) == job || dep as usize >= jobs || tails.len() == MAX_BACK_EDGES
            {
                // The job itself, an unknown name, or too many back edges.
                return Search::Unsearched;
            } else {
                reached |= 1 << tails.len();
                tails.push(dep);
            }
            if deps.get(..at).is_some_and(|before| before.contains(&dep)) {
                return Search::Unsearched;
            }
        }
        from.push(reached);
    }
    // leads[a]: the back edges reached from back edge a, in one step or more.
    let mut leads = [0u64; MAX_BACK_EDGES];
    for (b, &tail) in tails.iter().enumerate() {
        for a in bits(from.get(tail as usize).copied().unwrap_or(0)) {
            if let Some(l) = leads.get_mut(a) {
                *l |= 1 << b;
            }
        }
    }
    for via in 0..tails.len() {
        let onward = leads.get(via).copied().unwrap_or(0);
        for l in &mut leads {
            if *l >> via & 1 == 1 {
                *l |= onward;
            }
        }
    }
    let on_cycle =
        bit_set((0..tails.len()).filter(|&a| leads.get(a).is_some_and(|l| l >> a & 1 == 1)));
    if on_cycle == 0 {
        return Search::Acyclic;
    }
    // The strongly connected groups of back edges, each as a mask, and each back edge's.
    let mut groups: Vec<u64> = Vec::new();
    let mut group_of = [0usize; MAX_BACK_EDGES];
    let mut grouped = 0u64;
    for a in bits(on_cycle) {
        if grouped >> a & 1 == 1 {
            continue;
        }
        let reach = leads.get(a).copied().unwrap_or(0);
        let group = bit_set(bits(reach).filter(|&b| leads.get(b).is_some_and(|l| l >> a & 1 == 1)));
        for b in bits(group) {
            if let Some(g) = group_of.get_mut(b) {
                *g = groups.len();
            }
        }
        grouped |= group;
        groups.push(group);
    }
    // to[job]: the back edges on cycles whose tail the job reaches by forward edges.
    let mut to = vec![0u64; jobs];
    for b in bits(on_cycle) {
        if let Some(t) = tails.get(b).and_then(|&tail| to.get_mut(tail as usize)) {
            *t |= 1 << b;
        }
    }
    for job in (0..jobs).rev() {
        let reaching = to.get(job).copied().unwrap_or(0);
        if reaching == 0 {
            continue;
        }
        for &dep in graph.deps_of(job) {
            if (dep as usize) < job
                && let Some(t) = to.get_mut(dep as usize)
            {
                *t |= reaching;
            }
        }
    }
    let mut mark = vec![SORTED; jobs];
    let mut first = vec![u32::MAX; groups.len()];
    for (job, (&reached, &reaching)) in from.iter().zip(&to).enumerate() {
        if reached & on_cycle == 0 || reaching == 0 {
            continue;
        }
        // The job's group, if a back edge whose head reaches it has one whose tail it reaches.
        let group = bits(reached & on_cycle)
            .map(|a| group_of.get(a).copied().unwrap_or(0))
            .find(|&g| groups.get(g).is_some_and(|&mask| mask & reaching != 0));
        if let Some(g) = group
            && let (Some(m), Some(f)) = (mark.get_mut(job), first.get_mut(g))
        {
            *m = CLOSED | g as u32;
            *f = (*f).min(job as u32);
        }
    }
    let cyclic = first
        .into_iter()
        .enumerate()
        .map(|(g, f)| (f, CLOSED | g as u32))
        .collect();
    Search::Cyclic { mark, cyclic }
}

/// A job [`shortest`]'s search has reached: no group's mark (those are at or above
/// `CLOSED`).
const SEEN: u32 = 1;

/// The jobs of the shortest cycle through `start`, from `start` back to it, staying inside
/// group `group` (the jobs whose `mark` it is), and of those the one that takes at each
/// step the first declared dependent on a shortest cycle; found along the dependency lists
/// alone. Nothing when no cycle goes through `start`. Every mark it changes is put back.
///
/// A breadth-first search from `start` along dependencies puts each job of the group in
/// the layer of its steps to `start`, until a layer holds a job that depends on `start`:
/// the cycle's length is one more. The walk then takes, at each step, the first declared
/// job of the next layer down that depends on the job before. The search goes from one
/// end only (the two-way search of the `cycle` module needs the dependents lists), so it
/// may read the whole group's lists, once; on the bench's in-layers flow with a cycle it
/// reaches 152 jobs in 5 layers.
pub(super) fn shortest(
    graph: &Edges,
    mark: &mut [u32],
    start: u32,
    group: u32,
) -> Option<Vec<u32>> {
    let mut layers: Vec<Vec<u32>> = vec![vec![start]];
    if let Some(m) = mark.get_mut(start as usize) {
        *m = SEEN;
    }
    let closed = loop {
        let mut next = Vec::new();
        for &job in layers.last().into_iter().flatten() {
            for &dep in graph.deps_of(job as usize) {
                if let Some(m) = mark.get_mut(dep as usize)
                    && *m == group
                {
                    *m = SEEN;
                    next.push(dep);
                }
            }
        }
        if next.is_empty() {
            break false;
        }
        let closes = next
            .iter()
            .any(|&job| graph.deps_of(job as usize).contains(&start));
        layers.push(next);
        if closes {
            break true;
        }
    };
    for &job in layers.iter().flatten() {
        if let Some(m) = mark.get_mut(job as usize) {
            *m = group;
        }
    }
    if !closed {
        return None;
    }
    let mut cycle = vec![start];
    let mut job = start;
    for layer in layers.iter().skip(1).rev() {
        job = layer
            .iter()
            .copied()
            .filter(|&next| graph.deps_of(next as usize).contains(&job))
            .min()?;
        cycle.push(job);
    }
    cycle.push(start);
    Some(cycle)
}

/// The set bits of `word`, lowest first.
fn bits(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let bit = word.trailing_zeros() as usize;
        word &= word.wrapping_sub(1);
        (bit < 64).then_some(bit)
    })
}

/// The word with `bits` set (each below 64).
fn bit_set(bits: impl Iterator<Item = usize>) -> u64 {
    bits.fold(0, |word, bit| {
        word | 1u64.checked_shl(bit as u32).unwrap_or(0)
    })
}

#[cfg(test)]
mod tests;
