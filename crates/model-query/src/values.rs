//! Parsing query values from text, shared by URL pairs and JSON, with the field named; and
//! reading the JSON fields they come in (a string field, a bounded array of strings).

use std::str::FromStr;

use model_ids::text::shorten;
use model_ids::{BoundedVec, IdError, Limit, Slot};
use model_selector::LabelSelector;
use model_task::{AttemptState, TaskPhase};
use serde::{Deserialize, Deserializer};

use crate::error::QueryError;

/// The smallest number of tasks a page may ask for.
const MIN_LIMIT: u32 = 1;

/// The number of tasks a page holds when the query does not say.
pub const DEFAULT_LIMIT: u32 = 100;

/// The largest number of tasks a page may ask for. A larger limit is an error
/// ([`QueryError::LimitOutOfRange`]), never silently lowered.
pub const MAX_LIMIT: u32 = 1000;

/// The most phase values a query may list (URL `phase` pairs or JSON `phases` items),
/// counting repeats. There are only seven phases; the bound stops a long list before it
/// is read.
pub const MAX_PHASES: usize = 16;

/// The longest value accepted for any query parameter or JSON string field, in bytes,
/// checked before the value is parsed. Continuation tokens have their own, smaller bound
/// ([`MAX_TOKEN_LEN`](crate::MAX_TOKEN_LEN)).
pub const MAX_VALUE_LEN: usize = 8192;

/// What a limit must look like, for error messages.
const LIMIT_EXPECTED: &str = "an integer from 1 to 1000";

/// Rejects a value longer than [`MAX_VALUE_LEN`].
pub(crate) fn check_len(field: &str, input: &str) -> Result<(), QueryError> {
    if input.len() > MAX_VALUE_LEN {
        Err(QueryError::ValueTooLong {
            field: field.to_owned(),
            len: input.len(),
            max: MAX_VALUE_LEN,
        })
    } else {
        Ok(())
    }
}

/// Checks a limit given as a number.
pub(crate) fn check_limit(field: &str, limit: i64) -> Result<u32, QueryError> {
    u32::try_from(limit)
        .ok()
        .filter(|limit| (MIN_LIMIT..=MAX_LIMIT).contains(limit))
        .ok_or_else(|| QueryError::LimitOutOfRange {
            field: field.to_owned(),
            input: limit.to_string(),
            max: MAX_LIMIT,
        })
}

/// Parses a limit: decimal digits with an optional leading `-`. Anything else (`abc`,
/// `+5`, `1.5`, empty) is not a number; a number outside 1 to [`MAX_LIMIT`] (including
/// one too large for any integer type) is out of range.
pub(crate) fn parse_limit(field: &str, input: &str) -> Result<u32, QueryError> {
    let digits = input.strip_prefix('-').unwrap_or(input);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(QueryError::InvalidValue {
            field: field.to_owned(),
            input: shorten(input),
            expected: LIMIT_EXPECTED,
        });
    }
    match input.parse::<i64>() {
        Ok(limit) => check_limit(field, limit),
        Err(_) => Err(QueryError::LimitOutOfRange {
            field: field.to_owned(),
            input: shorten(input),
            max: MAX_LIMIT,
        }),
    }
}

/// Parses a slot.
pub(crate) fn parse_slot(field: &str, input: &str) -> Result<Slot, QueryError> {
    Slot::new(input).map_err(|source| QueryError::InvalidSlot {
        field: field.to_owned(),
        source,
    })
}

/// Parses a task phase (any letter case).
pub(crate) fn parse_phase(field: &str, input: &str) -> Result<TaskPhase, QueryError> {
    input
        .parse::<TaskPhase>()
        .map_err(|source| QueryError::InvalidPhase {
            field: field.to_owned(),
            source,
        })
}

/// Parses a label selector in its string syntax (`zone=eu,gpu in (a,b)`).
pub(crate) fn parse_selector(field: &str, input: &str) -> Result<LabelSelector, QueryError> {
    input
        .parse::<LabelSelector>()
        .map_err(|source| QueryError::InvalidSelector {
            field: field.to_owned(),
            source,
        })
}

/// Parses an identifier (a tenant, a task, a runner).
pub(crate) fn parse_id<T: FromStr<Err = IdError>>(
    field: &str,
    input: &str,
) -> Result<T, QueryError> {
    input.parse().map_err(|source| QueryError::InvalidId {
        field: field.to_owned(),
        source,
    })
}

/// What an attempt state must look like, for error messages.
pub(crate) const STATE_EXPECTED: &str =
    "one of leased, running, cancelling, succeeded, failed, timeout, canceled, expired";

/// Parses an attempt state (its wire name, any letter case).
pub(crate) fn parse_state(field: &str, input: &str) -> Result<AttemptState, QueryError> {
    AttemptState::ALL
        .into_iter()
        .find(|state| state.as_str().eq_ignore_ascii_case(input))
        .ok_or_else(|| QueryError::InvalidValue {
            field: field.to_owned(),
            input: shorten(input),
            expected: STATE_EXPECTED,
        })
}

/// Checks a JSON string field's length, then parses it; a field left out reads as `None`.
pub(crate) fn field<T>(
    name: &str,
    value: Option<String>,
    parse: impl FnOnce(&str, &str) -> Result<T, QueryError>,
) -> Result<Option<T>, QueryError> {
    value
        .map(|value| {
            check_len(name, &value)?;
            parse(name, &value)
        })
        .transpose()
}

/// Checks and parses each item of a JSON array field, naming the item (`phases[2]`).
pub(crate) fn items<T>(
    name: &str,
    values: &[String],
    parse: impl Fn(&str, &str) -> Result<T, QueryError>,
) -> Result<Vec<T>, QueryError> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let item = format!("{name}[{index}]");
            check_len(&item, value)?;
            parse(&item, value)
        })
        .collect()
}

/// Reads a JSON array of strings bounded by `L`, failing at item `L::MAX + 1` instead of
/// reading on; `null` reads as an empty array, like a field left out.
pub(crate) fn bounded_strings<'de, D: Deserializer<'de>, L: Limit>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    let values = Option::<BoundedVec<String, L>>::deserialize(deserializer)?;
    Ok(values.unwrap_or_default().into_inner())
}
