//! `TaskRunQuery` and its builder: one task's attempts, filtered, ordered by attempt number,
//! in keyset pages with the same tokens as task listings; its URL pairs and JSON form are in
//! `pairs` and `wire`.

use model_ids::{RunnerId, TaskId, TenantId};
use model_task::AttemptState;

use crate::{
    error::QueryError,
    filter::ValueSet,
    hash::Fnv64,
    item::QueryableRun,
    order::SortOrder,
    select::select_page,
    token::{CONTINUE_FIELD, RunContinueToken},
    values::{DEFAULT_LIMIT, check_limit},
};

mod pairs;
mod wire;

pub use self::pairs::MAX_RUN_QUERY_PAIRS;

/// Domain prefix of run query fingerprints (distinct from task queries').
const FINGERPRINT_DOMAIN: &[u8] = b"taskmodel.runquery.v1";

/// The most attempt states a run query may list (URL `state` pairs or JSON `states` items),
/// counting repeats. There are eight states; the bound stops a long list before it is read.
pub const MAX_STATES: usize = 16;

/// A validated query over one task's attempts, its run history: which attempts (filters), in
/// which order, how many per page, and where the page starts.
///
/// # Scope and filters
///
/// A run query names its `tenant` and its `task`, both required: it lists the attempts of that
/// one task, and a store answers it only after finding the task in that tenant (a run does not
/// carry its tenant; its task does). The filters are ANDed; an absent filter accepts every
/// attempt:
///
/// - `states`: the attempt's [`AttemptState`] is one of them (a set).
/// - `runner`: the attempt ran on this runner.
///
/// # Order and pages
///
/// Attempts are listed by attempt number, ascending (oldest first, the default) or
/// descending ([`SortOrder`]); a task's attempt numbers are unique, so the order is total. A
/// page holds at most `limit` attempts ([`DEFAULT_LIMIT`], 1 to
/// [`MAX_LIMIT`](crate::MAX_LIMIT)). A page with more after it carries a
/// [`RunContinueToken`]; the next page is the same query with that token and starts strictly
/// after the last attempt returned, exactly as task listings page (`docs/keyset-pagination.md`).
/// The token is bound to the query's tenant, task, filters and order; a token of another run
/// query is [`QueryError::TokenQueryMismatch`], a task listing's token
/// [`QueryError::TokenListingMismatch`].
///
/// # Ways in
///
/// [`TaskRunQuery::builder`], [`TaskRunQuery::from_pairs`] (decoded URL query parameters) and
/// serde (camelCase JSON, unknown fields rejected). All validate the same way.
///
/// ```
/// use model_query::{SortOrder, TaskRunQuery};
/// use model_task::AttemptState;
///
/// let query = TaskRunQuery::builder("team-a".parse()?, "nightly.9ix".parse()?)
///     .state(AttemptState::Failed)
///     .state(AttemptState::Expired)
///     .order(SortOrder::Descending)
///     .limit(20)
///     .build()?;
/// let same = TaskRunQuery::from_pairs([
///     ("tenant", "team-a"),
///     ("task", "nightly.9ix"),
///     ("state", "expired"),
///     ("state", "failed"),
///     ("order", "desc"),
///     ("limit", "20"),
/// ])?;
/// assert_eq!(same, query);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRunQuery {
    pub(crate) tenant: TenantId,
    pub(crate) task: TaskId,
    /// Sorted, without repeats.
    pub(crate) states: Vec<AttemptState>,
    pub(crate) runner: Option<RunnerId>,
    pub(crate) order: SortOrder,
    pub(crate) limit: u32,
    pub(crate) cursor: Option<RunContinueToken>,
    /// The fingerprint of the scope, filters and order.
    pub(crate) fingerprint: u64,
}

/// A page of a task's run history: the attempts, in order, and the token for the next page if
/// there is one.
///
/// `T` is the item type the query was evaluated over (`TaskRun`, `&TaskRun`, ...).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskRunPage<T = model_task::TaskRun> {
    /// The matching attempts of this page, in the query's order, at most `limit` of them.
    pub items: Vec<T>,
    /// Where the next page starts, or `None` if this is the last page.
    pub next: Option<RunContinueToken>,
}

