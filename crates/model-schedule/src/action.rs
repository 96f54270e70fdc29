//! `Action`: the unit that fires (a schedule's tick or a webhook's delivery), its status
//! moves, the action after a completed recurring one, and recovery after a restart.

mod json;
mod key;
mod status;
mod wire;

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::ActionId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use self::wire::RawAction;
pub use self::{
    key::{ACTION_KEY_LEN, ActionKey, due_actions, due_upper_bound},
    status::{ActionStatus, ActionTrigger},
};
use crate::{
    error::ScheduleError,
    interval::Interval,
    limits::{MAX_ACTION_REASON_BYTES, MAX_ACTION_RESULT_BYTES},
    state::ActionState,
};

/// The failure reason startup recovery writes.
pub const RECOVERED_REASON: &str = "recovered from restart";

/// One firing: a scheduled tick or a webhook delivery, and what became of it.
///
/// Its status moves only Pending → Running → Completed or Failed; every other move is a
/// [`ScheduleError::ActionTransition`], and a refused move changes nothing. Each move takes
/// `now` and sets `updatedAt` to it (never backwards: a `now` earlier than `updatedAt`
/// leaves it).
///
/// # The contract with a store
///
/// A tick loop reads the due actions ([`due_actions`], or a range scan up to
/// [`due_upper_bound`] over [`ActionKey`]s), and for each one **writes Running first**
/// ([`Action::start`], committed with a compare-and-swap on the stored action, or in one
/// transaction with the read), and only after that write succeeds dispatches the work.
/// Then it writes Completed or Failed. So a crash before the Running write leaves the
/// action Pending (it fires after the restart, once), and a crash after it leaves it Running
/// (it never fires twice): [`startup_recovery`] then fails the actions Running for longer
/// than the longest dispatch could take. Two loops racing for one action both try the
/// Pending → Running write; the store lets one win.
///
/// On the wire (camelCase): `id` (32 hex digits), `label`, `trigger`
/// (`{"type": "scheduled", "nextTickAt": ...}` or
/// `{"type": "webhook", "payload": BASE64, "receivedAt": ...}`), `status`
/// (`{"state": "pending"}`, `"running"`, `{"state": "completed", "result": JSON}`,
/// `{"state": "failed", "reason": TEXT}`), `recurrenceMs` (optional, scheduled actions
/// only), `createdAt`, `updatedAt`. Every field is checked and bounded while it is read.
///
/// ```
/// use model_ids::ActionId;
/// use model_schedule::{Action, ActionState, Interval};
///
/// let tick = "2026-11-22T02:00:00Z".parse().unwrap();
/// let now = "2026-11-22T02:00:01Z".parse().unwrap();
/// let daily = Interval::from_ms(86_400_000)?;
/// let mut action = Action::scheduled(ActionId::from_u128(1), "nightly-backup", tick, Some(daily), now)?;
/// assert!(action.is_due(now));
/// action.start(now)?; // written before dispatch
/// assert!(action.start(now).is_err()); // Running cannot start again
/// action.complete(serde_json::json!({"files": 42}), now)?;
/// let next = action.next_recurring(ActionId::from_u128(2), now)?.unwrap();
/// assert_eq!(next.state(), ActionState::Pending);
/// assert_eq!(next.due_at().to_rfc3339(), "2026-11-23T02:00:00+00:00");
/// # Ok::<(), model_schedule::ScheduleError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawAction", into = "RawAction")]
pub struct Action {
    id: ActionId,
    label: String,
    trigger: ActionTrigger,
    status: ActionStatus,
    recurrence: Option<Interval>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl Action {
    /// A pending action due at `next_tick_at`, recurring every `recurrence` after it
    /// completes (if given), created at `now`.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::InvalidText`] or [`ScheduleError::TooLong`] for a label that is
    /// empty, holds a control character, or is longer than
    /// [`MAX_ACTION_LABEL_BYTES`](crate::MAX_ACTION_LABEL_BYTES).
    pub fn scheduled(
        id: ActionId,
        label: impl Into<String>,
        next_tick_at: DateTime<Utc>,
        recurrence: Option<Interval>,
        now: DateTime<Utc>,
    ) -> Result<Self, ScheduleError> {
        let label = wire::check_label(label.into())?;
        Ok(Action {
            id,
            label,
            trigger: ActionTrigger::Scheduled { next_tick_at },
            status: ActionStatus::Pending,
            recurrence,
            created_at: now,
            updated_at: now,
        })
    }

    /// A pending action for a webhook delivery that arrived at `received_at` (and is due from
    /// then), created at `now`.
    ///
    /// # Errors
    ///
    /// As [`Action::scheduled`] for the label, and [`ScheduleError::TooLong`] for a payload
    /// longer than [`MAX_WEBHOOK_PAYLOAD_BYTES`](crate::MAX_WEBHOOK_PAYLOAD_BYTES).
    pub fn webhook(
        id: ActionId,
        label: impl Into<String>,
        payload: Vec<u8>,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Self, ScheduleError> {
        let label = wire::check_label(label.into())?;
        wire::check_payload_len(payload.len())?;
        Ok(Action {
            id,
            label,
            trigger: ActionTrigger::Webhook {
                payload,
                received_at,
            },
            status: ActionStatus::Pending,
            recurrence: None,
            created_at: now,
            updated_at: now,
        })
    }

    /// The id.
    #[must_use]
    pub fn id(&self) -> ActionId {
        self.id
    }

    /// The human-readable label (`nightly-backup`).
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// What makes it due.
    #[must_use]
    pub fn trigger(&self) -> &ActionTrigger {
        &self.trigger
    }

    /// Where it stands.
    #[must_use]
    pub fn status(&self) -> &ActionStatus {
        &self.status
    }

    /// Its state, without the result or reason.
    #[must_use]
    pub fn state(&self) -> ActionState {
        self.status.state()
    }

    /// How long after its tick the next action follows, once this one completes.
    #[must_use]
    pub fn recurrence(&self) -> Option<Interval> {
        self.recurrence
    }

    /// When it was created.
    #[must_use]
    pub fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }

    /// When it last changed.
    #[must_use]
    pub fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }

    /// When it is due: `nextTickAt` or `receivedAt`.
    #[must_use]
    pub fn due_at(&self) -> DateTime<Utc> {
        self.trigger.due_at()
    }

    /// Its storage key: [`ActionKey::new`] of its due time and id.
    #[must_use]
    pub fn key(&self) -> ActionKey {
        ActionKey::new(self.due_at(), self.id)
    }

    /// Whether it is pending and due at `now`, exactly as a range scan up to
    /// [`due_upper_bound`] decides (to the millisecond).
    #[must_use]
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        self.state() == ActionState::Pending
            && self.due_at().timestamp_millis() <= now.timestamp_millis()
    }

    /// Pending → Running: the write a tick loop commits before it dispatches the action.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::ActionTransition`] unless the action is pending.
    pub fn start(&mut self, now: DateTime<Utc>) -> Result<(), ScheduleError> {
        self.expect(ActionState::Pending, ActionState::Running)?;
        self.set(ActionStatus::Running, now);
        Ok(())
    }

    /// Running → Completed with the action's result.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::ActionTransition`] unless the action is running;
    /// [`ScheduleError::TooLong`] (path `status.result`) for a result costing more than
    /// [`MAX_ACTION_RESULT_BYTES`](crate::MAX_ACTION_RESULT_BYTES).
    pub fn complete(&mut self, result: Value, now: DateTime<Utc>) -> Result<(), ScheduleError> {
        self.expect(ActionState::Running, ActionState::Completed)?;
        let cost = json::cost(&result, MAX_ACTION_RESULT_BYTES);
        if cost > MAX_ACTION_RESULT_BYTES {
            return Err(wire::result_too_long(cost));
        }
        self.set(ActionStatus::Completed { result }, now);
        Ok(())
    }

    /// Running → Failed with a reason, cut (on a character boundary) to
    /// [`MAX_ACTION_REASON_BYTES`](crate::MAX_ACTION_REASON_BYTES), as a task's status error
    /// is.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::ActionTransition`] unless the action is running.
    pub fn fail(
        &mut self,
        reason: impl Into<String>,
        now: DateTime<Utc>,
    ) -> Result<(), ScheduleError> {
        self.expect(ActionState::Running, ActionState::Failed)?;
        let mut reason = reason.into();
        if reason.len() > MAX_ACTION_REASON_BYTES {
            let cut = (0..=MAX_ACTION_REASON_BYTES)
                .rev()
                .find(|&at| reason.is_char_boundary(at))
                .unwrap_or(0);
            reason.truncate(cut);
        }
        self.set(ActionStatus::Failed { reason }, now);
        Ok(())
    }

    /// Startup recovery for one action: if it is Running and was last updated more than
    /// `max_age_ms` before `now`, it becomes Failed with [`RECOVERED_REASON`] and this
    /// returns `true`. A newer Running action (its dispatch may still be going) and any
    /// action in another state stay as they are.
    pub fn recover(&mut self, now: DateTime<Utc>, max_age_ms: u64) -> bool {
        let max_age = i64::try_from(max_age_ms)
            .ok()
            .and_then(TimeDelta::try_milliseconds)
            .unwrap_or(TimeDelta::MAX);
        let stale = now.signed_duration_since(self.updated_at).gt(&max_age);
        if self.state() != ActionState::Running || !stale {
            return false;
        }
        self.set(
            ActionStatus::Failed {
                reason: RECOVERED_REASON.to_owned(),
            },
            now,
        );
        true
    }

    /// The action that follows this one once it has completed, if it recurs: pending, with
    /// the same label and recurrence, created at `now`, due at the first
    /// `nextTickAt + k * recurrence` (`k` ≥ 1) after both its tick and `now`, so the series
    /// keeps its phase and a late completion does not pile up missed ticks. `None` when the
    /// action does not recur (or the next tick is past chrono's range). A failed action does
    /// not recur.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::NotCompleted`] unless the action has completed.
    pub fn next_recurring(
        &self,
        id: ActionId,
        now: DateTime<Utc>,
    ) -> Result<Option<Action>, ScheduleError> {
        if self.state() != ActionState::Completed {
            return Err(ScheduleError::NotCompleted {
                id: self.id,
                state: self.state(),
            });
        }
        let (Some(every), ActionTrigger::Scheduled { next_tick_at }) =
            (self.recurrence, &self.trigger)
        else {
            return Ok(None);
        };
        let Some(next_tick_at) = every.next_after(*next_tick_at, now.max(*next_tick_at)) else {
            return Ok(None);
        };
        Ok(Some(Action {
            id,
            label: self.label.clone(),
            trigger: ActionTrigger::Scheduled { next_tick_at },
            status: ActionStatus::Pending,
            recurrence: self.recurrence,
            created_at: now,
            updated_at: now,
        }))
    }

    fn expect(&self, from: ActionState, to: ActionState) -> Result<(), ScheduleError> {
        if self.state() == from {
            Ok(())
        } else {
            Err(ScheduleError::ActionTransition {
                id: self.id,
                from: self.state(),
                to,
            })
        }
    }

    fn set(&mut self, status: ActionStatus, now: DateTime<Utc>) {
        self.status = status;
        self.updated_at = self.updated_at.max(now);
    }
}

/// Startup recovery over many actions ([`Action::recover`] on each): Running actions last
/// updated more than `max_age_ms` before `now` become Failed with [`RECOVERED_REASON`].
/// Returns how many changed.
pub fn startup_recovery<'a>(
    actions: impl IntoIterator<Item = &'a mut Action>,
    now: DateTime<Utc>,
    max_age_ms: u64,
) -> usize {
    actions
        .into_iter()
        .map(|action| action.recover(now, max_age_ms))
        .filter(|changed| *changed)
        .count()
}

#[cfg(test)]
mod tests;
