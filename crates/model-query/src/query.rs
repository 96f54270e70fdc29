//! `TaskQuery` and its builder: filters, order, limit, cursor, matching and evaluation.

use chrono::{DateTime, Utc};
use model_ids::{Slot, TenantId};
use model_selector::LabelSelector;
use model_task::TaskPhase;

use crate::{
    error::QueryError,
    filter::ValueSet,
    hash::Fnv64,
    item::Queryable,
    order::{SortKey, SortOrder},
    range::TimeRange,
    select::select_page,
    token::{CONTINUE_FIELD, ContinueToken},
    values::{DEFAULT_LIMIT, MAX_PHASES, check_limit},
};

/// Domain prefix of query fingerprints.
const FINGERPRINT_DOMAIN: &[u8] = b"taskmodel.query.v1";

/// A validated query over tasks: which tasks (filters), in which order, how many per
/// page, and where the page starts.
///
/// # Scope and filters
///
/// A query names its `tenant`, required: it lists only that tenant's tasks, and every way in
/// refuses a query without one ([`QueryError::MissingParameter`]). The filters are ANDed; an
/// absent filter accepts every task of the tenant.
///
/// - `slot`: the task's slot equals it.
/// - `phases`: the task's phase is one of them (a set; order and repeats do not matter).
/// - `label_selector`: it matches the task's labels (an empty selector matches all).
/// - `created` and `updated`: the task's `created_at` / `updated_at` lies in the
///   half-open [`TimeRange`] `[since, before)`.
///
/// # Order and pages
///
/// Tasks are listed by [`SortKey`] `(created_at, id)`, ascending or descending
/// ([`SortOrder`]). A page holds at most `limit` tasks ([`DEFAULT_LIMIT`]
/// when not given, 1 to [`MAX_LIMIT`](crate::MAX_LIMIT), anything else an error). A page
/// with more after it carries a [`ContinueToken`]; the next page is the same query with
/// that token, and starts strictly after the last key returned (keyset pagination): a
/// task that exists for the whole listing is returned exactly once, however many tasks
/// are added or removed between pages, and tasks added behind the cursor are not seen.
///
/// The token is bound to the query's tenant, filters and order (its fingerprint); a token
/// from another query, another tenant's included, is [`QueryError::TokenQueryMismatch`]. The limit is not part of the
/// fingerprint: a client may ask for bigger or smaller pages as it goes.
///
/// # Ways in
///
/// [`TaskQuery::builder`], [`TaskQuery::from_pairs`] (decoded URL query parameters) and
/// serde (camelCase JSON, unknown fields rejected). All validate the same way.
///
/// ```
/// use model_query::{SortOrder, TaskQuery};
/// use model_task::TaskPhase;
///
/// let query = TaskQuery::builder("team-a".parse()?)
///     .slot("nightly".parse()?)
///     .phase(TaskPhase::Running)
///     .phase(TaskPhase::Failed)
///     .label_selector("zone=eu".parse()?)
///     .order(SortOrder::Descending)
///     .limit(50)
///     .build()?;
/// assert_eq!(query.limit(), 50);
///
/// let same = TaskQuery::from_pairs([
///     ("tenant", "team-a"),
///     ("slot", "nightly"),
///     ("phase", "failed"),
///     ("phase", "running"),
///     ("labelSelector", "zone=eu"),
///     ("order", "desc"),
///     ("limit", "50"),
/// ])?;
/// assert_eq!(same, query);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TaskQuery {
    pub(crate) tenant: TenantId,
    pub(crate) slot: Option<Slot>,
    /// Sorted, without repeats.
    pub(crate) phases: Vec<TaskPhase>,
    pub(crate) selector: Option<LabelSelector>,
    pub(crate) created: TimeRange,
    pub(crate) updated: TimeRange,
    pub(crate) order: SortOrder,
    pub(crate) limit: u32,
    pub(crate) cursor: Option<ContinueToken>,
    /// The fingerprint of the filters and order.
    pub(crate) fingerprint: u64,
}

