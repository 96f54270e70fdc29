//! `FlowError`, the one error type of this crate, and `FlowCycle`, one cycle it reports.

use std::fmt;

use model_ids::{ErrorKind, IdError, JobName};
use model_selector::SelectorError;
use model_task::{TaskError, TaskPhase};

use crate::limits::MAX_CYCLE_JOBS_SHOWN;
use crate::state::JobState;

/// Why a flow, a flow run or a call on a flow run was refused.
///
/// Validation errors name the field path from the flow's root (`jobs[3].dependsOn[0]`,
/// `jobs[1].spec.kind.env`, `labels["team"]`) and quote the input, shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters (model-ids' `text`
/// helpers, as every layer). Errors of a running flow name the job.
/// [`FlowError::kind`] gives the category a caller branches on.
///
/// ```
/// use model_flow::{FlowError, FlowSpec};
///
/// let json = r#"{"name": "etl", "jobs": [
///     {"name": "extract", "spec": {"slot": "a", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}},
///     {"name": "load", "spec": {"slot": "a", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000},
///      "dependsOn": ["extrakt"]}
/// ]}"#;
/// let err = serde_json::from_str::<FlowSpec>(json).unwrap_err();
/// assert!(err.to_string().starts_with(
///     r#"jobs[1].dependsOn[0]: unknown job "extrakt" (did you mean "extract"?)"#
/// ));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The flow's name or a job's name is not a valid identifier.
    #[error("{path}: {error}")]
    Id {
        /// `name` or `jobs[i].name`.
        path: String,
        /// Why the identifier is invalid (its message is part of this one, so it is not a `source`).
        error: IdError,
    },
    /// The flow's `env` or a job's spec breaks a rule of the task model; the task error
    /// carries the full field path (`jobs[2].spec.timeoutMs`).
    #[error(transparent)]
    Task(TaskError),
    /// The flow's labels are invalid; the selector error carries the path (`labels["team"]`).
    #[error(transparent)]
    Selector(SelectorError),
    /// A flow without jobs.
    #[error("{path}: a flow has at least one job")]
    NoJobs {
        /// `jobs`.
        path: String,
    },
    /// A list or a map with more entries than its bound.
    #[error("{path}: {len} entries, more than {max}")]
    TooMany {
        /// The list or map (`jobs`, `jobs[4].dependsOn`, `result`).
        path: String,
        /// How many entries it has (or, for a total over several lists, has so far).
        len: usize,
        /// The bound.
        max: usize,
    },
    /// Text longer than its bound, in bytes.
    #[error("{path}: {len} bytes, more than {max}")]
    TooLong {
        /// The field (`result["rows"]`).
        path: String,
        /// Its length in bytes.
        len: usize,
        /// The bound in bytes.
        max: usize,
    },
    /// A number larger than its bound.
    #[error("{path}: {value} is larger than the maximum {max}")]
    TooLarge {
        /// The field (`ttlAfterFinishedMs`).
        path: String,
        /// The number given.
        value: u64,
        /// The bound.
        max: u64,
    },
    /// Text that must not be empty.
    #[error("{path}: must not be empty")]
    Empty {
        /// The field.
        path: String,
    },
    /// Text with a NUL byte, which databases and C strings refuse.
    #[error("{path}: NUL byte at byte {index}")]
    NulByte {
        /// The field.
        path: String,
        /// The byte offset of the first NUL.
        index: usize,
    },
    /// A key given twice in one map.
    #[error("{path}: key {key:?} given twice")]
    DuplicateKey {
        /// The map.
        path: String,
        /// The key, shortened if long.
        key: String,
    },
    /// Two jobs with the same name.
    #[error("{path}: duplicate job name {:?}, first at jobs[{first}]", .name.as_str())]
    DuplicateJob {
        /// `jobs[i].name` of the later job.
        path: String,
        /// The name.
        name: String,
        /// The position of the first job with the name.
        first: usize,
    },
    /// A dependency that names no job of the flow.
    #[error("{path}: unknown job {name:?}{}", Suggestion(.closest.as_ref()))]
    UnknownDependency {
        /// `jobs[i].dependsOn[j]`.
        path: String,
        /// The dependency as given, shortened if long.
        name: String,
        /// The job name closest to it by edit distance, when one is close enough.
        closest: Option<JobName>,
    },
    /// A job that depends on itself.
    #[error("{path}: job {:?} depends on itself", .name.as_str())]
    SelfDependency {
        /// `jobs[i].dependsOn[j]`.
        path: String,
        /// The job's name.
        name: String,
    },
    /// A dependency listed twice by one job.
    #[error("{path}: {:?} is already listed at dependsOn[{first}]", .name.as_str())]
    RepeatedDependency {
        /// `jobs[i].dependsOn[j]` of the repeat.
        path: String,
        /// The dependency.
        name: String,
        /// The position of its first listing in the same `dependsOn`.
        first: usize,
    },
    /// The jobs' dependencies form cycles: one is listed for each strongly connected group
    /// of jobs, in the order of the group's first job, up to
    /// [`MAX_REPORTED_CYCLES`](crate::MAX_REPORTED_CYCLES).
    #[error("{}", Cycles(.cycles, *.unreported))]
    Cycle {
        /// The cycles found, at least one.
        cycles: Vec<FlowCycle>,
        /// How many more groups of jobs hold a cycle.
        unreported: usize,
    },
    /// A stored flow run whose job states could not have come from running the flow.
    #[error("{path}: {rule}")]
    Inconsistent {
        /// The field (`jobs[2].state`).
        path: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// A call named a job the flow does not have.
    #[error("unknown job {name:?}")]
    UnknownJob {
        /// The name as given, shortened if long.
        name: String,
    },
    /// A call asked a job for a change its state does not allow (start a job that is not
    /// ready, end an attempt of a job that is not running).
    #[error("job {:?} cannot go from {from} to {to}", .job.as_str())]
    JobTransition {
        /// The job.
        job: JobName,
        /// Its state, which the call did not change.
        from: JobState,
        /// The state the call asked for.
        to: JobState,
    },
    /// A restart decision that does not end an attempt (its phase is neither pending nor final).
    #[error("job {:?}: a decision to move to {phase} does not end an attempt", .job.as_str())]
    NotAnAttemptEnd {
        /// The job.
        job: JobName,
        /// The decision's phase.
        phase: TaskPhase,
    },
    /// An end reported again for a job that already ended, with another state or result
    /// (results are first-write-wins).
    #[error("conflict: job {:?} already ended {state}, with another result or state", .job.as_str())]
    EndConflict {
        /// The job.
        job: JobName,
        /// The state it ended in.
        state: JobState,
    },
}

