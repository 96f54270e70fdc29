//! Serde: `Labels` as a JSON object, selectors and requirements in the Kubernetes
//! `metav1.LabelSelector` shape, validated and bounded on the way in.

use model_ids::{BoundedPairs, BoundedVec, Limit};
use serde::{
    Deserialize, Deserializer, Serialize, Serializer, de,
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
        let pairs = BoundedPairs::<LabelsLimit>::deserialize(deserializer)?;
        Labels::from_pairs(pairs.into_inner()).map_err(de::Error::custom)
    }
}

/// Defines one uninhabited marker type per bounded collection, read with
/// [`model_ids::BoundedVec`] or [`model_ids::BoundedPairs`]; the error is
/// [`SelectorError::TooMany`], counting `$what`.
macro_rules! limits {
    ($($(#[$meta:meta])* $name:ident = $field:literal, $what:literal, $max:expr;)*) => {$(
        $(#[$meta])*
        enum $name {}

        impl Limit for $name {
            const FIELD: &'static str = $field;
            const MAX: usize = $max;

            fn too_many<E: de::Error>() -> E {
                E::custom(SelectorError::TooMany {
                    path: Self::FIELD.to_owned(),
                    what: $what,
                    limit: Self::MAX,
                })
            }
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WireSelector {
    #[serde(default)]
    match_labels: Option<BoundedPairs<MatchLabelsLimit>>,
    #[serde(default)]
    match_expressions: Option<BoundedVec<WireRequirement, MatchExpressionsLimit>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRequirement {
    key: String,
    operator: String,
    #[serde(default)]
    values: Option<BoundedVec<String, ValuesLimit>>,
}

impl WireRequirement {
    fn validate(self) -> Result<SelectorRequirement, SelectorError> {
        let operator: SelectorOperator = self
            .operator
            .parse()
            .map_err(|e: SelectorError| e.prefixed("operator"))?;
        let values = self.values.unwrap_or_default().into_inner();
        SelectorRequirement::new(self.key, operator, values)
    }
}

impl WireSelector {
    fn validate(self) -> Result<LabelSelector, SelectorError> {
        let labels = self.match_labels.unwrap_or_default().into_inner();
        let expressions = self.match_expressions.unwrap_or_default().into_inner();
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
        let (has_labels, has_expressions) = self.has_parts();
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