/// A page of a listing: the tasks, in order, and the token for the next page if there
/// is one.
///
/// `T` is the item type the query was evaluated over (`Task`, `&Task`, `Arc<Task>`...).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskPage<T = model_task::Task> {
    /// The matching tasks of this page, in the query's order, at most `limit` of them.
    pub items: Vec<T>,
    /// Where the next page starts, or `None` if this is the last page (no matching task
    /// comes after the last item).
    pub next: Option<ContinueToken>,
}

impl TaskQuery {
    /// A builder for the tasks of `tenant`: no filters, ascending order, [`DEFAULT_LIMIT`].
    pub fn builder(tenant: TenantId) -> TaskQueryBuilder {
        TaskQueryBuilder::unscoped().tenant(tenant)
    }

    /// A builder holding this query's settings, to change some of them.
    pub fn to_builder(&self) -> TaskQueryBuilder {
        TaskQueryBuilder {
            tenant: Some(self.tenant.clone()),
            slot: self.slot.clone(),
            phases: ValueSet::of(&self.phases),
            selector: self.selector.clone(),
            created: self.created,
            updated: self.updated,
            order: self.order,
            limit: self.limit,
            cursor: self.cursor.clone(),
        }
    }

    /// The same query, continuing after `token` (a page's [`TaskPage::next`]).
    ///
    /// # Errors
    ///
    /// [`QueryError::TokenQueryMismatch`] if the token was issued for another query.
    pub fn with_continue(&self, token: ContinueToken) -> Result<TaskQuery, QueryError> {
        token.check_fingerprint(CONTINUE_FIELD, self.fingerprint)?;
        Ok(TaskQuery {
            cursor: Some(token),
            ..self.clone()
        })
    }

    /// The same query with another page size (allowed between pages).
    ///
    /// # Errors
    ///
    /// [`QueryError::LimitOutOfRange`] unless `1 <= limit <= MAX_LIMIT`.
    pub fn with_limit(&self, limit: u32) -> Result<TaskQuery, QueryError> {
        let limit = check_limit("limit", i64::from(limit))?;
        Ok(TaskQuery {
            limit,
            ..self.clone()
        })
    }

    /// A token for the page of this query that starts strictly after `key`.
    ///
    /// [`TaskQuery::evaluate`] issues tokens itself; a store that pages on its own (see
    /// `docs/keyset-pagination.md`) uses this for the last task it returns, so its tokens
    /// are the same as the reference evaluation's.
    pub fn continue_after(&self, key: SortKey) -> ContinueToken {
        ContinueToken::issue(self.fingerprint, key)
    }

    /// The tenant whose tasks the query lists.
    pub fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// The slot filter.
    pub fn slot(&self) -> Option<&Slot> {
        self.slot.as_ref()
    }

    /// The phase filter, sorted and without repeats (empty: any phase).
    pub fn phases(&self) -> &[TaskPhase] {
        &self.phases
    }

    /// The label selector filter.
    pub fn label_selector(&self) -> Option<&LabelSelector> {
        self.selector.as_ref()
    }

    /// The creation time filter.
    pub fn created(&self) -> TimeRange {
        self.created
    }

    /// The update time filter.
    pub fn updated(&self) -> TimeRange {
        self.updated
    }

    /// The listing order.
    pub fn order(&self) -> SortOrder {
        self.order
    }

    /// The page size, 1 to [`MAX_LIMIT`](crate::MAX_LIMIT).
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The continuation token this page starts after, if any.
    pub fn continue_token(&self) -> Option<&ContinueToken> {
        self.cursor.as_ref()
    }

    /// The key this page starts strictly after (the token's key), if any.
    pub fn after(&self) -> Option<&SortKey> {
        self.cursor.as_ref().map(ContinueToken::after)
    }

    /// Whether `task` belongs to the query's tenant and passes every filter. The order,
    /// limit and cursor play no part.
    pub fn matches<T: Queryable + ?Sized>(&self, task: &T) -> bool {
        *task.tenant() == self.tenant
            && self.created.contains(task.created_at())
            && self.updated.contains(task.updated_at())
            && self.slot.as_ref().is_none_or(|slot| slot == task.slot())
            && (self.phases.is_empty() || self.phases.contains(&task.phase()))
            && self
                .selector
                .as_ref()
                .is_none_or(|selector| selector.matches(task.labels()))
    }

