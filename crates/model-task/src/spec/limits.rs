//! Size limits of a task spec: one public constant per rule, and the bound of each
//! collection a raw twin reads from the wire, as [`Limit`](model_ids::Limit) markers for
//! [`model_ids::BoundedVec`] and [`model_ids::BoundedPairs`]: a list or an object stops with
//! an error (`invalid args: more than 1024 entries`) as soon as it holds one entry more than
//! its limit, so a hostile document costs at most the limit in memory and time.

/// Most bytes a script body may hold after base64 decoding (2 MiB).
pub const MAX_SCRIPT_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Most bytes of base64 text a script body may hold before decoding:
/// `4 * ceil(MAX_SCRIPT_BODY_BYTES / 3)`, checked before anything is decoded.
pub const MAX_SCRIPT_BODY_ENCODED_BYTES: usize = MAX_SCRIPT_BODY_BYTES.div_ceil(3) * 4;

/// Most bytes in a command, a working directory, a container image or a wasm module reference.
pub const MAX_PATH_BYTES: usize = 4096;

/// Most bytes in one argument (and in a custom interpreter's flag).
pub const MAX_ARG_BYTES: usize = 32 * 1024;

/// Most arguments in one argument list (and entries in a container command).
pub const MAX_ARGS: usize = 1024;

/// Most entries in one environment (`TaskEnv` or `RunnerEnv`).
pub const MAX_ENV_VARS: usize = 512;

/// Most bytes in an environment key.
pub const MAX_ENV_KEY_BYTES: usize = 256;

/// Most bytes in an environment value.
pub const MAX_ENV_VALUE_BYTES: usize = 32 * 1024;

/// Longest per-attempt timeout in milliseconds (7 days).
pub const MAX_TIMEOUT_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// Lowest task priority (Kubernetes' user priority range, mirrored).
pub const MIN_PRIORITY: i32 = -1_000_000_000;

/// Highest task priority (Kubernetes' highest user priority class value).
pub const MAX_PRIORITY: i32 = 1_000_000_000;

/// Longest time a finished task is kept, in milliseconds (3650 days, about 10 years): far
/// below what a time plus it can overflow.
pub const MAX_TTL_AFTER_FINISHED_MS: u64 = 3650 * 24 * 60 * 60 * 1000;

model_ids::limits! {
    /// An argument list ([`MAX_ARGS`]).
    pub(crate) Args = "args", MAX_ARGS;
    /// A container's entrypoint ([`MAX_ARGS`]).
    pub(crate) Command = "command", MAX_ARGS;
    /// An environment ([`MAX_ENV_VARS`]).
    pub(crate) Env = "env", MAX_ENV_VARS;
    /// A selector's requirement list.
    pub(crate) MatchExpressions = "matchExpressions", model_selector::MAX_REQUIREMENTS;
    /// A selector's equality map.
    pub(crate) MatchLabels = "matchLabels", model_selector::MAX_REQUIREMENTS;
    /// A requirement's values.
    pub(crate) Values = "values", model_selector::MAX_VALUES;
    /// A spec's label set.
    pub(crate) SpecLabels = "labels", model_selector::MAX_LABELS;
}

#[cfg(test)]
mod tests;
