//! The JSON form of `TaskRunQuery`: a raw twin that serde reads, then validated into the query.

use model_ids::Limit;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use super::{MAX_STATES, TaskRunQuery, pairs::Read};
use crate::{
    error::QueryError,
    order::SortOrder,
    token::{CONTINUE_FIELD, RunContinueToken},
    values::{bounded_strings, check_limit, field, items, parse_id, parse_state},
};

/// The JSON shape of a [`TaskRunQuery`], camelCase; `tenant` and `task` are required, every
/// other field is optional, and `null` reads as the field left out.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawTaskRunQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tenant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "bounded_strings::<_, States>"
    )]
    states: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    order: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limit: Option<i64>,
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
}

/// The bound of the `states` array ([`MAX_STATES`]), with [`QueryError::TooManyStates`].
enum States {}

impl Limit for States {
    const FIELD: &'static str = "states";
    const MAX: usize = MAX_STATES;

    fn too_many<E: de::Error>() -> E {
        E::custom(QueryError::TooManyStates {
            field: Self::FIELD.to_owned(),
            max: Self::MAX,
        })
    }
}

impl TryFrom<RawTaskRunQuery> for TaskRunQuery {
    type Error = QueryError;

    fn try_from(raw: RawTaskRunQuery) -> Result<Self, Self::Error> {
        let mut read = Read {
            tenant: field("tenant", raw.tenant, parse_id)?,
            task: field("task", raw.task, parse_id)?,
            runner: field("runner", raw.runner, parse_id)?,
            order: field("order", raw.order, SortOrder::parse_for)?,
            ..Read::default()
        };
        read.states = items("states", &raw.states, parse_state)?;
        if let Some(limit) = raw.limit {
            read.limit = Some(check_limit("limit", limit)?);
        }
        if let Some(cursor) = raw.cursor {
            read.cursor = Some(RunContinueToken::parse_for(CONTINUE_FIELD, &cursor)?);
        }
        read.builder()?.build()
    }
}

impl From<&TaskRunQuery> for RawTaskRunQuery {
    fn from(query: &TaskRunQuery) -> Self {
        RawTaskRunQuery {
            tenant: Some(query.tenant.to_string()),
            task: Some(query.task.to_string()),
            states: query.states.iter().map(ToString::to_string).collect(),
            runner: query.runner.as_ref().map(ToString::to_string),
            order: Some(query.order.to_string()),
            limit: Some(i64::from(query.limit)),
            cursor: query.cursor.as_ref().map(ToString::to_string),
        }
    }
}

/// Serializes as the camelCase JSON object; `tenant`, `task`, `order` and `limit` are always
/// written.
impl Serialize for TaskRunQuery {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawTaskRunQuery::from(self).serialize(serializer)
    }
}

/// Deserializes from the camelCase JSON object and validates like the builder; unknown fields
/// are rejected and the error names the field.
impl<'de> Deserialize<'de> for TaskRunQuery {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawTaskRunQuery::deserialize(deserializer)?;
        TaskRunQuery::try_from(raw).map_err(de::Error::custom)
    }
}
