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
        let pairs = deserializer.deserialize_map(PairsVisitor)?;
        Labels::from_pairs(pairs.0).map_err(de::Error::custom)
    }
}

/// Keeps one element past `N` so the validator reports the limit with its path, and
/// skips the rest without storing it.
struct Bounded<T, const N: usize>(Vec<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Bounded<T, N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for SeqVisitor<T, N> {
            type Value = Bounded<T, N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() <= N {
                    match seq.next_element()? {
                        Some(item) => items.push(item),
                        None => return Ok(Bounded(items)),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Bounded(items))
            }
        }
        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// Pairs of a JSON object, at most `MAX_LABELS + 1` kept (see [`Bounded`]).
struct Pairs(Vec<(String, String)>);

struct PairsVisitor;

impl<'de> Visitor<'de> for PairsVisitor {
    type Value = Pairs;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of label keys to values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Vec::new();
        while pairs.len() <= MAX_LABELS {
            match map.next_entry()? {
                Some(pair) => pairs.push(pair),
                None => return Ok(Pairs(pairs)),
            }
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Pairs(pairs))
    }
}

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PairsVisitor)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WireSelector {
    #[serde(default)]
    match_labels: Option<Pairs>,
    #[serde(default)]
    match_expressions: Option<Bounded<WireRequirement, MAX_REQUIREMENTS>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRequirement {
    key: String,
    operator: String,
    #[serde(default)]
    values: Option<Bounded<String, MAX_VALUES>>,
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