impl TaskRunQuery {
    /// A builder for the run history of `task` in `tenant`: no filters, ascending order,
    /// [`DEFAULT_LIMIT`].
    pub fn builder(tenant: TenantId, task: TaskId) -> TaskRunQueryBuilder {
        TaskRunQueryBuilder {
            tenant,
            task,
            states: ValueSet::new(),
            runner: None,
            order: SortOrder::default(),
            limit: DEFAULT_LIMIT,
            cursor: None,
        }
    }

    /// A builder holding this query's settings, to change some of them.
    pub fn to_builder(&self) -> TaskRunQueryBuilder {
        TaskRunQueryBuilder {
            tenant: self.tenant.clone(),
            task: self.task.clone(),
            states: ValueSet::of(&self.states),
            runner: self.runner.clone(),
            order: self.order,
            limit: self.limit,
            cursor: self.cursor.clone(),
        }
    }

    /// The same query, continuing after `token` (a page's [`TaskRunPage::next`]).
    ///
    /// # Errors
    ///
    /// [`QueryError::TokenQueryMismatch`] if the token was issued for another query.
    pub fn with_continue(&self, token: RunContinueToken) -> Result<TaskRunQuery, QueryError> {
        token.check_fingerprint(CONTINUE_FIELD, self.fingerprint)?;
        Ok(TaskRunQuery {
            cursor: Some(token),
            ..self.clone()
        })
    }

    /// The same query with another page size (allowed between pages).
    ///
    /// # Errors
    ///
    /// [`QueryError::LimitOutOfRange`] unless `1 <= limit <= MAX_LIMIT`.
    pub fn with_limit(&self, limit: u32) -> Result<TaskRunQuery, QueryError> {
        let limit = check_limit("limit", i64::from(limit))?;
        Ok(TaskRunQuery {
            limit,
            ..self.clone()
        })
    }

    /// A token for the page of this query that starts strictly after attempt `attempt`: what a
    /// store that pages on its own issues for the last attempt it returns.
    pub fn continue_after(&self, attempt: u32) -> RunContinueToken {
        RunContinueToken::issue(self.fingerprint, attempt)
    }

    /// The tenant the task belongs to.
    pub fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// The task whose attempts are listed.
    pub fn task(&self) -> &TaskId {
        &self.task
    }

    /// The state filter, sorted and without repeats (empty: any state).
    pub fn states(&self) -> &[AttemptState] {
        &self.states
    }

    /// The runner filter.
    pub fn runner(&self) -> Option<&RunnerId> {
        self.runner.as_ref()
    }

    /// The listing order by attempt number.
    pub fn order(&self) -> SortOrder {
        self.order
    }

    /// The page size, 1 to [`MAX_LIMIT`](crate::MAX_LIMIT).
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The continuation token this page starts after, if any.
    pub fn continue_token(&self) -> Option<&RunContinueToken> {
        self.cursor.as_ref()
    }

    /// The attempt this page starts strictly after (the token's key), if any.
    pub fn after(&self) -> Option<u32> {
        self.cursor.as_ref().map(RunContinueToken::after)
    }

    /// Whether `run` is an attempt of the query's task that passes every filter. The order,
    /// limit and cursor play no part.
    pub fn matches<R: QueryableRun + ?Sized>(&self, run: &R) -> bool {
        run.task_id() == &self.task
            && (self.states.is_empty() || self.states.contains(&run.state()))
            && self
                .runner
                .as_ref()
                .is_none_or(|runner| runner == run.runner())
    }

