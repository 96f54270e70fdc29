//! The bounds of everything a flow reads from outside, as public constants.

/// The most jobs in one flow.
pub const MAX_FLOW_JOBS: usize = 100_000;

/// The most entries in one job's `dependsOn`.
pub const MAX_JOB_DEPENDENCIES: usize = 1_000;

/// The most `dependsOn` entries over all the jobs of one flow.
pub const MAX_FLOW_DEPENDENCIES: usize = 1_000_000;

/// The most entries in one job's result.
pub const MAX_RESULT_ENTRIES: usize = 64;

/// The longest key of a job's result, in bytes.
pub const MAX_RESULT_KEY_BYTES: usize = 256;

/// The longest value of a job's result, in bytes.
pub const MAX_RESULT_VALUE_BYTES: usize = 64 * 1024;

/// The most bytes of results (keys and values) one flow run holds over all its jobs.
pub const MAX_FLOW_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// The most cycles a [`FlowError::Cycle`](crate::FlowError::Cycle) lists; it counts the others.
pub const MAX_REPORTED_CYCLES: usize = 16;

/// The most job names an error message shows of one cycle; a longer cycle is shown with its
/// middle left out (the error's [`FlowCycle`](crate::FlowCycle) keeps the whole path).
pub const MAX_CYCLE_JOBS_SHOWN: usize = 32;
