//! `FlowGraph`: the validated dependency graph of a flow's jobs, with its deterministic
//! topological order and levels.

mod back;
mod closest;
mod cycle;
mod index;
mod order;

use model_ids::JobName;

use self::index::{NameIndex, Staged, UNKNOWN};

use model_ids::text::shorten;

use crate::error::FlowError;
use crate::limits::{MAX_FLOW_DEPENDENCIES, MAX_FLOW_JOBS, MAX_JOB_DEPENDENCIES};
use crate::names::{JobNames, entries};
use crate::rule::TriggerRule;
use crate::wire::DependsOnRaw;

/// The dependency graph of a flow's jobs, validated: at least one job, unique names, every
/// dependency names another job of the flow once, and no cycle.
///
/// Jobs are numbered by their position in the flow's `jobs` (declaration order); every
/// method takes and gives those positions. Edges go from a job to the jobs that depend on
/// it. [`FlowGraph::order`] is the topological order that breaks ties by declaration order
/// (of all the jobs that may come next, the first declared does), and
/// [`FlowGraph::levels`] groups the jobs that can run side by side: a job's level is one
/// more than its deepest dependency's.
///
/// The graph is stored as two compressed adjacency lists (dependencies and dependents), so
/// it costs a few machine words per job and per dependency (and about 26 bytes per job for
/// its name index), and building it is linear in jobs and dependencies.
///
/// ```
/// use model_flow::FlowSpec;
///
/// let job = |name: &str, deps: &str| format!(
///     r#"{{"name": "{name}", "dependsOn": [{deps}],
///         "spec": {{"slot": "s", "kind": {{"type": "wasm", "module": "m.wasm"}}, "timeoutMs": 1000}}}}"#
/// );
/// let json = format!(
///     r#"{{"name": "etl", "jobs": [{}, {}, {}, {}]}}"#,
///     job("load", r#""transform""#),
///     job("extract", ""),
///     job("transform", r#""extract""#),
///     job("audit", r#""extract""#),
/// );
/// let flow: FlowSpec = serde_json::from_str(&json)?;
/// let graph = flow.graph();
/// let names = |positions: &[usize]| -> Vec<String> {
///     positions.iter().map(|&p| graph.name(p).unwrap().to_string()).collect()
/// };
/// assert_eq!(names(&graph.order().collect::<Vec<_>>()), ["extract", "transform", "load", "audit"]);
/// let levels: Vec<Vec<String>> = graph.levels().iter().map(|level| names(level)).collect();
/// assert_eq!(levels, [vec!["extract"], vec!["transform", "audit"], vec!["load"]]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FlowGraph {
    names: Vec<JobName>,
    rules: Vec<TriggerRule>,
    edges: Edges,
    index: NameIndex,
    /// The order, or nothing when it is declaration order (as flows are mostly written).
    order: Vec<u32>,
    levels: Vec<u32>,
}

/// The graph's two compressed adjacency lists, of `u32` positions.
#[derive(Debug, Clone)]
struct Edges {
    /// `deps[dep_start[i]..dep_start[i + 1]]` are job `i`'s dependencies, as declared.
    dep_start: Vec<u32>,
    deps: Vec<u32>,
    /// `outs[out_start[i]..out_start[i + 1]]` are the jobs that depend on `i`, ascending.
    out_start: Vec<u32>,
    outs: Vec<u32>,
}

impl Edges {
    /// The number of jobs.
    fn jobs(&self) -> usize {
        self.dep_start.len().saturating_sub(1)
    }

    /// Job `i`'s dependencies as stored.
    fn deps_of(&self, i: usize) -> &[u32] {
        span(&self.dep_start, &self.deps, i)
    }

    /// The jobs that depend on job `i`, as stored.
    fn outs_of(&self, i: usize) -> &[u32] {
        span(&self.out_start, &self.outs, i)
    }
}

/// A job's name as the graph is built from it: owned (read from the wire), or borrowed from
/// the caller's jobs and cloned only once the graph is valid, so a flow that fails its checks
/// costs no clone (and no drop) of its names.
pub(crate) trait Name: AsRef<str> {
    /// The name.
    fn job_name(&self) -> &JobName;
    /// The name, owned.
    fn into_job_name(self) -> JobName;
}

impl Name for JobName {
    fn job_name(&self) -> &JobName {
        self
    }

    fn into_job_name(self) -> JobName {
        self
    }
}

impl Name for &JobName {
    fn job_name(&self) -> &JobName {
        self
    }

    fn into_job_name(self) -> JobName {
        self.clone()
    }
}

