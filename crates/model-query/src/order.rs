//! The listing order: `SortKey` (creation time, then id) and `SortOrder` (its direction).

use model_ids::text::shorten;
use std::{cmp::Ordering, fmt, str::FromStr};

use chrono::{DateTime, Utc};
use model_ids::TaskId;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::error::QueryError;

/// The key tasks are listed by: creation time, then id to break ties.
///
/// Ids are unique, so the key is unique and the order is total: that is what lets a page
/// start *strictly after* the last key of the previous one (keyset pagination). `Ord`
/// is the ascending order; [`SortOrder`] says which way a listing goes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SortKey {
    /// When the task was created (compared first).
    pub created_at: DateTime<Utc>,
    /// The task's id (breaks ties between tasks created at the same instant; compared as
    /// strings, byte by byte).
    pub id: TaskId,
}

impl SortKey {
    /// A key from its two parts.
    pub fn new(created_at: DateTime<Utc>, id: TaskId) -> Self {
        SortKey { created_at, id }
    }
}

/// Compares the key parts `(created_at, id)` in ascending order without building a key.
pub(crate) fn cmp_parts(a: (DateTime<Utc>, &TaskId), b: (DateTime<Utc>, &TaskId)) -> Ordering {
    a.0.cmp(&b.0).then_with(|| a.1.as_str().cmp(b.1.as_str()))
}

/// The direction of a listing by [`SortKey`].
///
/// On the wire and in URLs: `asc` or `desc`. Parsing also accepts `ascending` and
/// `descending`, in any case.
///
/// ```
/// use model_query::SortOrder;
///
/// assert_eq!("DESC".parse::<SortOrder>()?, SortOrder::Descending);
/// assert_eq!(SortOrder::Ascending.to_string(), "asc");
/// assert_eq!(SortOrder::default(), SortOrder::Ascending);
/// # Ok::<(), model_query::QueryError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SortOrder {
    /// Oldest first (smallest key first).
    #[default]
    Ascending,
    /// Newest first (largest key first).
    Descending,
}

/// What an order parameter must look like, for error messages.
pub(crate) const ORDER_EXPECTED: &str = "asc or desc";

impl SortOrder {
    /// The wire form: `asc` or `desc`.
    pub fn as_str(self) -> &'static str {
        match self {
            SortOrder::Ascending => "asc",
            SortOrder::Descending => "desc",
        }
    }

    /// Compares two keys in this order: `Less` means `a` is listed before `b`.
    pub fn compare(self, a: &SortKey, b: &SortKey) -> Ordering {
        self.compare_parts((a.created_at, &a.id), (b.created_at, &b.id))
    }

    /// An ascending comparison turned into this order's.
    pub(crate) fn apply(self, ascending: Ordering) -> Ordering {
        match self {
            SortOrder::Ascending => ascending,
            SortOrder::Descending => ascending.reverse(),
        }
    }

    /// [`SortOrder::compare`] over the key parts, without building keys.
    pub(crate) fn compare_parts(
        self,
        a: (DateTime<Utc>, &TaskId),
        b: (DateTime<Utc>, &TaskId),
    ) -> Ordering {
        match self {
            SortOrder::Ascending => cmp_parts(a, b),
            SortOrder::Descending => cmp_parts(b, a),
        }
    }

    /// Parses an order for the parameter or field `field` (named in the error).
    pub(crate) fn parse_for(field: &str, input: &str) -> Result<Self, QueryError> {
        if input.eq_ignore_ascii_case("asc") || input.eq_ignore_ascii_case("ascending") {
            Ok(SortOrder::Ascending)
        } else if input.eq_ignore_ascii_case("desc") || input.eq_ignore_ascii_case("descending") {
            Ok(SortOrder::Descending)
        } else {
            Err(QueryError::InvalidValue {
                field: field.to_owned(),
                input: shorten(input),
                expected: ORDER_EXPECTED,
            })
        }
    }
}

impl fmt::Display for SortOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for SortOrder {
    type Err = QueryError;

    /// Parses `asc`, `desc`, `ascending` or `descending` in any case; the error names
    /// the field `order`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SortOrder::parse_for("order", s)
    }
}

impl Serialize for SortOrder {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SortOrder {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = SortOrder;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(ORDER_EXPECTED)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SortOrder, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}
