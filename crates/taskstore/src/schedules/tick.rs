//! The tick: the due schedules of every tenant, each asked what its missed fire times do
//! (model-schedule's `Schedule::catch_up` and `OverlapPolicy::decide`), the actions of the
//! ticks that start stored pending, and each schedule's row moved past them, all in one
//! transaction.

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::RandomSource;
use taskmodel::ids::{ActionId, TaskId, TenantId};
use taskmodel::schedule::{Action, ActionState, OverlapDecision, ScheduleError};
use taskmodel::task::Precondition;

use super::{COLUMNS, next_due, read, save};
use crate::actions;
use crate::attempts::{self, check_page};
use crate::error::StoreError;
use crate::store::MAX_READ_PAGE;
use crate::tx::{Lock, Sql, Tx, Value};
use crate::values::{StoredSchedule, Ticked};

/// The reason a pending action of a schedule fails with when a later tick replaces its
/// run (`replace`).
const REPLACED_REASON: &str = "replaced by a later tick";

/// [`Store::tick_schedules`](crate::Store::tick_schedules).
pub(crate) fn tick(
    tx: &mut dyn Tx,
    now: DateTime<Utc>,
    limit: u32,
    rng: &mut dyn RandomSource,
) -> Result<Vec<Ticked>, StoreError> {
    let due = Sql::built(format!(
        "SELECT {COLUMNS}, tenant FROM schedules WHERE due_ms <= ?1 \
         ORDER BY due_ms, tenant, name LIMIT ?2"
    ))
    .locking(Lock::SkipLocked);
    let limit = check_page(limit)?;
    let rows = tx.query(
        &due,
        &[
            Value::Int(now.timestamp_millis()),
            Value::Int(i64::from(limit)),
        ],
    )?;
    let mut ticked = Vec::with_capacity(rows.len());
    for row in &rows {
        let tenant = TenantId::new(row.text(9)?).map_err(|error| StoreError::Corrupt {
            what: "the tenant of a due schedule".to_owned(),
            reason: error.to_string(),
        })?;
        let stored = read(&tenant, row)?;
        ticked.push(one(tx, tenant, stored, now, rng)?);
    }
    Ok(ticked)
}

/// Ticks one schedule, read and locked: the buffered tick first if its run has ended, then
/// each missed fire time by its overlap decision; writes the row back.
fn one(
    tx: &mut dyn Tx,
    tenant: TenantId,
    mut stored: StoredSchedule,
    now: DateTime<Utc>,
    rng: &mut dyn RandomSource,
) -> Result<Ticked, StoreError> {
    let read_in = stored.resource_version;
    let uid = stored.uid;
    let catch_up = stored.schedule.catch_up(stored.after, now);
    let mut run = Run {
        tenant: &tenant,
        stored: &stored,
        rng,
        now,
        ticked: Ticked {
            tenant: tenant.clone(),
            schedule: stored.schedule.name().clone(),
            uid,
            actions: Vec::new(),
            skipped: 0,
            dropped: catch_up.dropped,
            buffered: stored.buffered,
            replaced: Vec::new(),
            canceled: Vec::new(),
            next_due: None,
        },
    };
    let mut active = run.active(tx)?;
    // A buffered tick starts when the run ends, before any later tick is decided.
    if let Some(tick) = run.ticked.buffered
        && !active
        && !stored.schedule.paused()
    {
        run.start(tx, tick, now)?;
        run.ticked.buffered = None;
        active = true;
    }
    let mut schedule = stored.schedule.clone();
    for &tick in &catch_up.ticks {
        schedule.record_fire();
        let decision = schedule
            .overlap()
            .decide(active, run.ticked.buffered.is_some());
        match decision {
            OverlapDecision::Start => {
                let due = jittered(&schedule, tick, &mut *run.rng);
                run.start(tx, tick, due)?;
            }
            OverlapDecision::CancelThenStart => {
                run.replace(tx)?;
                let due = jittered(&schedule, tick, &mut *run.rng);
                run.start(tx, tick, due)?;
            }
            OverlapDecision::Buffer => run.ticked.buffered = Some(tick),
            _ => run.ticked.skipped += 1,
        }
        active = true;
    }
    let mut ticked = run.ticked;
    stored.after = match catch_up.ticks.last() {
        Some(&last) if catch_up.more => last,
        _ => stored.after.max(now),
    };
    stored.schedule = schedule;
    stored.buffered = ticked.buffered;
    stored.updated_at = stored.updated_at.max(now);
    stored.next_due = next_due(&stored.schedule, stored.after, stored.buffered, now);
    save(tx, &tenant, &mut stored, read_in)?;
    ticked.next_due = stored.next_due;
    Ok(ticked)
}