    /// The reference evaluation: the page of `tasks` this query selects.
    ///
    /// `tasks` may come in any order and may be anything [`Queryable`] (`Task`, `&Task`,
    /// `Arc<Task>`...); ids must be unique. The page is chosen with a bounded heap of
    /// `limit + 1` entries: O(n log limit) time, O(limit) memory, and the input is never
    /// sorted or collected. Only tasks whose key could still enter the page are checked
    /// against the filters. `next` is set when a matching task follows the page.
    ///
    /// ```no_run
    /// # fn tasks() -> Vec<model_task::Task> { Vec::new() }
    /// use model_query::TaskQuery;
    ///
    /// let all = tasks();
    /// let mut query = TaskQuery::builder("team-a".parse()?).limit(10).build()?;
    /// loop {
    ///     let page = query.evaluate(&all);
    ///     for task in &page.items { /* ... */ }
    ///     match page.next {
    ///         Some(token) => query = query.with_continue(token)?,
    ///         None => break,
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate<T, I>(&self, tasks: I) -> TaskPage<T>
    where
        T: Queryable,
        I: IntoIterator<Item = T>,
    {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let order = self.order;
        let after = self.after();
        let (items, more) = select_page(
            tasks,
            &|a: &T, b: &T| order.compare_parts((a.created_at(), a.id()), (b.created_at(), b.id())),
            |task: &T| {
                after.is_none_or(|after| {
                    order.compare_parts(
                        (task.created_at(), task.id()),
                        (after.created_at, &after.id),
                    ) == std::cmp::Ordering::Greater
                })
            },
            limit,
            |task| self.matches(task),
        );
        let next = match items.last() {
            Some(last) if more => {
                Some(self.continue_after(SortKey::new(last.created_at(), last.id().clone())))
            }
            _ => None,
        };
        TaskPage { items, next }
    }
}

/// The stable fingerprint of a query's tenant, filters and order (not its limit or cursor):
/// an FNV-1a 64 hash over a canonical encoding, so equal queries agree across processes
/// and releases of this format.
fn fingerprint(
    tenant: &TenantId,
    slot: Option<&Slot>,
    phases: &[TaskPhase],
    selector: Option<&LabelSelector>,
    created: TimeRange,
    updated: TimeRange,
    order: SortOrder,
) -> u64 {
    let mut h = Fnv64::with_domain(FINGERPRINT_DOMAIN);
    h.u8(0);
    h.str(tenant.as_str());
    h.u8(1);
    match slot {
        Some(slot) => {
            h.u8(1);
            h.str(slot.as_str());
        }
        None => h.u8(0),
    }
    h.u8(2);
    h.u32(u32::try_from(phases.len()).unwrap_or(u32::MAX));
    for phase in phases {
        h.str(phase.as_str());
    }
    h.u8(3);
    // The canonical text form: selectors that mean the same print the same, and the
    // empty selector prints as "", the same as no selector.
    h.str(&selector.map(ToString::to_string).unwrap_or_default());
    for (tag, range) in [(4, created), (5, updated)] {
        h.u8(tag);
        for end in [range.since, range.before] {
            match end {
                Some(t) => {
                    h.u8(1);
                    h.i64(t.timestamp());
                    h.u32(t.timestamp_subsec_nanos());
                }
                None => h.u8(0),
            }
        }
    }
    h.u8(6);
    h.str(order.as_str());
    h.finish()
}

/// Builds a [`TaskQuery`]; [`build`](TaskQueryBuilder::build) validates.
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskQueryBuilder {
    /// Always set by [`TaskQuery::builder`]; URL pairs and JSON may lack it, which `build`
    /// refuses.
    tenant: Option<TenantId>,
    slot: Option<Slot>,
    phases: ValueSet<TaskPhase>,
    selector: Option<LabelSelector>,
    created: TimeRange,
    updated: TimeRange,
    order: SortOrder,
    limit: u32,
    cursor: Option<ContinueToken>,
}

