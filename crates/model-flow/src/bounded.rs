//! The bound of each collection a raw twin reads from the wire, as [`Limit`](model_ids::Limit) markers for
//! [`model_ids::BoundedVec`] and [`model_ids::BoundedPairs`].

use crate::limits::{MAX_FLOW_JOBS, MAX_JOB_DEPENDENCIES, MAX_RESULT_ENTRIES};

model_ids::limits! {
    /// A flow's jobs ([`MAX_FLOW_JOBS`]).
    pub(crate) Jobs = "jobs", MAX_FLOW_JOBS;
    /// One job's dependencies ([`MAX_JOB_DEPENDENCIES`]).
    pub(crate) DependsOn = "dependsOn", MAX_JOB_DEPENDENCIES;
    /// One job's result ([`MAX_RESULT_ENTRIES`]).
    pub(crate) Result = "result", MAX_RESULT_ENTRIES;
    /// A flow's labels.
    pub(crate) Labels = "labels", model_selector::MAX_LABELS;
}
