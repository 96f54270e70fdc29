//! Serde: `Labels` as a JSON object, selectors and requirements in the Kubernetes
//! `metav1.LabelSelector` shape, validated and bounded on the way in.

use std::{fmt, marker::PhantomData};

use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor},
    ser::{SerializeMap, SerializeSeq},
};

use crate::{
    error::SelectorError,
    labels::Labels,
    limits::{MAX_LABELS, MAX_REQUIREMENTS, MAX_VALUES},
    operator::SelectorOperator,
    requirement::SelectorRequirement,
    selector::{LabelSelector, RequirementView, too_many_requirements},
};

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pairs = Pairs::<LabelsLimit>::deserialize(deserializer)?;
        Labels::from_pairs(pairs.0).map_err(de::Error::custom)
    }
}

/// The bound of one collection read from the wire: where it is, what it counts, and its limit.
trait Limit {
    /// The collection's field path, relative to the value being read (empty for the value
    /// itself).
    const FIELD: &'static str;
    /// What is counted, as [`SelectorError::TooMany`] names it.
    const WHAT: &'static str;
    /// The most entries allowed, one of the public `MAX_*` constants.
    const MAX: usize;
}

/// Defines one uninhabited marker type per bounded collection.
macro_rules! limits {
    ($($(#[$meta:meta])* $name:ident = $field:literal, $what:literal, $max:expr;)*) => {$(
        $(#[$meta])*
        enum $name {}

        impl Limit for $name {
            const FIELD: &'static str = $field;
            const WHAT: &'static str = $what;
            const MAX: usize = $max;
        }
    )*};
}

limits! {
    /// A [`Labels`] set read on its own ([`MAX_LABELS`]).
    LabelsLimit = "", "labels", MAX_LABELS;
    /// A selector's equality map, which counts toward its requirements ([`MAX_REQUIREMENTS`]).
    MatchLabelsLimit = "matchLabels", "requirements", MAX_REQUIREMENTS;
    /// A selector's requirement list ([`MAX_REQUIREMENTS`]).
    MatchExpressionsLimit = "matchExpressions", "requirements", MAX_REQUIREMENTS;
    /// A requirement's values ([`MAX_VALUES`]).
    ValuesLimit = "values", "values", MAX_VALUES;
}

/// The error for a collection with more than `L::MAX` entries.
fn too_many<L: Limit, E: de::Error>() -> E {
    E::custom(SelectorError::TooMany {
        path: L::FIELD.to_owned(),
        what: L::WHAT,
        limit: L::MAX,
    })
}

/// A list of at most `L::MAX` elements. Reading stops with an error at the element after the
/// limit, so a hostile document costs at most the limit in memory and time, whatever its length.
struct Bounded<T, L>(Vec<T>, PhantomData<L>);

impl<'de, T: Deserialize<'de>, L: Limit> Deserialize<'de> for Bounded<T, L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T, L>(PhantomData<(T, L)>);
        impl<'de, T: Deserialize<'de>, L: Limit> Visitor<'de> for SeqVisitor<T, L> {
            type Value = Bounded<T, L>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {} entries", L::MAX)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() < L::MAX {
                    match seq.next_element()? {
                        Some(item) => items.push(item),
                        None => return Ok(Bounded(items, PhantomData)),
                    }
                }
                // At the limit: one more element, read without storing it, is one too many.
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(too_many::<L, A::Error>()),
                    None => Ok(Bounded(items, PhantomData)),
                }
            }
        }
        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// The pairs of a JSON object of strings, in input order, at most `L::MAX` of them; reading
/// stops like [`Bounded`]'s.
struct Pairs<L>(Vec<(String, String)>, PhantomData<L>);

impl<'de, L: Limit> Deserialize<'de> for Pairs<L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<L>(PhantomData<L>);
        impl<'de, L: Limit> Visitor<'de> for MapVisitor<L> {
            type Value = Pairs<L>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an object of at most {} label keys to values", L::MAX)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while pairs.len() < L::MAX {
                    match map.next_entry()? {
                        Some(pair) => pairs.push(pair),
                        None => return Ok(Pairs(pairs, PhantomData)),
                    }
                }
                match map.next_key::<IgnoredAny>()? {
                    Some(_) => Err(too_many::<L, A::Error>()),
                    None => Ok(Pairs(pairs, PhantomData)),
                }
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WireSelector {
    #[serde(default)]
    match_labels: Option<Pairs<MatchLabelsLimit>>,
    #[serde(default)]
    match_expressions: Option<Bounded<WireRequirement, MatchExpressionsLimit>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRequirement {
    key: String,
    operator: String,
    #[serde(default)]
    values: Option<Bounded<String, ValuesLimit>>,
}

impl WireRequirement {
    fn validate(self) -> Result<SelectorRequirement, SelectorError> {
        let operator: SelectorOperator = self
            .operator
            .parse()
            .map_err(|e: SelectorError| e.prefixed("operator"))?;
        let values = self.values.map(|v| v.0).unwrap_or_default();
        SelectorRequirement::new(self.key, operator, values)
    }
}

impl WireSelector {
    fn validate(self) -> Result<LabelSelector, SelectorError> {
        let labels = self.match_labels.map(|p| p.0).unwrap_or_default();
        let expressions = self.match_expressions.map(|b| b.0).unwrap_or_default();
        if labels.len() + expressions.len() > MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        let labels = Labels::from_pairs(labels).map_err(|e| e.prefixed("matchLabels"))?;
        let expressions = expressions
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.validate()
                    .map_err(|e| e.prefixed(&format!("matchExpressions[{i}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        LabelSelector::from_parts(&labels, &expressions)
    }
}

impl<'de> Deserialize<'de> for LabelSelector {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        WireSelector::deserialize(deserializer)?
            .validate()
            .map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for SelectorRequirement {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        WireRequirement::deserialize(deserializer)?
            .validate()
            .map_err(de::Error::custom)
    }
}

fn serialize_requirement<S: Serializer>(
    serializer: S,
    key: &str,
    operator: SelectorOperator,
    values: &[String],
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(if values.is_empty() { 2 } else { 3 }))?;
    map.serialize_entry("key", key)?;
    map.serialize_entry("operator", &operator)?;
    if !values.is_empty() {
        map.serialize_entry("values", values)?;
    }
    map.end()
}

impl Serialize for SelectorRequirement {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_requirement(serializer, self.key(), self.operator(), self.values())
    }
}

impl Serialize for RequirementView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_requirement(serializer, self.key(), self.operator(), &self.wire_values())
    }
}

struct MatchLabels<'a>(&'a LabelSelector);

impl Serialize for MatchLabels<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.match_labels())
    }
}

struct MatchExpressions<'a>(&'a LabelSelector);

impl Serialize for MatchExpressions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for r in self.0.match_expressions() {
            seq.serialize_element(&r)?;
        }
        seq.end()
    }
}

/// `{"matchLabels": {...}, "matchExpressions": [...]}` in canonical order, each part
/// left out when empty.
impl Serialize for LabelSelector {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let has_labels = self.match_labels().next().is_some();
        let has_expressions = self.match_expressions().next().is_some();
        let mut map = serializer
            .serialize_map(Some(usize::from(has_labels) + usize::from(has_expressions)))?;
        if has_labels {
            map.serialize_entry("matchLabels", &MatchLabels(self))?;
        }
        if has_expressions {
            map.serialize_entry("matchExpressions", &MatchExpressions(self))?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests;