/// A job's dependencies as the graph is built from them: its entries as a [`JobNames`]
/// stores them, and each entry as written, for an error (an entry read from the wire that
/// is no job name is kept aside, its place in the list left empty).
pub(crate) trait Listed {
    /// The entries as stored ([`JobNames::as_encoded`]) and how many they are.
    fn entries(&self) -> (&str, usize);
    /// Entry `j` as written.
    fn written(&self, j: usize) -> Option<&str>;
}

impl Listed for DependsOnRaw {
    fn entries(&self) -> (&str, usize) {
        (self.names.as_encoded(), self.names.len())
    }

    fn written(&self, j: usize) -> Option<&str> {
        DependsOnRaw::written(self, j)
    }
}

impl FlowGraph {
    /// Validates and builds the graph of `jobs`, each given as its name, its dependencies
    /// and its rule, in declaration order: what [`FlowSpec`](crate::FlowSpec) checks of its
    /// jobs, without their specs, for a caller that edits a flow's shape (a UI, a tool).
    /// Errors name the field path as in a flow (`jobs[3].dependsOn[0]`).
    ///
    /// ```
    /// use model_flow::{FlowGraph, JobNames, TriggerRule};
    /// use model_ids::JobName;
    ///
    /// let [a, b] = ["a", "b"].map(|n| JobName::new(n).unwrap());
    /// let (after_b, after_a) = (JobNames::from_iter([&b]), JobNames::from_iter([&a]));
    /// let jobs = [(&a, &after_b, TriggerRule::AllSucceeded), (&b, &after_a, TriggerRule::AllDone)];
    /// let err = FlowGraph::new(jobs).unwrap_err();
    /// assert_eq!(err.to_string(), "jobs[0].dependsOn[0]: jobs form a cycle: a -> b -> a");
    /// ```
    pub fn new<'a>(
        jobs: impl IntoIterator<Item = (&'a JobName, &'a JobNames, TriggerRule)>,
    ) -> Result<Self, FlowError> {
        let jobs = jobs.into_iter();
        let expected = jobs.size_hint().0.min(MAX_FLOW_JOBS);
        // One pass over the caller's jobs, each read once: its name indexed, its list's
        // entries as stored and its rule kept in compact arrays.
        let mut names: Vec<&JobName> = Vec::with_capacity(expected);
        let mut rules = Vec::with_capacity(expected);
        let mut lists = Vec::with_capacity(expected);
        let mut total = 0usize;
        let mut index = NameIndex::with_capacity(expected);
        let mut staged = Staged::default();
        let mut duplicate = None;
        let mut indexed = true;
        for (name, list, rule) in jobs {
            let position = names.len();
            if staged.is_full() {
                duplicate = duplicate.or(index.insert_staged(&names, &mut staged));
            }
            names.push(name);
            rules.push(rule);
            lists.push(list.as_encoded());
            total = total.saturating_add(list.len());
            if position < expected {
                index.stage(&mut staged, name.as_str().as_bytes());
            } else {
                // More jobs than the iterator announced: indexed again below.
                indexed = false;
            }
        }
        if indexed {
            duplicate = duplicate.or(index.insert_staged(&names, &mut staged));
        }
        if !indexed && names.len() <= MAX_FLOW_JOBS {
            (index, duplicate) = NameIndex::new(&names);
        }
        let written = |i: usize, j: usize| {
            let list = *lists.get(i)?;
            entries(list)
                .nth(j)
                .and_then(|e| std::str::from_utf8(e).ok())
        };
        Self::check_and_order(names, rules, &lists, total, (index, duplicate), written)
    }

    /// Validates and builds the graph of jobs `names` (with trigger rules `rules`), job `i`
    /// depending on the jobs named in `lists[i]`. Errors name the field path from the
    /// flow's root.
    pub(crate) fn build<N: Name, L: Listed>(
        names: Vec<N>,
        rules: Vec<TriggerRule>,
        lists: &[L],
    ) -> Result<Self, FlowError> {
        let mut total = 0usize;
        let encoded: Vec<&str> = lists
            .iter()
            .map(|list| {
                let (entries, len) = list.entries();
                total = total.saturating_add(len);
                entries
            })
            .collect();
        let index = if names.len() <= MAX_FLOW_JOBS {
            NameIndex::new(&names)
        } else {
            (NameIndex::with_capacity(0), None)
        };
        let written = |i: usize, j: usize| lists.get(i)?.written(j);
        Self::check_and_order(names, rules, &encoded, total, index, written)
    }

    /// The checks and the order, from each job's name, rule and list's entries as stored
    /// (`total` entries in all), the names' index (with the first name given twice) and
    /// each entry as written (`written(job, entry)`, for an error).
    fn check_and_order<'w, N: Name>(
        names: Vec<N>,
        rules: Vec<TriggerRule>,
        lists: &[&str],
        total: usize,
        (index, duplicate): (NameIndex, Option<(usize, usize)>),
        written: impl Fn(usize, usize) -> Option<&'w str>,
    ) -> Result<Self, FlowError> {
        let jobs = names.len();
        if jobs == 0 {
            return Err(FlowError::NoJobs {
                path: "jobs".into(),
            });
        }
        if jobs > MAX_FLOW_JOBS {
            return Err(FlowError::TooMany {
                path: "jobs".into(),
                len: jobs,
                max: MAX_FLOW_JOBS,
            });
        }
        if total > MAX_FLOW_DEPENDENCIES {
            return Err(FlowError::TooMany {
                path: "jobs[*].dependsOn".into(),
                len: total,
                max: MAX_FLOW_DEPENDENCIES,
            });
        }
        // A job's name comes before its dependsOn: a problem in an earlier job's
        // dependencies is reported first, the duplicate name before its own job's.
        let checked = duplicate.map_or(jobs, |(later, _)| later);
        let mut deps = Vec::with_capacity(total);
        let mut dep_start = Vec::with_capacity(jobs + 1);
        index.get_all(
            &names,
            lists.get(..checked).unwrap_or_default(),
            &mut deps,
            &mut dep_start,
        );
        // The dependencies' problems are seen while the dependents are placed (or when a
        // name is given twice, before): then every job is checked in order, for the first.
        if duplicate.is_some() {
            check(&names, &deps, &dep_start, &written)?;
        }
        if let Some((later, first)) = duplicate {
            return Err(FlowError::DuplicateJob {
                path: format!("jobs[{later}].name"),
                name: name_of(&names, later),
                first,
            });
        }
        let mut edges = Edges {
            dep_start,
            deps,
            out_start: Vec::new(),
            outs: Vec::new(),
        };
        // A flow declared in order but for a few dependencies on later jobs, its lists
        // valid, is searched for cycles from those before its dependents lists are placed:
        // a flow with a cycle needs none (else sorting finds the cycles).
        let declared = order::declared(&edges);
        if declared.is_none()
            && let Some(cycles) = cycle::nearly_in_order(&edges, &names)
        {
            return Err(cycles);
        }
        let (out_start, outs, problem) = order::dependents(jobs, &edges.dep_start, &edges.deps);
        if problem {
            check(&names, &edges.deps, &edges.dep_start, &written)?;
        }
        edges.out_start = out_start;
        edges.outs = outs;
        let sorted = match declared {
            Some(sorted) => sorted,
            None => match order::topological(&edges) {
                Ok(sorted) => sorted,
                Err(remaining) => return Err(cycle::cycles(&edges, &names, remaining)),
            },
        };
        Ok(FlowGraph {
            names: names.into_iter().map(Name::into_job_name).collect(),
            rules,
            edges,
            index,
            order: sorted.order,
            levels: sorted.levels,
        })
    }

    /// The number of jobs (at least one).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always `false`: a flow has at least one job.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The jobs' names, in declaration order.
    pub fn names(&self) -> &[JobName] {
        &self.names
    }

    /// The name of the job at `position`.
    pub fn name(&self, position: usize) -> Option<&JobName> {
        self.names.get(position)
    }

    /// The position of the job named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index.get(&self.names, name).map(|p| p as usize)
    }

    /// The position and name of the job named `job`, or the error a call naming a job the
    /// flow does not have gets.
    pub(crate) fn locate(&self, job: &str) -> Result<(usize, &JobName), FlowError> {
        self.position(job)
            .and_then(|i| Some((i, self.names.get(i)?)))
            .ok_or_else(|| FlowError::UnknownJob { name: shorten(job) })
    }

    /// The trigger rule of the job at `position`.
    pub fn rule(&self, position: usize) -> Option<TriggerRule> {
        self.rules.get(position).copied()
    }

    /// The jobs the job at `position` depends on, in its `dependsOn` order (none for a
    /// position out of range).
    pub fn dependencies(&self, position: usize) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.deps_of(position).iter().map(|&d| d as usize)
    }

    /// The jobs that depend on the job at `position`, in declaration order.
    pub fn dependents(&self, position: usize) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.outs_of(position).iter().map(|&d| d as usize)
    }

    /// Every job once, each after all it depends on; of the jobs that may come next, the
    /// first declared comes first.
    pub fn order(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        // No order stored: declaration order is the order.
        (0..self.len()).map(|i| self.order.get(i).map_or(i, |&p| p as usize))
    }

    /// The level of the job at `position`: 0 without dependencies, else one more than its
    /// deepest dependency's.
    pub fn level(&self, position: usize) -> Option<usize> {
        self.levels.get(position).map(|&l| l as usize)
    }

    /// The jobs by level: the jobs of one level depend only on jobs of lower levels, so they
    /// can run side by side. Each level lists its jobs in declaration order.
    pub fn levels(&self) -> Vec<Vec<usize>> {
        let depth = self
            .levels
            .iter()
            .max()
            .map_or(0, |&deepest| deepest as usize + 1);
        let mut grouped = vec![Vec::new(); depth];
        for (position, &level) in self.levels.iter().enumerate() {
            if let Some(group) = grouped.get_mut(level as usize) {
                group.push(position);
            }
        }
        grouped
    }

    /// Job `i`'s dependencies as stored.
    pub(crate) fn deps_of(&self, i: usize) -> &[u32] {
        self.edges.deps_of(i)
    }

    /// The jobs that depend on job `i`, as stored.
    pub(crate) fn outs_of(&self, i: usize) -> &[u32] {
        self.edges.outs_of(i)
    }
}

