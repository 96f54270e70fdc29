//! Schedules, triggers and actions: cron, interval and one-off triggers, actions keyed by time, catch-up and overlap decisions.
//!
//! Layer 3. Depends on: model-ids, model-policy, model-task.
//!
//! Architecture invariant: no I/O, no clock, no randomness; `now` and the random source are arguments.
//!
//! # Schedules
//!
//! A [`Schedule`] is a task template ([`TaskSpec`](model_task::TaskSpec)) fired by a
//! [`Trigger`]: a [`CronExpr`] in a [`Zone`], every [`Interval`], or once. Optional bounds
//! (`startAt`, `endAt`, `remainingRuns`, `paused`) limit its fire times; an
//! [`OverlapPolicy`] says what a tick does while the previous run is active
//! ([`OverlapPolicy::decide`]), the catch-up window which missed ticks still fire after
//! downtime ([`Schedule::catch_up`], at most [`MAX_CATCHUP_TICKS`] a call), and `jitterMs`
//! spreads dispatches with the caller's [`RandomSource`](model_policy::RandomSource)
//! ([`Schedule::jitter_ms`]). [`Schedule::next_fire_times`] lists what comes next. History
//! limits (`successfulHistoryLimit`, `failedHistoryLimit`, after Kubernetes CronJob) say how
//! many finished runs of each outcome a schedule keeps ([`Schedule::history_limits`]);
//! model-retention applies them.
//!
//! Cron is Vixie cron's, as Debian ships it: the day-of-month OR day-of-week rule, and
//! Debian's rules for daylight-saving changes (a fixed-time expression fires once for a
//! repeated local time, and at the first instant after a gap for a skipped one; a wildcard
//! expression runs by the clock). `docs/schedules.md` has the rules, their sources and the
//! time zone database. Every search is bounded: an expression that never fires (`0 0 30 2 *`)
//! gives no fire times at once.
//!
//! # Actions
//!
//! An [`Action`] is one firing, scheduled or delivered by a webhook. Its status moves only
//! Pending → Running → Completed or Failed ([`Action::start`], [`Action::complete`],
//! [`Action::fail`]), Running is written before dispatch (the contract with a store is on
//! [`Action`]), [`Action::next_recurring`] makes the action after a completed recurring one,
//! and [`startup_recovery`] fails actions left Running by a crash. Each action's
//! [`ActionKey`] (24 bytes, milliseconds then id) sorts in time order for every time chrono
//! holds, so one range scan up to [`due_upper_bound`] finds everything due
//! ([`due_actions`]).
//!
//! Every input is bounded by a public constant (`MAX_*`); wire forms are camelCase JSON,
//! validated on parse, with examples in `docs/wire-format.md`. With the `schema` feature,
//! [`Schedule`], [`Trigger`], [`CronExpr`], [`Zone`], [`Interval`], [`OverlapPolicy`],
//! [`Action`] and [`ActionState`] implement `schemars::JsonSchema`.
//!
//! ```
//! use model_ids::ActionId;
//! use model_schedule::{Action, Schedule, due_actions};
//! use std::collections::BTreeMap;
//!
//! let schedule: Schedule = serde_json::from_str(r#"{
//!     "name": "every-five",
//!     "spec": {"slot": "sync", "kind": {"type": "container", "image": "sync:1"}, "timeoutMs": 60000},
//!     "trigger": {"cron": "*/5 * * * *"}
//! }"#)?;
//! let now = "2026-11-22T10:02:00Z".parse().unwrap();
//! let mut index = BTreeMap::new();
//! for (n, tick) in schedule.next_fire_times(now, 3).unwrap().into_iter().enumerate() {
//!     let action = Action::scheduled(ActionId::from_u128(n as u128), "every-five", tick, None, now).unwrap();
//!     index.insert(action.key(), action);
//! }
//! let later = "2026-11-22T10:11:00Z".parse().unwrap();
//! let due: Vec<_> = due_actions(&index, later).map(|a| a.due_at().format("%H:%M").to_string()).collect();
//! assert_eq!(due, ["10:05", "10:10"]);
//! # Ok::<(), serde_json::Error>(())
//! ```
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod action;
mod catchup;
mod cron;
mod error;
mod field;
mod interval;
mod limits;
mod overlap;
mod schedule;
#[cfg(feature = "schema")]
mod schema;
mod state;
mod trigger;
mod visit;
mod zone;

pub use crate::{
    action::{
        ACTION_KEY_LEN, Action, ActionKey, ActionStatus, ActionTrigger, RECOVERED_REASON,
        due_actions, due_upper_bound, startup_recovery,
    },
    catchup::CatchUp,
    cron::CronExpr,
    error::ScheduleError,
    field::CronField,
    interval::Interval,
    limits::{
        DEFAULT_CATCHUP_WINDOW_MS, DEFAULT_FAILED_HISTORY_LIMIT, DEFAULT_SUCCESSFUL_HISTORY_LIMIT,
        MAX_ACTION_LABEL_BYTES, MAX_ACTION_REASON_BYTES, MAX_ACTION_RESULT_BYTES,
        MAX_CATCHUP_TICKS, MAX_CATCHUP_WINDOW_MS, MAX_CRON_LEN, MAX_EVERY_MS, MAX_HISTORY_LIMIT,
        MAX_JITTER_MS, MAX_NEXT_FIRE_TIMES, MAX_TIME_ZONE_LEN, MAX_WEBHOOK_PAYLOAD_BYTES,
        MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES, MIN_CATCHUP_WINDOW_MS, MIN_EVERY_MS,
    },
    overlap::{OverlapDecision, OverlapPolicy},
    schedule::{FireTimes, Schedule, ScheduleBuilder},
    state::ActionState,
    trigger::Trigger,
    zone::Zone,
};