/// Matches the variants that hold their own `path` field: `with_path!(error, path => found,
/// otherwise)`, the one list of them that [`FlowError::path`] and [`FlowError::at`] share.
macro_rules! with_path {
    ($error:expr, $path:ident => $found:expr, $otherwise:expr) => {
        match $error {
            FlowError::Id { path: $path, .. }
            | FlowError::NoJobs { path: $path }
            | FlowError::TooMany { path: $path, .. }
            | FlowError::TooLong { path: $path, .. }
            | FlowError::TooLarge { path: $path, .. }
            | FlowError::Empty { path: $path }
            | FlowError::NulByte { path: $path, .. }
            | FlowError::DuplicateKey { path: $path, .. }
            | FlowError::DuplicateJob { path: $path, .. }
            | FlowError::UnknownDependency { path: $path, .. }
            | FlowError::SelfDependency { path: $path, .. }
            | FlowError::RepeatedDependency { path: $path, .. }
            | FlowError::Inconsistent { path: $path, .. } => $found,
            FlowError::Task(_)
            | FlowError::Selector(_)
            | FlowError::Cycle { .. }
            | FlowError::UnknownJob { .. }
            | FlowError::JobTransition { .. }
            | FlowError::NotAnAttemptEnd { .. }
            | FlowError::EndConflict { .. } => $otherwise,
        }
    };
}

impl FlowError {
    /// The category of this error.
    ///
    /// Validation errors are [`ErrorKind::Invalid`] (a wrapped identifier, task or selector
    /// error gives its own kind); a change a job's state does not allow is
    /// [`ErrorKind::InvalidTransition`]; a different end for an ended job is
    /// [`ErrorKind::Conflict`].
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            FlowError::Id { error, .. } => error.kind(),
            FlowError::Task(error) => error.kind(),
            FlowError::Selector(error) => error.kind(),
            FlowError::NoJobs { .. }
            | FlowError::TooMany { .. }
            | FlowError::TooLong { .. }
            | FlowError::TooLarge { .. }
            | FlowError::Empty { .. }
            | FlowError::NulByte { .. }
            | FlowError::DuplicateKey { .. }
            | FlowError::DuplicateJob { .. }
            | FlowError::UnknownDependency { .. }
            | FlowError::SelfDependency { .. }
            | FlowError::RepeatedDependency { .. }
            | FlowError::Cycle { .. }
            | FlowError::Inconsistent { .. }
            | FlowError::UnknownJob { .. } => ErrorKind::Invalid,
            FlowError::JobTransition { .. } | FlowError::NotAnAttemptEnd { .. } => {
                ErrorKind::InvalidTransition
            }
            FlowError::EndConflict { .. } => ErrorKind::Conflict,
        }
    }

    /// The field path of a validation error, from the flow's root; `None` for the errors
    /// of a running flow, which name a job instead.
    pub fn path(&self) -> Option<&str> {
        match self {
            FlowError::Task(error) => error.path(),
            FlowError::Selector(error) => Some(error.path()),
            FlowError::Cycle { cycles, .. } => cycles.first().map(FlowCycle::path),
            plain => with_path!(plain, path => Some(path.as_str()), None),
        }
    }

    /// The message without the field path in front, for a caller that shows the path on its
    /// own (`taskctl check` prints `FILE: PATH: MESSAGE`); errors without a path give their
    /// whole message. A [`FlowError::Cycle`] gives its first cycle's (each [`FlowCycle`] has
    /// its own path and message).
    ///
    /// ```
    /// use model_flow::FlowSpec;
    ///
    /// let err = FlowSpec::builder("f").build().unwrap_err();
    /// assert_eq!(err.path(), Some("jobs"));
    /// assert_eq!(err.message(), "a flow has at least one job");
    /// assert_eq!(err.to_string(), "jobs: a flow has at least one job");
    /// ```
    pub fn message(&self) -> String {
        match self {
            FlowError::Id { error, .. } => error.to_string(),
            FlowError::Task(error) => error.message(),
            FlowError::Selector(error) => error.message(),
            FlowError::Cycle { cycles, .. } => {
                cycles.first().map_or_else(String::new, FlowCycle::message)
            }
            other => {
                let shown = other.to_string();
                match other.path() {
                    Some(path) => shown
                        .strip_prefix(&format!("{path}: "))
                        .map_or(shown.clone(), str::to_owned),
                    None => shown,
                }
            }
        }
    }

    /// Puts `prefix` in front of the field path (`spec` and `kind.env` give
    /// `spec.kind.env`; `jobs` and `[2]` give `jobs[2]`), for a caller that embeds a flow in
    /// a larger value. Errors without a path are returned unchanged.
    #[must_use]
    pub fn at(self, prefix: &str) -> Self {
        match self {
            FlowError::Task(error) => FlowError::Task(error.at(prefix)),
            FlowError::Selector(error) => FlowError::Selector(error.prefixed(prefix)),
            FlowError::Cycle { cycles, unreported } => FlowError::Cycle {
                cycles: cycles
                    .into_iter()
                    .map(|cycle| FlowCycle {
                        path: join_path(prefix, &cycle.path),
                        jobs: cycle.jobs,
                    })
                    .collect(),
                unreported,
            },
            mut other => {
                with_path!(&mut other, path => *path = join_path(prefix, path), ());
                other
            }
        }
    }
}