impl PartialEq for FlowGraph {
    /// Graphs are equal when their jobs are: names, dependencies and rules, in order (the
    /// rest is computed from those).
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
            && self.rules == other.rules
            && self.edges.dep_start == other.edges.dep_start
            && self.edges.deps == other.edges.deps
    }
}

impl Eq for FlowGraph {}

/// `items[start[i]..start[i + 1]]`, or nothing when out of range.
fn span<'a>(start: &[u32], items: &'a [u32], i: usize) -> &'a [u32] {
    let from = start.get(i).map_or(0, |&s| s as usize);
    let to = start.get(i + 1).map_or(0, |&s| s as usize);
    items.get(from..to).unwrap_or_default()
}

/// The name at `i` as text, for an error.
fn name_of<N: Name>(names: &[N], i: usize) -> String {
    names
        .get(i)
        .map(|n| n.as_ref().to_string())
        .unwrap_or_default()
}

/// Checks the dependencies of each job `deps` resolves (`dep_start` gives where each
/// job's start): each names another job once, and a job has at most
/// `MAX_JOB_DEPENDENCIES`. `written(job, entry)` is an entry as written, for an error.
fn check<'w, N: Name>(
    names: &[N],
    deps: &[u32],
    dep_start: &[u32],
    written: impl Fn(usize, usize) -> Option<&'w str>,
) -> Result<(), FlowError> {
    // For jobs with many dependencies, seen[t] == i + 1 when job i already listed t (no
    // clearing between jobs); the few of a typical job are compared among themselves.
    let mut seen: Vec<u32> = Vec::new();
    for (i, bounds) in dep_start.windows(2).enumerate() {
        let (from, to) = match *bounds {
            [from, to] => (from as usize, to as usize),
            _ => (0, 0),
        };
        let targets = deps.get(from..to).unwrap_or_default();
        let count = targets.len();
        if count > MAX_JOB_DEPENDENCIES {
            return Err(FlowError::TooMany {
                path: format!("jobs[{i}].dependsOn"),
                len: count,
                max: MAX_JOB_DEPENDENCIES,
            });
        }
        let many = count > FEW_DEPENDENCIES;
        if many && seen.is_empty() {
            seen = vec![0; names.len()];
        }
        let stamp = i as u32 + 1;
        for (j, &target) in targets.iter().enumerate() {
            let path = || format!("jobs[{i}].dependsOn[{j}]");
            if target == UNKNOWN {
                let dep = written(i, j).unwrap_or_default();
                return Err(FlowError::UnknownDependency {
                    path: path(),
                    name: shorten(dep),
                    closest: closest::closest(dep, names).map(|n| n.job_name().clone()),
                });
            }
            if target as usize == i {
                return Err(FlowError::SelfDependency {
                    path: path(),
                    name: name_of(names, i),
                });
            }
            let repeat = if many {
                seen.get_mut(target as usize)
                    .is_some_and(|mark| std::mem::replace(mark, stamp) == stamp)
            } else {
                targets
                    .get(..j)
                    .is_some_and(|before| before.contains(&target))
            };
            if repeat {
                // Equal positions are equal names: the index holds each name once.
                let first = targets
                    .iter()
                    .position(|&t| t == target)
                    .unwrap_or_default();
                return Err(FlowError::RepeatedDependency {
                    path: path(),
                    name: name_of(names, target as usize),
                    first,
                });
            }
        }
    }
    Ok(())
}

/// Up to this many dependencies, a job's are checked for repeats among themselves.
const FEW_DEPENDENCIES: usize = 32;

#[cfg(test)]
mod tests;
