//! Schedules, triggers and actions: cron, interval and one-off triggers, actions keyed by time, catch-up and overlap decisions.
//!
//! Layer 3. Depends on: model-ids, model-policy, model-task.
//!
//! Architecture invariant: no I/O, no clock, no randomness; `now` and the random source are arguments.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod action;
mod catchup;
mod cron;
mod error;
mod interval;
mod limits;
mod overlap;
mod schedule;
mod trigger;
mod zone;

pub use crate::{
    action::{
        ACTION_KEY_LEN, Action, ActionKey, ActionState, ActionStatus, ActionTrigger,
        RECOVERED_REASON, due_actions, due_upper_bound, startup_recovery,
    },
    catchup::CatchUp,
    cron::{CronExpr, CronField},
    error::{ERROR_INPUT_MAX_CHARS, ScheduleError},
    interval::Interval,
    limits::{
        DEFAULT_CATCHUP_WINDOW_MS, MAX_ACTION_LABEL_BYTES, MAX_ACTION_REASON_BYTES,
        MAX_ACTION_RESULT_BYTES, MAX_CATCHUP_TICKS, MAX_CATCHUP_WINDOW_MS, MAX_CRON_LEN,
        MAX_EVERY_MS, MAX_JITTER_MS, MAX_NEXT_FIRE_TIMES, MAX_TIME_ZONE_LEN,
        MAX_WEBHOOK_PAYLOAD_BYTES, MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES, MIN_CATCHUP_WINDOW_MS,
        MIN_EVERY_MS,
    },
    overlap::{OverlapDecision, OverlapPolicy},
    schedule::{FireTimes, Schedule, ScheduleBuilder},
    trigger::Trigger,
    zone::Zone,
};