    /// The reference evaluation: the page of `runs` this query selects.
    ///
    /// `runs` may come in any order, may hold other tasks' runs (they never match), and may be
    /// anything [`QueryableRun`]; the attempt numbers of the task's runs must be unique. The
    /// page is chosen with a bounded heap of `limit + 1` entries, as
    /// [`TaskQuery::evaluate`](crate::TaskQuery::evaluate) chooses one: O(n log limit) time,
    /// O(limit) memory. `next` is set when a matching run follows the page.
    pub fn evaluate<R, I>(&self, runs: I) -> TaskRunPage<R>
    where
        R: QueryableRun,
        I: IntoIterator<Item = R>,
    {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let order = self.order;
        let after = self.after();
        let (items, more) = select_page(
            runs,
            &|a: &R, b: &R| order.apply(a.attempt().cmp(&b.attempt())),
            |run: &R| after.is_none_or(|after| order.apply(run.attempt().cmp(&after)).is_gt()),
            limit,
            |run| self.matches(run),
        );
        let next = match items.last() {
            Some(last) if more => Some(self.continue_after(last.attempt())),
            _ => None,
        };
        TaskRunPage { items, next }
    }
}

/// The stable fingerprint of a run query's scope, filters and order (not its limit or
/// cursor), over a canonical encoding.
fn fingerprint(
    tenant: &TenantId,
    task: &TaskId,
    states: &[AttemptState],
    runner: Option<&RunnerId>,
    order: SortOrder,
) -> u64 {
    let mut h = Fnv64::with_domain(FINGERPRINT_DOMAIN);
    h.u8(1);
    h.str(tenant.as_str());
    h.u8(2);
    h.str(task.as_str());
    h.u8(3);
    h.u32(u32::try_from(states.len()).unwrap_or(u32::MAX));
    for state in states {
        h.str(state.as_str());
    }
    h.u8(4);
    match runner {
        Some(runner) => {
            h.u8(1);
            h.str(runner.as_str());
        }
        None => h.u8(0),
    }
    h.u8(5);
    h.str(order.as_str());
    h.finish()
}

/// Builds a [`TaskRunQuery`]; [`build`](TaskRunQueryBuilder::build) validates.
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskRunQueryBuilder {
    tenant: TenantId,
    task: TaskId,
    states: ValueSet<AttemptState>,
    runner: Option<RunnerId>,
    order: SortOrder,
    limit: u32,
    cursor: Option<RunContinueToken>,
}

impl TaskRunQueryBuilder {
    /// Also accept attempts in this state (states accumulate; repeats are ignored).
    pub fn state(mut self, state: AttemptState) -> Self {
        self.states.insert(state);
        self
    }

    /// Also accept attempts in each of these states.
    pub fn states(self, states: impl IntoIterator<Item = AttemptState>) -> Self {
        states.into_iter().fold(self, Self::state)
    }

    /// Only attempts that ran on this runner.
    pub fn runner(mut self, runner: RunnerId) -> Self {
        self.runner = Some(runner);
        self
    }

    /// The listing order by attempt number (default ascending).
    pub fn order(mut self, order: SortOrder) -> Self {
        self.order = order;
        self
    }

    /// The page size (default [`DEFAULT_LIMIT`]); checked by `build`.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }

    /// Start after this token (from a previous page of the same query).
    pub fn continue_from(mut self, token: RunContinueToken) -> Self {
        self.cursor = Some(token);
        self
    }

    /// Validates and builds the query.
    ///
    /// # Errors
    ///
    /// - [`QueryError::LimitOutOfRange`]: limit 0 or above [`MAX_LIMIT`](crate::MAX_LIMIT).
    /// - [`QueryError::TooManyStates`]: more than [`MAX_STATES`] state values.
    /// - [`QueryError::TokenQueryMismatch`]: a token issued for another query.
    pub fn build(self) -> Result<TaskRunQuery, QueryError> {
        let limit = check_limit("limit", i64::from(self.limit))?;
        let states = self
            .states
            .into_checked(MAX_STATES, |max| QueryError::TooManyStates {
                field: "states".to_owned(),
                max,
            })?;
        let fingerprint = fingerprint(
            &self.tenant,
            &self.task,
            &states,
            self.runner.as_ref(),
            self.order,
        );
        if let Some(cursor) = &self.cursor {
            cursor.check_fingerprint(CONTINUE_FIELD, fingerprint)?;
        }
        Ok(TaskRunQuery {
            tenant: self.tenant,
            task: self.task,
            states,
            runner: self.runner,
            order: self.order,
            limit,
            cursor: self.cursor,
            fingerprint,
        })
    }
}

#[cfg(test)]
mod tests;
