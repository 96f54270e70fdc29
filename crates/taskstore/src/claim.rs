//! Claims: the first pending task in queue order that a runner may take, leased to it in
//! one transaction.
//!
//! What decides whether the runner fits a task is in columns (`kind_name`,
//! `runner_selector`, `schema.rs` version 5), so a claim decodes only the document of the
//! task it takes. The runner's kinds are filtered in SQL, on the queue index; each distinct
//! selector text is parsed once per claim and tested against the runner's labels in Rust.
//! The common case, a head of the queue the runner fits, is one read of one row.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use taskmodel::fleet::KindSet;
use taskmodel::ids::TenantId;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::Task;

use crate::columns::{clamped_nanos, read_task, task_keys};
use crate::error::StoreError;
use crate::floors::{QUEUE_ORDER, from_floor};
use crate::pair::{AttemptWrite, current_attempt, refused, save};
use crate::schema::active_attempt;
use crate::store::MAX_CLAIM_SCAN;
use crate::tx::{LOCK_HERE, Lock, Row, Sql, Tx, Value};
use crate::values::{ClaimRequest, Claimed};

/// How many queued tasks one read past the head of the queue returns (none locked).
const SCAN_BATCH: usize = 256;

/// The most selector texts one claim remembers the answer for, and the most bytes of them:
/// past either, a selector is parsed each time it is met (a claim's memory stays bounded
/// however many distinct selectors the queue holds).
const SELECTOR_CACHE_ENTRIES: usize = 1_024;
const SELECTOR_CACHE_BYTES: usize = 1 << 20;

/// The most kinds one [`KindSet`] holds: the three built-in kinds and
/// [`MAX_KIND_SET_EXTENSIONS`](taskmodel::fleet::MAX_KIND_SET_EXTENSIONS) extensions.
const MAX_KINDS: usize = 3 + taskmodel::fleet::MAX_KIND_SET_EXTENSIONS;

/// The statements for a runner of up to `n` kinds come in sizes of powers of two (the list
/// padded with its last kind), so each engine prepares a few texts, not one per size.
const SIZES: usize = MAX_KINDS.next_power_of_two().trailing_zeros() as usize + 1;

/// The tenant's due pending tasks of the runner's kinds, in queue order
/// (`priority DESC, queued_ns, id`, the partial index over pending tasks, whose
/// `kind_name` column the kind filter reads). Whether a task's slot is busy is asked
/// separately, of the unique index over running tasks: as a correlated subquery here,
/// PostgreSQL may keep a plan, made while no task ran, that reads every running task for
/// each queued one.
const QUEUE_FROM: &str =
    "FROM tasks t WHERE t.tenant = ?1 AND t.phase = 'pending' AND t.queued_ns <= ?2";

/// Whether the slot of the head of the queue, `h`, has a running task (1, else 0), as a
/// column: a scalar subquery probed for the one row the head's read returns, on the unique
/// index over running tasks. Not `EXISTS`: PostgreSQL may turn that into one hashed read
/// of every running task for each claim.
const HEAD_BUSY: &str = "COALESCE((SELECT 1 FROM tasks r WHERE r.tenant = h.tenant \
     AND r.phase = 'running' AND r.slot = h.slot LIMIT 1), 0)";

/// The statements of one size: the head, and the queue after a position in two parts that
/// each seek the index to where they start (one `OR` of both would be a filter, and every
/// read would walk the queue again from its head).
struct Statements {
    /// The first task of the runner's kinds with whether its slot is busy (1 or 0, column
    /// 5: asked in the same statement, one round trip fewer on PostgreSQL) and its
    /// document, locked (`FOR UPDATE SKIP LOCKED` on PostgreSQL, in the subquery that
    /// reads the queue: only the one row it returns; the slot's question is asked of that
    /// row outside it, and locks nothing). Kinds from `?3`.
    head: Sql,
    /// The same as [`head`](Self::head), read from the tenant's queue floor on
    /// (`floors.rs`): the head on PostgreSQL.
    floored: Sql,
    /// Up to `?6` tasks of priority `?3` after `(queued_ns, id)` = `(?4, ?5)`, without their
    /// documents and unlocked. Kinds from `?7`.
    same: Sql,
    /// Up to `?4` tasks of a priority below `?3`, as [`same`](Self::same). Kinds from `?5`.
    lower: Sql,
}

