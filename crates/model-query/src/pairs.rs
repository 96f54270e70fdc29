//! `TaskQuery` from and to already-decoded URL query pairs (`tenant=a&phase=running&...`),
//! and the checks every query's pairs go through ([`checked`]).

use crate::{
    error::QueryError,
    order::SortOrder,
    query::TaskQuery,
    query::TaskQueryBuilder,
    range::{format_time, parse_time},
    token::ContinueToken,
    values::{
        MAX_PHASES, check_len, parse_id, parse_limit, parse_phase, parse_selector, parse_slot,
    },
};
use model_ids::text::shorten;

/// The most query pairs [`TaskQuery::from_pairs`] reads (26); one more is an error. It is
/// the most a valid query can have: every parameter once and `phase` [`MAX_PHASES`] times.
pub const MAX_QUERY_PAIRS: usize = Param::ALL.len() - 1 + MAX_PHASES;

/// The URL parameters of one kind of query: a closed set of names, one of which may repeat.
pub(crate) trait Params: Copy + Eq + 'static {
    /// Every parameter (at most 32).
    const ALL: &'static [Self];
    /// The accepted names, for error messages.
    const NAMES: &'static str;
    /// The one parameter that may repeat.
    const REPEATED: Self;
    /// How often [`REPEATED`](Self::REPEATED) may be given.
    const MAX_REPEATS: usize;
    /// The most pairs read: every parameter once and the repeated one as often as allowed.
    const MAX_PAIRS: usize;

    /// The parameter's name in a URL (case-sensitive).
    fn name(self) -> &'static str;

    /// The error for one repeat too many of `field`.
    fn too_many(field: &str) -> QueryError;
}

/// Each pair as its parameter and value, after the checks every query's pairs go through, in
/// this order: at most [`Params::MAX_PAIRS`] pairs, a known name, no repeat but of
/// [`Params::REPEATED`] (at most [`Params::MAX_REPEATS`] times), a value of at most
/// [`MAX_VALUE_LEN`](crate::MAX_VALUE_LEN) bytes. A caller stops at the first error.
pub(crate) fn checked<P, I, K, V>(pairs: I) -> impl Iterator<Item = Result<(P, V), QueryError>>
where
    P: Params,
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut seen = [false; 32];
    let mut repeats = 0_usize;
    pairs
        .into_iter()
        .enumerate()
        .map(move |(index, (name, value))| {
            if index >= P::MAX_PAIRS {
                return Err(QueryError::TooManyParameters { max: P::MAX_PAIRS });
            }
            let name = name.as_ref();
            let (bit, param) = P::ALL
                .iter()
                .copied()
                .enumerate()
                .find(|(_, param)| param.name() == name)
                .ok_or_else(|| QueryError::UnknownParameter {
                    field: shorten(name),
                    expected: P::NAMES,
                })?;
            let field = param.name();
            if param == P::REPEATED {
                repeats += 1;
                if repeats > P::MAX_REPEATS {
                    return Err(P::too_many(field));
                }
            } else if seen
                .get_mut(bit)
                .is_some_and(|seen| std::mem::replace(seen, true))
            {
                return Err(QueryError::DuplicateParameter {
                    field: field.to_owned(),
                });
            }
            check_len(field, value.as_ref())?;
            Ok((param, value))
        })
}

/// A URL query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Tenant,
    Slot,
    Phase,
    LabelSelector,
    CreatedSince,
    CreatedBefore,
    UpdatedSince,
    UpdatedBefore,
    Order,
    Limit,
    Continue,
}

impl Params for Param {
    const ALL: &'static [Param] = &[
        Param::Tenant,
        Param::Slot,
        Param::Phase,
        Param::LabelSelector,
        Param::CreatedSince,
        Param::CreatedBefore,
        Param::UpdatedSince,
        Param::UpdatedBefore,
        Param::Order,
        Param::Limit,
        Param::Continue,
    ];
    const NAMES: &'static str = "tenant, slot, phase, labelSelector, createdSince, \
                                 createdBefore, updatedSince, updatedBefore, order, limit, \
                                 continue";
    const REPEATED: Param = Param::Phase;
    const MAX_REPEATS: usize = MAX_PHASES;
    const MAX_PAIRS: usize = MAX_QUERY_PAIRS;

    fn name(self) -> &'static str {
        match self {
            Param::Tenant => "tenant",
            Param::Slot => "slot",
            Param::Phase => "phase",
            Param::LabelSelector => "labelSelector",
            Param::CreatedSince => "createdSince",
            Param::CreatedBefore => "createdBefore",
            Param::UpdatedSince => "updatedSince",
            Param::UpdatedBefore => "updatedBefore",
            Param::Order => "order",
            Param::Limit => "limit",
            Param::Continue => "continue",
        }
    }

    fn too_many(field: &str) -> QueryError {
        QueryError::TooManyPhases {
            field: field.to_owned(),
            max: MAX_PHASES,
        }
    }
}