impl TaskQueryBuilder {
    /// A builder without a tenant yet, for the ways in that read it among other fields.
    pub(crate) fn unscoped() -> Self {
        TaskQueryBuilder {
            tenant: None,
            slot: None,
            phases: ValueSet::new(),
            selector: None,
            created: TimeRange::default(),
            updated: TimeRange::default(),
            order: SortOrder::default(),
            limit: DEFAULT_LIMIT,
            cursor: None,
        }
    }

    /// The tenant whose tasks the query lists.
    pub(crate) fn tenant(mut self, tenant: TenantId) -> Self {
        self.tenant = Some(tenant);
        self
    }

    /// Only tasks in this slot.
    pub fn slot(mut self, slot: Slot) -> Self {
        self.slot = Some(slot);
        self
    }

    /// Also accept tasks in this phase (phases accumulate; repeats are ignored).
    pub fn phase(mut self, phase: TaskPhase) -> Self {
        self.phases.insert(phase);
        self
    }

    /// Also accept tasks in each of these phases.
    pub fn phases(self, phases: impl IntoIterator<Item = TaskPhase>) -> Self {
        phases.into_iter().fold(self, Self::phase)
    }

    /// Only tasks whose labels this selector matches.
    pub fn label_selector(mut self, selector: LabelSelector) -> Self {
        self.selector = Some(selector);
        self
    }

    /// Only tasks created at or after `since` and before `before` (each end optional).
    pub fn created(mut self, range: TimeRange) -> Self {
        self.created = range;
        self
    }

    /// Only tasks last updated at or after `since` and before `before` (each end optional).
    pub fn updated(mut self, range: TimeRange) -> Self {
        self.updated = range;
        self
    }

    /// Only tasks created at or after `since` (inclusive).
    pub fn created_since(mut self, since: DateTime<Utc>) -> Self {
        self.created.since = Some(since);
        self
    }

    /// Only tasks created before `before` (exclusive).
    pub fn created_before(mut self, before: DateTime<Utc>) -> Self {
        self.created.before = Some(before);
        self
    }

    /// Only tasks last updated at or after `since` (inclusive).
    pub fn updated_since(mut self, since: DateTime<Utc>) -> Self {
        self.updated.since = Some(since);
        self
    }

    /// Only tasks last updated before `before` (exclusive).
    pub fn updated_before(mut self, before: DateTime<Utc>) -> Self {
        self.updated.before = Some(before);
        self
    }

    /// The listing order (default ascending).
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
    pub fn continue_from(mut self, token: ContinueToken) -> Self {
        self.cursor = Some(token);
        self
    }

    /// Validates and builds the query.
    ///
    /// # Errors
    ///
    /// - [`QueryError::MissingParameter`]: no tenant (only URL pairs and JSON can lack one).
    /// - [`QueryError::LimitOutOfRange`]: limit 0 or above [`MAX_LIMIT`](crate::MAX_LIMIT).
    /// - [`QueryError::TooManyPhases`]: more than [`MAX_PHASES`] phase values.
    /// - [`QueryError::EmptyTimeRange`]: a range with `since >= before`.
    /// - [`QueryError::TokenQueryMismatch`]: a token issued for another query.
    pub fn build(self) -> Result<TaskQuery, QueryError> {
        let tenant = self.tenant.ok_or_else(|| QueryError::MissingParameter {
            field: "tenant".to_owned(),
        })?;
        let limit = check_limit("limit", i64::from(self.limit))?;
        let phases = self
            .phases
            .into_checked(MAX_PHASES, |max| QueryError::TooManyPhases {
                field: "phases".to_owned(),
                max,
            })?;
        self.created.check("createdBefore")?;
        self.updated.check("updatedBefore")?;
        let fingerprint = fingerprint(
            &tenant,
            self.slot.as_ref(),
            &phases,
            self.selector.as_ref(),
            self.created,
            self.updated,
            self.order,
        );
        if let Some(cursor) = &self.cursor {
            cursor.check_fingerprint(CONTINUE_FIELD, fingerprint)?;
        }
        Ok(TaskQuery {
            tenant,
            slot: self.slot,
            phases,
            selector: self.selector,
            created: self.created,
            updated: self.updated,
            order: self.order,
            limit,
            cursor: self.cursor,
            fingerprint,
        })
    }
}