/// `tick` plus a draw of the schedule's jitter (`Schedule::jitter_ms`).
fn jittered(
    schedule: &taskmodel::schedule::Schedule,
    tick: DateTime<Utc>,
    rng: &mut dyn RandomSource,
) -> DateTime<Utc> {
    i64::try_from(schedule.jitter_ms(rng))
        .ok()
        .and_then(TimeDelta::try_milliseconds)
        .and_then(|delay| tick.checked_add_signed(delay))
        .unwrap_or(tick)
}

/// One schedule's tick in progress: what it wrote so far.
struct Run<'a> {
    tenant: &'a TenantId,
    stored: &'a StoredSchedule,
    rng: &'a mut dyn RandomSource,
    now: DateTime<Utc>,
    ticked: Ticked,
}

impl Run<'_> {
    /// Whether the schedule's run is active: an action of it pending or running (a tick
    /// not dispatched yet), or a task it owns not finished.
    fn active(&self, tx: &mut dyn Tx) -> Result<bool, StoreError> {
        const ACTION: Sql = Sql::new(
            "SELECT id FROM actions WHERE tenant = ?1 AND schedule_uid = ?2 \
             AND state IN ('pending', 'running') LIMIT 1",
        );
        let params = [
            self.tenant.as_str().into(),
            self.stored.uid.to_string().into(),
        ];
        Ok(!tx.query(&ACTION, &params)?.is_empty() || !self.unfinished(tx, 1)?.is_empty())
    }

    /// The first `limit` unfinished tasks the schedule owns, in id order.
    fn unfinished(&self, tx: &mut dyn Tx, limit: u32) -> Result<Vec<TaskId>, StoreError> {
        const TASKS: Sql = Sql::new(
            "SELECT o.task_id FROM task_owners o \
             JOIN tasks t ON t.tenant = o.tenant AND t.id = o.task_id \
             WHERE o.tenant = ?1 AND o.owner_uid = ?2 AND t.phase IN ('pending', 'running') \
             ORDER BY o.task_id LIMIT ?3",
        );
        let rows = tx.query(
            &TASKS,
            &[
                self.tenant.as_str().into(),
                self.stored.uid.to_string().into(),
                Value::Int(i64::from(limit)),
            ],
        )?;
        rows.iter()
            .map(|row| {
                TaskId::new(row.text(0)?).map_err(|error| StoreError::Corrupt {
                    what: format!("a task of schedule \"{}\"", self.ticked.schedule),
                    reason: error.to_string(),
                })
            })
            .collect()
    }

    /// Stores the pending action of `tick`, due at `due`.
    fn start(
        &mut self,
        tx: &mut dyn Tx,
        tick: DateTime<Utc>,
        due: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let high = u128::from(self.rng.next_u64()) << 64;
        let id = ActionId::from_u128(high | u128::from(self.rng.next_u64()));
        let name = &self.ticked.schedule;
        let action = Action::scheduled(id, name.as_str(), due, None, self.now)
            .map_err(|error| self.rejected(id, error))?;
        actions::add_tick(tx, self.tenant, &action, name, self.stored.uid, tick)?;
        self.ticked.actions.push(action);
        Ok(())
    }

    /// `replace`: fails the schedule's pending actions (started, then failed, as the model
    /// moves them) and cancels its unfinished tasks (at most [`MAX_READ_PAGE`]), as
    /// [`Store::cancel`](crate::Store::cancel) does.
    fn replace(&mut self, tx: &mut dyn Tx) -> Result<(), StoreError> {
        const PENDING: Sql = Sql::new(
            "SELECT doc FROM actions WHERE tenant = ?1 AND schedule_uid = ?2 \
             AND state = 'pending' ORDER BY id LIMIT ?3",
        );
        let rows = tx.query(
            &PENDING,
            &[
                self.tenant.as_str().into(),
                self.stored.uid.to_string().into(),
                Value::Int(i64::from(MAX_READ_PAGE)),
            ],
        )?;
        for row in &rows {
            let mut action = actions::read(row, 0, self.tenant)?;
            let id = action.id();
            action
                .start(self.now)
                .and_then(|()| action.fail(REPLACED_REASON.to_owned(), self.now))
                .map_err(|error| self.rejected(id, error))?;
            actions::save(tx, self.tenant, &action, ActionState::Pending)?;
            self.ticked.actions.retain(|started| started.id() != id);
            self.ticked.replaced.push(id);
        }
        for task in self.unfinished(tx, MAX_READ_PAGE)? {
            match attempts::cancel(tx, self.tenant, &task, Precondition::default(), self.now) {
                Ok(_) => self.ticked.canceled.push(task),
                Err(StoreError::NotFound { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    fn rejected(&self, action: ActionId, error: ScheduleError) -> StoreError {
        StoreError::ActionRejected {
            tenant: self.tenant.clone(),
            action,
            error: Box::new(error.into()),
        }
    }
}
