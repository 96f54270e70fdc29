//! The bound of each collection a raw twin reads from the wire, as [`Limit`] markers for
//! [`model_ids::BoundedVec`] and [`model_ids::BoundedPairs`].

use model_ids::Limit;

use crate::limits::{MAX_FLOW_JOBS, MAX_JOB_DEPENDENCIES, MAX_RESULT_ENTRIES};

/// Defines one uninhabited marker type per bounded field, with the default error.
macro_rules! limits {
    ($($(#[$meta:meta])* $name:ident = $field:literal, $max:expr;)*) => {$(
        $(#[$meta])*
        pub(crate) enum $name {}

        impl Limit for $name {
            const FIELD: &'static str = $field;
            const MAX: usize = $max;
        }
    )*};
}

limits! {
    /// A flow's jobs ([`MAX_FLOW_JOBS`]).
    Jobs = "jobs", MAX_FLOW_JOBS;
    /// One job's dependencies ([`MAX_JOB_DEPENDENCIES`]).
    DependsOn = "dependsOn", MAX_JOB_DEPENDENCIES;
    /// One job's result ([`MAX_RESULT_ENTRIES`]).
    Result = "result", MAX_RESULT_ENTRIES;
    /// A flow's labels.
    Labels = "labels", model_selector::MAX_LABELS;
}
