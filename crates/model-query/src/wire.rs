//! The JSON form of `TaskQuery`: a raw twin that serde reads, then validated into the query.

use model_ids::Limit;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::{
    error::QueryError,
    order::SortOrder,
    query::{TaskQuery, TaskQueryBuilder},
    range::{TimeRange, format_time, parse_time},
    token::{CONTINUE_FIELD, ContinueToken},
    values::{
        MAX_PHASES, bounded_strings, check_limit, field, items, parse_id, parse_phase,
        parse_selector, parse_slot,
    },
};

/// The JSON shape of a [`TaskQuery`], camelCase; `tenant` is required, every other field is
/// optional, and `null` reads as the field left out.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawTaskQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tenant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slot: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "bounded_strings::<_, Phases>"
    )]
    phases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updated_since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updated_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    order: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limit: Option<i64>,
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
}

/// The bound of the `phases` array ([`MAX_PHASES`]), with [`QueryError::TooManyPhases`].
enum Phases {}

impl Limit for Phases {
    const FIELD: &'static str = "phases";
    const MAX: usize = MAX_PHASES;

    fn too_many<E: de::Error>() -> E {
        E::custom(QueryError::TooManyPhases {
            field: Self::FIELD.to_owned(),
            max: Self::MAX,
        })
    }
}

impl TryFrom<RawTaskQuery> for TaskQuery {
    type Error = QueryError;

    fn try_from(raw: RawTaskQuery) -> Result<Self, Self::Error> {
        let mut builder = TaskQueryBuilder::unscoped();
        if let Some(tenant) = field("tenant", raw.tenant, parse_id)? {
            builder = builder.tenant(tenant);
        }
        if let Some(slot) = field("slot", raw.slot, parse_slot)? {
            builder = builder.slot(slot);
        }
        builder = builder.phases(items("phases", &raw.phases, parse_phase)?);
        if let Some(selector) = field("labelSelector", raw.label_selector, parse_selector)? {
            builder = builder.label_selector(selector);
        }
        builder = builder
            .created(TimeRange::new(
                field("createdSince", raw.created_since, parse_time)?,
                field("createdBefore", raw.created_before, parse_time)?,
            ))
            .updated(TimeRange::new(
                field("updatedSince", raw.updated_since, parse_time)?,
                field("updatedBefore", raw.updated_before, parse_time)?,
            ));
        if let Some(order) = field("order", raw.order, SortOrder::parse_for)? {
            builder = builder.order(order);
        }
        if let Some(limit) = raw.limit {
            builder = builder.limit(check_limit("limit", limit)?);
        }
        if let Some(cursor) = raw.cursor {
            builder = builder.continue_from(ContinueToken::parse_for(CONTINUE_FIELD, &cursor)?);
        }
        builder.build()
    }
}

impl From<&TaskQuery> for RawTaskQuery {
    fn from(query: &TaskQuery) -> Self {
        RawTaskQuery {
            tenant: Some(query.tenant.to_string()),
            slot: query.slot.as_ref().map(ToString::to_string),
            phases: query.phases.iter().map(ToString::to_string).collect(),
            label_selector: query.selector.as_ref().map(ToString::to_string),
            created_since: query.created.since.map(format_time),
            created_before: query.created.before.map(format_time),
            updated_since: query.updated.since.map(format_time),
            updated_before: query.updated.before.map(format_time),
            order: Some(query.order.to_string()),
            limit: Some(i64::from(query.limit)),
            cursor: query.cursor.as_ref().map(ToString::to_string),
        }
    }
}

/// Serializes as the camelCase JSON object; `tenant`, `order` and `limit` are always written.
impl Serialize for TaskQuery {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawTaskQuery::from(self).serialize(serializer)
    }
}

/// Deserializes from the camelCase JSON object and validates like the builder; unknown
/// fields are rejected and the error names the field.
impl<'de> Deserialize<'de> for TaskQuery {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawTaskQuery::deserialize(deserializer)?;
        TaskQuery::try_from(raw).map_err(de::Error::custom)
    }
}