impl TaskQuery {
    /// Parses a query from URL query pairs that are already percent-decoded, as a web
    /// framework hands them over.
    ///
    /// | parameter | value | default |
    /// |---|---|---|
    /// | `tenant` | the tenant whose tasks are listed | required |
    /// | `slot` | a slot | any slot |
    /// | `phase` | a phase (`running`, any case); repeat for several | any phase |
    /// | `labelSelector` | selector syntax, `zone=eu,gpu in (a,b)` | every task |
    /// | `createdSince`, `updatedSince` | RFC 3339 time, inclusive (a year beyond 0000 to 9999 with a sign: `+10000-01-01T00:00:00Z`) | unbounded |
    /// | `createdBefore`, `updatedBefore` | RFC 3339 time, exclusive | unbounded |
    /// | `order` | `asc` or `desc` (also `ascending`, `descending`, any case) | `asc` |
    /// | `limit` | 1 to [`MAX_LIMIT`](crate::MAX_LIMIT) | [`DEFAULT_LIMIT`](crate::DEFAULT_LIMIT) |
    /// | `continue` | a token from the previous page's `next` | first page |
    ///
    /// Names are case-sensitive. `phase` may repeat (up to [`MAX_PHASES`] times); any
    /// other repeated parameter is an error, as is an unknown one. At most
    /// [`MAX_QUERY_PAIRS`] pairs and values of at most [`MAX_VALUE_LEN`](crate::MAX_VALUE_LEN)
    /// bytes are read. An empty value is checked like any other (`continue=` is an
    /// empty token, `labelSelector=` selects everything).
    ///
    /// ```
    /// use model_query::{QueryError, TaskQuery};
    ///
    /// let query = TaskQuery::from_pairs([
    ///     ("tenant", "team-a"),
    ///     ("phase", "running"),
    ///     ("phase", "failed"),
    ///     ("limit", "50"),
    /// ])?;
    /// assert_eq!(query.phases().len(), 2);
    ///
    /// let err = TaskQuery::from_pairs([("phase", "running")]).unwrap_err();
    /// assert!(matches!(err, QueryError::MissingParameter { .. }));
    /// assert_eq!(err.field(), Some("tenant"));
    ///
    /// let err = TaskQuery::from_pairs([("tenant", "team-a"), ("phase", "runing")]).unwrap_err();
    /// assert!(matches!(err, QueryError::InvalidPhase { .. }));
    /// assert_eq!(err.field(), Some("phase"));
    ///
    /// let err = TaskQuery::from_pairs([("colour", "red")]).unwrap_err();
    /// assert!(matches!(err, QueryError::UnknownParameter { .. }));
    /// assert_eq!(err.field(), Some("colour"));
    /// # Ok::<(), QueryError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`QueryError::MissingParameter`] without `tenant`;
    /// [`TooManyParameters`](QueryError::TooManyParameters),
    /// [`UnknownParameter`](QueryError::UnknownParameter),
    /// [`DuplicateParameter`](QueryError::DuplicateParameter),
    /// [`ValueTooLong`](QueryError::ValueTooLong), [`TooManyPhases`](QueryError::TooManyPhases),
    /// a value error naming its parameter, or any error of
    /// [`TaskQueryBuilder::build`](crate::TaskQueryBuilder::build).
    pub fn from_pairs<I, K, V>(pairs: I) -> Result<TaskQuery, QueryError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut builder = TaskQueryBuilder::unscoped();
        for pair in checked::<Param, _, _, _>(pairs) {
            let (param, value) = pair?;
            let (field, value) = (param.name(), value.as_ref());
            builder = match param {
                Param::Tenant => builder.tenant(parse_id(field, value)?),
                Param::Slot => builder.slot(parse_slot(field, value)?),
                Param::Phase => builder.phase(parse_phase(field, value)?),
                Param::LabelSelector => builder.label_selector(parse_selector(field, value)?),
                Param::CreatedSince => builder.created_since(parse_time(field, value)?),
                Param::CreatedBefore => builder.created_before(parse_time(field, value)?),
                Param::UpdatedSince => builder.updated_since(parse_time(field, value)?),
                Param::UpdatedBefore => builder.updated_before(parse_time(field, value)?),
                Param::Order => builder.order(SortOrder::parse_for(field, value)?),
                Param::Limit => builder.limit(parse_limit(field, value)?),
                Param::Continue => builder.continue_from(ContinueToken::parse_for(field, value)?),
            };
        }
        builder.build()
    }

    /// The query as URL query pairs (not yet percent-encoded), in the form
    /// [`TaskQuery::from_pairs`] reads back to an equal query. `tenant`, `order` and `limit`
    /// are always written; other parameters only when set.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = vec![(Param::Tenant.name(), self.tenant.to_string())];
        if let Some(slot) = &self.slot {
            pairs.push((Param::Slot.name(), slot.to_string()));
        }
        for phase in &self.phases {
            pairs.push((Param::Phase.name(), phase.to_string()));
        }
        if let Some(selector) = &self.selector {
            pairs.push((Param::LabelSelector.name(), selector.to_string()));
        }
        for (param, time) in [
            (Param::CreatedSince, self.created.since),
            (Param::CreatedBefore, self.created.before),
            (Param::UpdatedSince, self.updated.since),
            (Param::UpdatedBefore, self.updated.before),
        ] {
            if let Some(time) = time {
                pairs.push((param.name(), format_time(time)));
            }
        }
        pairs.push((Param::Order.name(), self.order.to_string()));
        pairs.push((Param::Limit.name(), self.limit.to_string()));
        if let Some(cursor) = &self.cursor {
            pairs.push((Param::Continue.name(), cursor.to_string()));
        }
        pairs
    }
}