/// One cycle of jobs: the path names each job once and ends where it starts, every step
/// going from a job to one that depends on it (`extract -> transform -> load -> extract`).
///
/// The cycle starts at the first declared job of its strongly connected group, and is the
/// shortest cycle through that job; [`FlowCycle::path`] names the `dependsOn` entry of the
/// first job that closes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowCycle {
    path: String,
    jobs: Vec<JobName>,
}

impl FlowCycle {
    pub(crate) fn new(path: String, jobs: Vec<JobName>) -> Self {
        Self { path, jobs }
    }

    /// The field path of the `dependsOn` entry that closes the cycle (`jobs[3].dependsOn[0]`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The jobs along the cycle, the first repeated at the end.
    pub fn jobs(&self) -> &[JobName] {
        &self.jobs
    }

    /// The message without the path: `jobs form a cycle: a -> b -> a`.
    pub fn message(&self) -> String {
        CycleJobs(&self.jobs).to_string()
    }
}

impl fmt::Display for FlowCycle {
    /// `PATH: jobs form a cycle: a -> b -> a`, with the middle of a cycle longer than
    /// [`MAX_CYCLE_JOBS_SHOWN`] names left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, CycleJobs(&self.jobs))
    }
}

/// `jobs form a cycle: a -> b -> a`, shortened past [`MAX_CYCLE_JOBS_SHOWN`] names.
struct CycleJobs<'a>(&'a [JobName]);

impl fmt::Display for CycleJobs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("jobs form a cycle: ")?;
        let len = self.0.len();
        let half = MAX_CYCLE_JOBS_SHOWN / 2;
        for (i, job) in self.0.iter().enumerate() {
            if len > MAX_CYCLE_JOBS_SHOWN && i >= half && i < len - half {
                if i == half {
                    write!(f, " -> … {} more …", len - 2 * half)?;
                }
                continue;
            }
            if i > 0 {
                f.write_str(" -> ")?;
            }
            f.write_str(job)?;
        }
        Ok(())
    }
}

/// The message of [`FlowError::Cycle`]: each cycle, then how many were left out.
struct Cycles<'a>(&'a [FlowCycle], usize);

impl fmt::Display for Cycles<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, cycle) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{cycle}")?;
        }
        match self.1 {
            0 => Ok(()),
            1 => f.write_str("; and 1 more cycle"),
            more => write!(f, "; and {more} more cycles"),
        }
    }
}

/// ` (did you mean "x"?)` after an unknown name, or nothing.
struct Suggestion<'a>(Option<&'a JobName>);

impl fmt::Display for Suggestion<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(name) => write!(f, " (did you mean {:?}?)", name.as_str()),
            None => Ok(()),
        }
    }
}

/// Joins a prefix and a relative path: `a` + `b.c` = `a.b.c`, `a` + `[1]` = `a[1]`.
pub(crate) fn join_path(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else if path.is_empty() {
        prefix.to_owned()
    } else if path.starts_with('[') {
        format!("{prefix}{path}")
    } else {
        format!("{prefix}.{path}")
    }
}

#[cfg(test)]
mod tests;