/// `?first, ?first+1, ...` for `n` parameters.
fn marks(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|k| format!("?{k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Up to this many kinds, the kind filter is written as comparisons joined by `OR`: SQLite
/// evaluates an `IN` list of more than two values through a temporary B-tree it builds at
/// every run of the statement (every claim); past it, one lookup in that tree is cheaper
/// than the comparisons for each queued row read.
const OR_KINDS: usize = 8;

/// The filter "`t.kind_name` is one of the `n` parameters from `?first`".
fn kind_filter(first: usize, n: usize) -> String {
    if n > OR_KINDS {
        return format!("t.kind_name IN ({})", marks(first, n));
    }
    let tests: Vec<String> = (first..first + n)
        .map(|k| format!("t.kind_name = ?{k}"))
        .collect();
    format!("({})", tests.join(" OR "))
}

static STATEMENTS: LazyLock<Vec<Statements>> = LazyLock::new(|| {
    (0..SIZES)
        .map(|power| {
            let n = 1 << power;
            let columns = "SELECT t.priority, t.queued_ns, t.id, t.slot, t.runner_selector";
            Statements {
                // The busy-slot column is asked of the one row the locked read returns,
                // outside it: inside, PostgreSQL asked it of every row the scan passed
                // before one could be locked (about nine a claim at 16 workers).
                head: Sql::built(format!(
                    "SELECT h.priority, h.queued_ns, h.id, h.slot, h.runner_selector, \
                     {HEAD_BUSY}, h.doc FROM (SELECT t.tenant, t.priority, \
                     t.queued_ns, t.id, t.slot, t.runner_selector, t.doc {QUEUE_FROM} \
                     AND {} {QUEUE_ORDER} LIMIT 1 {LOCK_HERE}) h",
                    kind_filter(3, n)
                ))
                .locking(Lock::SkipLocked),
                floored: Sql::built(format!(
                    "SELECT h.priority, h.queued_ns, h.id, h.slot, h.runner_selector, \
                     {HEAD_BUSY}, h.doc FROM ({}) h",
                    from_floor(
                        "t.tenant, t.priority, t.queued_ns, t.id, t.slot, t.runner_selector, t.doc",
                        &format!("AND t.queued_ns <= ?2 AND {}", kind_filter(3, n)),
                        LOCK_HERE
                    )
                ))
                .locking(Lock::SkipLocked),
                same: Sql::built(format!(
                    "{columns} {QUEUE_FROM} AND {} AND t.priority = ?3 \
                     AND (t.queued_ns, t.id) > (?4, ?5) {QUEUE_ORDER} LIMIT ?6",
                    kind_filter(7, n)
                )),
                lower: Sql::built(format!(
                    "{columns} {QUEUE_FROM} AND {} AND t.priority < ?3 \
                     {QUEUE_ORDER} LIMIT ?4",
                    kind_filter(5, n)
                )),
            }
        })
        .collect()
});

/// The statements of each size, with the number of kinds they take (for the engines'
/// tests of their plans).
#[cfg(test)]
pub(crate) fn queue_statements() -> impl Iterator<Item = (usize, [&'static Sql; 3])> {
    STATEMENTS.iter().enumerate().map(|(power, statements)| {
        (
            1 << power,
            [&statements.head, &statements.same, &statements.lower],
        )
    })
}

/// A task found past the head, taken if it is still pending and due, locked (on PostgreSQL,
/// skipped when another claim holds it).
const TAKE: Sql = Sql::locked(
    "SELECT t.doc FROM tasks t WHERE t.tenant = ?1 AND t.id = ?2 AND t.phase = 'pending' \
     AND t.queued_ns <= ?3",
    Lock::SkipLocked,
);

/// The places the runner's active attempts hold (the active condition written as the
/// partial index over them has it, `schema.rs`'s active-states step).
pub(crate) const RUNNER_PLACES: Sql = Sql::new(concat!(
    "SELECT runner_slot FROM attempts WHERE tenant = ?1 AND runner = ?2 AND ",
    active_attempt!()
));

/// [`Store::claim`](crate::Store::claim).
pub(crate) fn claim(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    now: DateTime<Utc>,
) -> Result<Option<Claimed>, StoreError> {
    let Some((kinds, statements)) = kinds(&request.kinds) else {
        return Ok(None);
    };
    let now_value = Value::Int(clamped_nanos(now));
    let mut head_params: Vec<Value> = vec![tenant.as_str().into(), now_value.clone()];
    head_params.extend(kinds.iter().cloned());
    // The runner's places and the head of the queue, read together (one round trip on
    // PostgreSQL): a runner at capacity reads the head for nothing, and its transaction
    // then ends without writing.
    let (places, head) = tx.query_pair(
        (
            &RUNNER_PLACES,
            &[tenant.as_str().into(), request.runner.as_str().into()],
        ),
        (
            if tx.keeps_queue_floors() {
                &statements.floored
            } else {
                &statements.head
            },
            &head_params,
        ),
    )?;
    let Some(place) = free_place(&places, request)? else {
        return Ok(None);
    };
    let queue = Queue {
        kinds: &kinds,
        statements,
        now: now_value,
    };
    let Some(mut task) = first_claimable(tx, tenant, request, &queue, &head)? else {
        return Ok(None);
    };
    // The queue read the task (and, on PostgreSQL, locked it); a task that ran before
    // needs its last attempt to check the new lease against.
    let previous = current_attempt(tx, tenant, &task)?;
    let version = task.resource_version();
    let keys = task_keys(&task)?;
    let run = task
        .lease_attempt(
            Some(version),
            previous.as_ref(),
            request.runner.clone(),
            request.lease,
            request.lease_expires_at,
            now,
        )
        .map_err(|error| refused(tenant, task.id(), error))?;
    save(
        tx,
        tenant,
        version,
        Some(&keys),
        &task,
        AttemptWrite::Insert(&run, place),
    )?;
    Ok(Some(Claimed { task, attempt: run }))
}

/// The lowest place `0..max_concurrent` the runner's active attempts (`places`, read with
/// [`RUNNER_PLACES`]) leave free; `None` when it is at capacity. A unique index on
/// `(tenant, runner, runner_slot)` over active attempts makes two concurrent claims of one
/// place conflict.
fn free_place(places: &[Row], request: &ClaimRequest) -> Result<Option<i64>, StoreError> {
    let taken: BTreeSet<i64> = places
        .iter()
        .map(|row| row.int(0))
        .collect::<Result<_, _>>()?;
    Ok((0..i64::from(request.max_concurrent)).find(|place| !taken.contains(place)))
}

/// The runner's kinds as the statements' parameters, padded with the last one to a size
/// of [`STATEMENTS`], and that size's statements; `None` for a runner of no kind.
fn kinds(kinds: &KindSet) -> Option<(Vec<Value>, &'static Statements)> {
    let mut values: Vec<Value> = kinds.iter().map(|name| name.as_str().into()).collect();
    let last = values.last()?.clone();
    let size = values.len().next_power_of_two();
    values.resize(size, last);
    let statements = STATEMENTS.get(size.trailing_zeros() as usize)?;
    Some((values, statements))
}

/// The answers of one claim's selector tests: each distinct selector text is parsed once
/// and tested against the runner's labels (within the cache's bounds).
struct Selectors<'a> {
    labels: &'a Labels,
    seen: HashMap<String, bool>,
    bytes: usize,
}

impl<'a> Selectors<'a> {
    fn new(labels: &'a Labels) -> Self {
        Self {
            labels,
            seen: HashMap::new(),
            bytes: 0,
        }
    }

    /// Whether the runner's labels match the selector written `text` (the empty text, the
    /// empty selector, matches every runner); text that does not parse is a corrupt row.
    fn fit(&mut self, text: &str) -> Result<bool, StoreError> {
        if text.is_empty() {
            return Ok(true);
        }
        if let Some(&fit) = self.seen.get(text) {
            return Ok(fit);
        }
        let selector: LabelSelector = text.parse().map_err(|error| StoreError::Corrupt {
            what: format!("runner selector \"{text}\""),
            reason: format!("{error}"),
        })?;
        let fit = selector.matches(self.labels);
        if self.seen.len() < SELECTOR_CACHE_ENTRIES
            && self.bytes + text.len() <= SELECTOR_CACHE_BYTES
        {
            self.bytes += text.len();
            self.seen.insert(text.to_owned(), fit);
        }
        Ok(fit)
    }
}

/// A queued task as a claim reads it before deciding: its place in the queue, its slot
/// and its selector's text.
struct Queued {
    priority: i64,
    queued: i64,
    id: String,
    slot: String,
    selector: String,
}

impl Queued {
    fn read(row: &Row) -> Result<Self, StoreError> {
        Ok(Self {
            priority: row.int(0)?,
            queued: row.int(1)?,
            id: row.text(2)?.to_owned(),
            slot: row.text(3)?.to_owned(),
            selector: row.text(4)?.to_owned(),
        })
    }
}

/// What the reads of the queue take: the runner's kinds as parameters, the statements of
/// their size, and `now` as a column value.
struct Queue<'a> {
    kinds: &'a [Value],
    statements: &'static Statements,
    now: Value,
}

/// The first task in queue order that the runner fits (one of its kinds, a selector its
/// labels match) and whose slot is free, among the first [`MAX_CLAIM_SCAN`] queued tasks
/// of its kinds.
///
/// `head` is the first read's answer ([`Statements::head`]): the head of the queue with
/// its document and whether its slot is busy, locked; the head usually fits, and the claim
/// is then one read that locks one row. Past it, reads of
/// [`SCAN_BATCH`] tasks return their columns only, unlocked; a task that fits is then read
/// by its id with its document and locked (PostgreSQL skips one another claim holds, and
/// the claim goes on), so a claim locks only the task it takes (and the head it read).
fn first_claimable(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    queue: &Queue<'_>,
    head: &[Row],
) -> Result<Option<Task>, StoreError> {
    let Queue {
        kinds,
        statements,
        now,
    } = queue;
    let mut selectors = Selectors::new(&request.labels);
    let Some(row) = head.first() else {
        return Ok(None);
    };
    let head = Queued::read(row)?;
    if selectors.fit(&head.selector)? && row.int(5)? == 0 {
        return read_task(row, 6, tenant, None).map(Some);
    }
    let mut position = head;
    let mut scanned = 1;
    // Whether the reads have passed the last task of `position`'s priority.
    let mut lower = false;
    while scanned < MAX_CLAIM_SCAN {
        let batch = SCAN_BATCH.min(MAX_CLAIM_SCAN - scanned);
        let limit = Value::Int(i64::try_from(batch).unwrap_or(i64::MAX));
        let (sql, mut params): (&Sql, Vec<Value>) = if lower {
            let params = vec![
                tenant.as_str().into(),
                now.clone(),
                Value::Int(position.priority),
                limit,
            ];
            (&statements.lower, params)
        } else {
            let params = vec![
                tenant.as_str().into(),
                now.clone(),
                Value::Int(position.priority),
                Value::Int(position.queued),
                position.id.as_str().into(),
                limit,
            ];
            (&statements.same, params)
        };
        params.extend(kinds.iter().cloned());
        let rows = tx.query(sql, &params)?;
        let mut fitting = Vec::new();
        for row in &rows {
            let queued = Queued::read(row)?;
            if selectors.fit(&queued.selector)? {
                fitting.push(queued);
            }
        }
        let busy = busy_slots(
            tx,
            tenant,
            fitting.iter().map(|queued| queued.slot.as_str()),
        )?;
        for queued in fitting.iter().filter(|queued| !busy.contains(&queued.slot)) {
            let taken = tx.query(
                &TAKE,
                &[
                    tenant.as_str().into(),
                    queued.id.as_str().into(),
                    now.clone(),
                ],
            )?;
            if let Some(row) = taken.first() {
                return read_task(row, 0, tenant, None).map(Some);
            }
        }
        scanned += rows.len();
        if let Some(last) = rows.last() {
            position = Queued::read(last)?;
        }
        if rows.len() == batch {
            // More may follow in the last task's priority.
            lower = false;
        } else if lower {
            // The lower priorities have ended: so has the queue.
            break;
        } else {
            // The position's priority has ended; the lower ones come next.
            lower = true;
        }
    }
    Ok(None)
}

/// Which of `slots` have a running task (one task runs at a time in a slot).
fn busy_slots<'s>(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    slots: impl IntoIterator<Item = &'s str>,
) -> Result<BTreeSet<String>, StoreError> {
    let slots: BTreeSet<&str> = slots.into_iter().collect();
    let Some(&last) = slots.last() else {
        return Ok(BTreeSet::new());
    };
    // Padded with the last slot to a power of two, so each engine prepares a few texts.
    let size = slots.len().next_power_of_two();
    let sql = Sql::built(format!(
        "SELECT slot FROM tasks WHERE tenant = ?1 AND phase = 'running' AND slot IN ({})",
        marks(2, size)
    ));
    let mut params: Vec<Value> = vec![tenant.as_str().into()];
    params.extend(slots.into_iter().map(Value::from));
    params.resize(size + 1, last.into());
    let rows = tx.query(&sql, &params)?;
    rows.iter()
        .map(|row| row.text(0).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests;
