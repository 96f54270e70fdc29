//! `TaskRunQuery` from and to already-decoded URL query pairs
//! (`tenant=a&task=t&state=failed&...`).

use super::{MAX_STATES, TaskRunQuery, TaskRunQueryBuilder};
use crate::{
    error::QueryError,
    order::SortOrder,
    pairs::{Params, checked},
    token::RunContinueToken,
    values::{parse_id, parse_limit, parse_state},
};

/// The most query pairs [`TaskRunQuery::from_pairs`] reads (22); one more is an error. It is
/// the most a valid query can have: every parameter once and `state` [`MAX_STATES`] times.
pub const MAX_RUN_QUERY_PAIRS: usize = Param::ALL.len() - 1 + MAX_STATES;

/// A URL query parameter of a run query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Tenant,
    Task,
    State,
    Runner,
    Order,
    Limit,
    Continue,
}

impl Params for Param {
    const ALL: &'static [Param] = &[
        Param::Tenant,
        Param::Task,
        Param::State,
        Param::Runner,
        Param::Order,
        Param::Limit,
        Param::Continue,
    ];
    const NAMES: &'static str = "tenant, task, state, runner, order, limit, continue";
    const REPEATED: Param = Param::State;
    const MAX_REPEATS: usize = MAX_STATES;
    const MAX_PAIRS: usize = MAX_RUN_QUERY_PAIRS;

    fn name(self) -> &'static str {
        match self {
            Param::Tenant => "tenant",
            Param::Task => "task",
            Param::State => "state",
            Param::Runner => "runner",
            Param::Order => "order",
            Param::Limit => "limit",
            Param::Continue => "continue",
        }
    }

    fn too_many(field: &str) -> QueryError {
        QueryError::TooManyStates {
            field: field.to_owned(),
            max: MAX_STATES,
        }
    }
}

impl TaskRunQuery {
    /// Parses a run query from URL query pairs that are already percent-decoded.
    ///
    /// | parameter | value | default |
    /// |---|---|---|
    /// | `tenant` | the task's tenant | required |
    /// | `task` | the task's id | required |
    /// | `state` | an attempt state (`failed`, any case); repeat for several | any state |
    /// | `runner` | a runner id | any runner |
    /// | `order` | `asc` or `desc` (also `ascending`, `descending`, any case) | `asc` |
    /// | `limit` | 1 to [`MAX_LIMIT`](crate::MAX_LIMIT) | [`DEFAULT_LIMIT`](crate::DEFAULT_LIMIT) |
    /// | `continue` | a token from the previous page's `next` | first page |
    ///
    /// Names are case-sensitive; `state` may repeat (up to [`MAX_STATES`] times), any other
    /// repeated parameter is an error, as is an unknown one. At most [`MAX_RUN_QUERY_PAIRS`]
    /// pairs and values of at most [`MAX_VALUE_LEN`](crate::MAX_VALUE_LEN) bytes are read.
    ///
    /// ```
    /// use model_query::{QueryError, TaskRunQuery};
    ///
    /// let err = TaskRunQuery::from_pairs([("task", "t1")]).unwrap_err();
    /// assert!(matches!(err, QueryError::MissingParameter { .. }));
    /// assert_eq!(err.field(), Some("tenant"));
    /// # Ok::<(), QueryError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`QueryError::MissingParameter`] without `tenant` or `task`;
    /// [`TooManyParameters`](QueryError::TooManyParameters),
    /// [`UnknownParameter`](QueryError::UnknownParameter),
    /// [`DuplicateParameter`](QueryError::DuplicateParameter),
    /// [`ValueTooLong`](QueryError::ValueTooLong), [`TooManyStates`](QueryError::TooManyStates),
    /// a value error naming its parameter, or any error of
    /// [`TaskRunQueryBuilder::build`].
    pub fn from_pairs<I, K, V>(pairs: I) -> Result<TaskRunQuery, QueryError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut read = Read::default();
        for pair in checked::<Param, _, _, _>(pairs) {
            let (param, value) = pair?;
            let (field, value) = (param.name(), value.as_ref());
            match param {
                Param::Tenant => read.tenant = Some(parse_id(field, value)?),
                Param::Task => read.task = Some(parse_id(field, value)?),
                Param::State => read.states.push(parse_state(field, value)?),
                Param::Runner => read.runner = Some(parse_id(field, value)?),
                Param::Order => read.order = Some(SortOrder::parse_for(field, value)?),
                Param::Limit => read.limit = Some(parse_limit(field, value)?),
                Param::Continue => {
                    read.cursor = Some(RunContinueToken::parse_for(field, value)?);
                }
            }
        }
        read.builder()?.build()
    }

    /// The query as URL query pairs (not yet percent-encoded), in the form
    /// [`TaskRunQuery::from_pairs`] reads back to an equal query. `tenant`, `task`, `order`
    /// and `limit` are always written; other parameters only when set.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = vec![
            (Param::Tenant.name(), self.tenant.to_string()),
            (Param::Task.name(), self.task.to_string()),
        ];
        for state in &self.states {
            pairs.push((Param::State.name(), state.to_string()));
        }
        if let Some(runner) = &self.runner {
            pairs.push((Param::Runner.name(), runner.to_string()));
        }
        pairs.push((Param::Order.name(), self.order.to_string()));
        pairs.push((Param::Limit.name(), self.limit.to_string()));
        if let Some(cursor) = &self.cursor {
            pairs.push((Param::Continue.name(), cursor.to_string()));
        }
        pairs
    }
}

/// The parameters as read, before the builder (which needs the tenant and the task) exists.
#[derive(Default)]
pub(super) struct Read {
    pub(super) tenant: Option<model_ids::TenantId>,
    pub(super) task: Option<model_ids::TaskId>,
    pub(super) states: Vec<model_task::AttemptState>,
    pub(super) runner: Option<model_ids::RunnerId>,
    pub(super) order: Option<SortOrder>,
    pub(super) limit: Option<u32>,
    pub(super) cursor: Option<RunContinueToken>,
}

impl Read {
    /// The builder of what was read; the tenant and the task are required.
    pub(super) fn builder(self) -> Result<TaskRunQueryBuilder, QueryError> {
        let missing = |field: &str| QueryError::MissingParameter {
            field: field.to_owned(),
        };
        let tenant = self.tenant.ok_or_else(|| missing("tenant"))?;
        let task = self.task.ok_or_else(|| missing("task"))?;
        let mut builder = TaskRunQuery::builder(tenant, task).states(self.states);
        if let Some(runner) = self.runner {
            builder = builder.runner(runner);
        }
        if let Some(order) = self.order {
            builder = builder.order(order);
        }
        if let Some(limit) = self.limit {
            builder = builder.limit(limit);
        }
        if let Some(cursor) = self.cursor {
            builder = builder.continue_from(cursor);
        }
        Ok(builder)
    }
}
