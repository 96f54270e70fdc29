//! The bound of each collection a raw twin reads from the wire, as [`Limit`] markers for
//! [`model_ids::BoundedVec`] and [`model_ids::BoundedPairs`]: a list or an object stops with
//! an error (`invalid args: more than 128 entries`) as soon as it holds one entry more than
//! its limit, so a hostile document costs at most the limit in memory and time.

use model_ids::Limit;

use crate::limits::{MAX_ARGS, MAX_ENV_VARS};

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
    /// An argument list ([`MAX_ARGS`]).
    Args = "args", MAX_ARGS;
    /// A container's entrypoint ([`MAX_ARGS`]).
    Command = "command", MAX_ARGS;
    /// An environment ([`MAX_ENV_VARS`]).
    Env = "env", MAX_ENV_VARS;
    /// A selector's requirement list.
    MatchExpressions = "matchExpressions", model_selector::MAX_REQUIREMENTS;
    /// A selector's equality map.
    MatchLabels = "matchLabels", model_selector::MAX_REQUIREMENTS;
    /// A requirement's values.
    Values = "values", model_selector::MAX_VALUES;
    /// A label set.
    Labels = "labels", model_selector::MAX_LABELS;
}

#[cfg(test)]
mod tests;
