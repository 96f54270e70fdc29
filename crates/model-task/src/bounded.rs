//! Reading collections from the wire with a bound: a list or an object stops with an error
//! as soon as it holds one entry more than its limit, so a hostile document costs at most the
//! limit in memory and time, whatever its length.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::limits::{MAX_ARGS, MAX_ENV_VARS};

/// The bound of one collection field: its wire name (for the error) and its limit.
pub(crate) trait Limit {
    /// The field's wire name, as the error names it.
    const FIELD: &'static str;
    /// The most entries allowed, one of the public `MAX_*` constants.
    const MAX: usize;
}

/// Defines one uninhabited marker type per bounded field.
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

/// The error for a collection with more than `L::MAX` entries.
fn too_many<L: Limit, E: de::Error>() -> E {
    E::custom(format_args!(
        "invalid {}: more than {} entries",
        L::FIELD,
        L::MAX
    ))
}

/// A JSON array of at most `L::MAX` elements.
pub(crate) struct BoundedVec<T, L>(pub(crate) Vec<T>, PhantomData<L>);

impl<T, L> BoundedVec<T, L> {
    /// The elements.
    pub(crate) fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<T, L> Default for BoundedVec<T, L> {
    fn default() -> Self {
        Self(Vec::new(), PhantomData)
    }
}

impl<'de, T: Deserialize<'de>, L: Limit> Deserialize<'de> for BoundedVec<T, L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T, L>(PhantomData<(T, L)>);

        impl<'de, T: Deserialize<'de>, L: Limit> Visitor<'de> for SeqVisitor<T, L> {
            type Value = BoundedVec<T, L>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {} entries", L::MAX)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() < L::MAX {
                    match seq.next_element()? {
                        Some(item) => items.push(item),
                        None => return Ok(BoundedVec(items, PhantomData)),
                    }
                }
                // At the limit: one more element, read without storing it, is one too many.
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(too_many::<L, A::Error>()),
                    None => Ok(BoundedVec(items, PhantomData)),
                }
            }
        }

        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// A JSON object of strings, in input order, with at most `L::MAX` entries.
pub(crate) struct BoundedPairs<L>(pub(crate) Vec<(String, String)>, PhantomData<L>);

impl<L> BoundedPairs<L> {
    /// The pairs, in input order.
    pub(crate) fn into_vec(self) -> Vec<(String, String)> {
        self.0
    }
}

impl<L> Default for BoundedPairs<L> {
    fn default() -> Self {
        Self(Vec::new(), PhantomData)
    }
}

impl<'de, L: Limit> Deserialize<'de> for BoundedPairs<L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<L>(PhantomData<L>);

        impl<'de, L: Limit> Visitor<'de> for MapVisitor<L> {
            type Value = BoundedPairs<L>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an object of at most {} strings", L::MAX)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while pairs.len() < L::MAX {
                    match map.next_entry()? {
                        Some(pair) => pairs.push(pair),
                        None => return Ok(BoundedPairs(pairs, PhantomData)),
                    }
                }
                match map.next_key::<IgnoredAny>()? {
                    Some(_) => Err(too_many::<L, A::Error>()),
                    None => Ok(BoundedPairs(pairs, PhantomData)),
                }
            }
        }

        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests;
