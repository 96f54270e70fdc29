//! JSON Schema (feature `schema`) for `Labels`, `LabelSelector`, `SelectorRequirement` and
//! `SelectorOperator`, written from the same limits the parsers enforce.
//!
//! What JSON Schema cannot say, and only parsing checks: a `Gt`/`Lt` value fits in an
//! `i64`; `matchLabels` and `matchExpressions` together hold at most [`MAX_REQUIREMENTS`];
//! a label key appears once in the JSON text (a schema sees the object after duplicates
//! collapsed).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{
    labels::Labels,
    limits::{MAX_LABELS, MAX_NAME_LEN, MAX_PREFIX_LEN, MAX_REQUIREMENTS, MAX_VALUES},
    operator::SelectorOperator,
    requirement::SelectorRequirement,
    selector::LabelSelector,
};

/// A name: alphanumeric at both ends, `[A-Za-z0-9-_.]` between.
const NAME: &str = "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?";

/// One dot-separated part of a DNS-1123 subdomain.
const DNS_LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

/// The schema of a label key: an optional DNS-1123 subdomain prefix (at most
/// [`MAX_PREFIX_LEN`] bytes) and `/`, then a name of at most [`MAX_NAME_LEN`] bytes. One
/// pattern gives the shape, the other the two lengths; both are ASCII, so characters are bytes.
fn key_schema() -> Schema {
    json_schema!({
        "description": format!(
            "A label key: an optional lowercase DNS-1123 subdomain prefix of at most \
             {MAX_PREFIX_LEN} bytes and '/', then a name of 1 to {MAX_NAME_LEN} bytes of \
             [A-Za-z0-9-_.] that starts and ends with a letter or digit."
        ),
        "type": "string",
        "allOf": [
            { "pattern": format!("^({DNS_LABEL}(\\.{DNS_LABEL})*/)?{NAME}$") },
            { "pattern": format!("^([^/]{{1,{MAX_PREFIX_LEN}}}/)?[^/]{{1,{MAX_NAME_LEN}}}$") },
        ],
    })
}

/// The schema of a label value: empty, or a name of at most [`MAX_NAME_LEN`] bytes.
fn value_schema() -> Schema {
    json_schema!({
        "description": format!(
            "A label value: empty, or 1 to {MAX_NAME_LEN} bytes of [A-Za-z0-9-_.] that start \
             and end with a letter or digit."
        ),
        "type": "string",
        "maxLength": MAX_NAME_LEN,
        "pattern": format!("^({NAME})?$"),
    })
}

impl JsonSchema for SelectorOperator {
    fn schema_name() -> Cow<'static, str> {
        "SelectorOperator".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_selector::SelectorOperator".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "How a requirement tests a label, in PascalCase as Kubernetes \
                writes it.",
            "type": "string",
            "enum": SelectorOperator::ALL.map(SelectorOperator::as_str),
        })
    }
}

impl JsonSchema for Labels {
    fn schema_name() -> Cow<'static, str> {
        "Labels".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_selector::Labels".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": format!(
                "Labels: an object of at most {MAX_LABELS} label keys mapped to label values."
            ),
            "type": "object",
            "maxProperties": MAX_LABELS,
            "propertyNames": key_schema(),
            "additionalProperties": value_schema(),
        })
    }
}

impl JsonSchema for SelectorRequirement {
    fn schema_name() -> Cow<'static, str> {
        "SelectorRequirement".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_selector::SelectorRequirement".into()
    }

    /// The value count and kind depend on the operator: one `if`/`then` per operator group.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let operator = generator.subschema_for::<SelectorOperator>();
        let when = |operators: &[SelectorOperator], then: Schema| {
            let names: Vec<&str> = operators.iter().map(|o| o.as_str()).collect();
            json_schema!({
                "if": {
                    "required": ["operator"],
                    "properties": { "operator": { "enum": names } },
                },
                "then": then,
            })
        };
        json_schema!({
            "description": format!(
                "One requirement on a label: In and NotIn take 1 to {MAX_VALUES} label values, \
                 Exists and DoesNotExist none, Gt and Lt exactly one decimal i64."
            ),
            "type": "object",
            "required": ["key", "operator"],
            "properties": {
                "key": key_schema(),
                "operator": operator,
                "values": {
                    "type": "array",
                    "maxItems": MAX_VALUES,
                    "items": { "type": "string" },
                },
            },
            "additionalProperties": false,
            "allOf": [
                when(
                    &[SelectorOperator::In, SelectorOperator::NotIn],
                    json_schema!({
                        "required": ["values"],
                        "properties": { "values": { "minItems": 1, "items": value_schema() } },
                    }),
                ),
                when(
                    &[SelectorOperator::Exists, SelectorOperator::DoesNotExist],
                    json_schema!({ "properties": { "values": { "maxItems": 0 } } }),
                ),
                when(
                    &[SelectorOperator::Gt, SelectorOperator::Lt],
                    json_schema!({
                        "required": ["values"],
                        "properties": {
                            "values": {
                                "minItems": 1,
                                "maxItems": 1,
                                "items": { "pattern": "^[+-]?[0-9]+$" },
                            },
                        },
                    }),
                ),
            ],
        })
    }
}

impl JsonSchema for LabelSelector {
    fn schema_name() -> Cow<'static, str> {
        "LabelSelector".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_selector::LabelSelector".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let labels = generator.subschema_for::<Labels>();
        let requirement = generator.subschema_for::<SelectorRequirement>();
        json_schema!({
            "description": format!(
                "A Kubernetes-style label selector: every matchLabels entry and every \
                 matchExpressions requirement must hold (at most {MAX_REQUIREMENTS} in all). \
                 The empty selector matches everything."
            ),
            "type": "object",
            "properties": {
                "matchLabels": labels,
                "matchExpressions": {
                    "type": "array",
                    "maxItems": MAX_REQUIREMENTS,
                    "items": requirement,
                },
            },
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    use schemars::schema_for;

    use super::*;

    #[test]
    fn operators_are_listed_in_their_wire_spelling() {
        let schema = schema_for!(SelectorOperator);
        let listed = schema.get("enum").and_then(|e| e.as_array()).map(Vec::len);
        assert_eq!(listed, Some(SelectorOperator::ALL.len()));
        assert_eq!(
            schema.get("enum").and_then(|e| e.get(3)),
            Some(&serde_json::json!("DoesNotExist"))
        );
    }

    #[test]
    fn the_selector_refers_to_labels_and_requirements() {
        let schema = serde_json::to_value(schema_for!(LabelSelector)).unwrap();
        let defs = &schema["$defs"];
        for name in ["Labels", "SelectorRequirement", "SelectorOperator"] {
            assert!(
                defs.get(name).is_some(),
                "{name} missing from $defs: {schema}"
            );
        }
        assert_eq!(schema["additionalProperties"], false);
    }
}
