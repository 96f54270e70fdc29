//! JSON Schema (feature `schema`) for the JSON forms of `TaskQuery` and `TaskRunQuery`,
//! `SortOrder`, `ContinueToken` and `RunContinueToken`, written from the raw twins and the
//! limits parsing enforces.
//!
//! What JSON Schema cannot say, and only parsing checks: the label selector's string
//! syntax; `since` before `before` in each time range; a token's checksum, format version
//! and binding to the query that issued it; byte lengths of non-ASCII strings (`maxLength`
//! counts characters).

use std::borrow::Cow;

use model_ids::{RunnerId, Slot, TaskId, TenantId};
use model_task::{AttemptState, TaskPhase};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{
    order::SortOrder,
    query::TaskQuery,
    run::{MAX_STATES, TaskRunQuery},
    token::{ContinueToken, MAX_TOKEN_LEN, RunContinueToken},
    values::{MAX_LIMIT, MAX_PHASES, MAX_VALUE_LEN},
};

/// A regular expression matching exactly `words`, ASCII letters in any case.
fn any_case(words: &[&str]) -> String {
    let alternatives: Vec<String> = words
        .iter()
        .map(|word| {
            word.chars()
                .map(|c| {
                    if c.is_ascii_alphabetic() {
                        format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    format!("^({})$", alternatives.join("|"))
}

/// An RFC 3339 time as a query field.
fn time(description: &str) -> Schema {
    json_schema!({
        "description": description,
        "type": "string",
        "format": "date-time",
        "maxLength": MAX_VALUE_LEN,
    })
}

impl JsonSchema for SortOrder {
    fn schema_name() -> Cow<'static, str> {
        "SortOrder".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_query::SortOrder".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The direction of a listing by (createdAt, id): asc or desc \
                (ascending and descending, in any case, are read too).",
            "type": "string",
            "pattern": any_case(&["asc", "desc", "ascending", "descending"]),
            "examples": ["asc", "desc"],
        })
    }
}

/// A continuation token of `listing`.
fn token(listing: &str) -> Schema {
    json_schema!({
        "description": format!(
            "An opaque continuation token from a previous page of a {listing} listing: \
             URL-safe base64 without padding, bound to the query that issued it."
        ),
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_TOKEN_LEN,
        "pattern": "^[A-Za-z0-9_-]+$",
    })
}

impl JsonSchema for ContinueToken {
    fn schema_name() -> Cow<'static, str> {
        "ContinueToken".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_query::ContinueToken".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        token("task")
    }
}

impl JsonSchema for RunContinueToken {
    fn schema_name() -> Cow<'static, str> {
        "RunContinueToken".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_query::RunContinueToken".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        token("run-history")
    }
}

/// The `limit` property of both queries.
fn limit(what: &str) -> Schema {
    json_schema!({
        "description": format!("{what} per page."),
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_LIMIT,
    })
}

impl JsonSchema for TaskRunQuery {
    fn schema_name() -> Cow<'static, str> {
        "TaskRunQuery".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_query::TaskRunQuery".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let tenant = generator.subschema_for::<TenantId>();
        let task = generator.subschema_for::<TaskId>();
        let runner = generator.subschema_for::<RunnerId>();
        let order = generator.subschema_for::<SortOrder>();
        let token = generator.subschema_for::<RunContinueToken>();
        let states: Vec<&str> = AttemptState::ALL.iter().map(|s| s.as_str()).collect();
        json_schema!({
            "description": "Which attempts of one task a run-history listing returns, in \
                which order (by attempt number), and how many per page.",
            "type": "object",
            "required": ["tenant", "task"],
            "properties": {
                "tenant": tenant,
                "task": task,
                "states": {
                    "description": "Attempts in any of these states (any letter case).",
                    "type": "array",
                    "maxItems": MAX_STATES,
                    "items": { "type": "string", "pattern": any_case(&states) },
                },
                "runner": runner,
                "order": order,
                "limit": limit("Attempts"),
                "continue": token,
            },
            "additionalProperties": false,
        })
    }
}

impl JsonSchema for TaskQuery {
    fn schema_name() -> Cow<'static, str> {
        "TaskQuery".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_query::TaskQuery".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let tenant = generator.subschema_for::<TenantId>();
        let slot = generator.subschema_for::<Slot>();
        let order = generator.subschema_for::<SortOrder>();
        let token = generator.subschema_for::<ContinueToken>();
        let phases: Vec<String> = TaskPhase::ALL.iter().map(ToString::to_string).collect();
        let phases: Vec<&str> = phases.iter().map(String::as_str).collect();
        json_schema!({
            "description": "Which tasks of one tenant a listing returns, in which order, and \
                how many per page. Only the tenant is required; time ranges are half-open \
                [since, before).",
            "type": "object",
            "required": ["tenant"],
            "properties": {
                "tenant": tenant,
                "slot": slot,
                "phases": {
                    "description": "Tasks in any of these phases (any letter case).",
                    "type": "array",
                    "maxItems": MAX_PHASES,
                    "items": { "type": "string", "pattern": any_case(&phases) },
                },
                "labelSelector": {
                    "description": "A label selector over the task's labels, in the string \
                        syntax (zone=eu,gpu in (a100,h100),!draining).",
                    "type": "string",
                    "maxLength": MAX_VALUE_LEN,
                },
                "createdSince": time("Created at or after this time."),
                "createdBefore": time("Created before this time; after createdSince."),
                "updatedSince": time("Updated at or after this time."),
                "updatedBefore": time("Updated before this time; after updatedSince."),
                "order": order,
                "limit": limit("Tasks"),
                "continue": token,
            },
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::any_case;

    #[test]
    fn any_case_spells_every_letter_both_ways() {
        assert_eq!(any_case(&["ab", "c-1"]), "^([aA][bB]|[cC]-1)$");
    }
}
