//! `ScheduleError`, the one error type of this crate, and how it quotes inputs.

use chrono::{DateTime, Utc};
use model_ids::{ActionId, ErrorKind, IdError};
use model_task::TaskError;

use crate::{field::CronField, state::ActionState};

/// Why a schedule, a cron expression, a time zone or an action was rejected, or why an
/// action's status may not change.
///
/// Every variant about a value names its field path (`trigger.cron`, `trigger.timeZone`,
/// `catchupWindowMs`, `status.result`) and quotes the input, shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters (the limit every
/// layer shares). [`ScheduleError::kind`] gives the category.
///
/// ```
/// use model_schedule::{CronExpr, ScheduleError};
///
/// let err = CronExpr::parse("0 0 32 * *").unwrap_err();
/// assert!(matches!(err, ScheduleError::CronOutOfRange { .. }));
/// assert_eq!(err.to_string(), r#"cron: day-of-month "32" is out of range 1-31"#);
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// An empty cron expression.
    #[error("{path}: empty cron expression")]
    #[non_exhaustive]
    CronEmpty {
        /// The field path.
        path: String,
    },

    /// A cron expression longer than [`MAX_CRON_LEN`](crate::MAX_CRON_LEN) bytes.
    #[error("{path}: cron expression too long ({len} bytes, maximum {max})")]
    #[non_exhaustive]
    CronTooLong {
        /// The field path.
        path: String,
        /// Its length in bytes.
        len: usize,
        /// The maximum.
        max: usize,
    },

    /// A cron expression with neither five fields nor six.
    #[error(
        "{path}: {input:?} has {count} fields, expected 5 (minute to day-of-week) or 6 (with seconds first)"
    )]
    #[non_exhaustive]
    CronFieldCount {
        /// The field path.
        path: String,
        /// The expression, shortened.
        input: String,
        /// How many fields it has.
        count: usize,
    },

    /// An `@` nickname that is not one of cron's.
    #[error(
        "{path}: unknown nickname {input:?} (expected @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)"
    )]
    #[non_exhaustive]
    CronNickname {
        /// The field path.
        path: String,
        /// The nickname, shortened.
        input: String,
    },

    /// A value outside its cron field's range.
    #[error("{path}: {field} {value:?} is out of range {min}-{max}")]
    #[non_exhaustive]
    CronOutOfRange {
        /// The field path.
        path: String,
        /// The cron field.
        field: CronField,
        /// The value, shortened.
        value: String,
        /// The smallest value of the field.
        min: u32,
        /// The largest value of the field.
        max: u32,
    },

    /// A range whose start is after its end, such as `5-1`.
    #[error("{path}: {field} {value:?} is a range whose start {start} is after its end {end}")]
    #[non_exhaustive]
    CronReversedRange {
        /// The field path.
        path: String,
        /// The cron field.
        field: CronField,
        /// The list element, shortened.
        value: String,
        /// The start.
        start: u32,
        /// The end.
        end: u32,
    },

    /// A list element of a cron field that is not `*`, a value, a range, or either with a
    /// step.
    #[error("{path}: {field} {value:?}: {reason}")]
    #[non_exhaustive]
    CronSyntax {
        /// The field path.
        path: String,
        /// The cron field.
        field: CronField,
        /// The list element (or the whole field), shortened.
        value: String,
        /// What was expected.
        reason: &'static str,
    },

    /// A time zone name that is not in the IANA database.
    #[error(
        "{path}: unknown time zone {input:?} (expected an IANA name such as \"Europe/Berlin\" or \"UTC\")"
    )]
    #[non_exhaustive]
    UnknownTimeZone {
        /// The field path.
        path: String,
        /// The name, shortened.
        input: String,
    },

    /// A number outside its field's range.
    #[error("{path}: {value} is out of range {min} to {max}")]
    #[non_exhaustive]
    OutOfRange {
        /// The field path.
        path: String,
        /// The value.
        value: u64,
        /// The smallest allowed value.
        min: u64,
        /// The largest allowed value.
        max: u64,
    },

    /// A trigger that is not exactly one of `cron`, `everyMs` and `at`, or that has a
    /// field another kind of trigger owns.
    #[error("{path}: {reason}")]
    #[non_exhaustive]
    TriggerShape {
        /// The field path.
        path: String,
        /// What is wrong.
        reason: &'static str,
    },

    /// `startAt` after `endAt`: the schedule could never fire.
    #[error("endAt: {end_at} is before startAt {start_at}")]
    #[non_exhaustive]
    EmptyWindow {
        /// The start of the window.
        start_at: DateTime<Utc>,
        /// The end of the window.
        end_at: DateTime<Utc>,
    },

    /// The schedule's name is not a valid schedule id.
    #[error("name: invalid schedule id")]
    #[non_exhaustive]
    Name {
        /// Why.
        #[source]
        source: IdError,
    },

    /// The task template breaks a rule of the submit boundary; the task error's path
    /// starts with `spec`.
    #[error(transparent)]
    Spec(TaskError),

    /// More fire times asked for than [`MAX_NEXT_FIRE_TIMES`](crate::MAX_NEXT_FIRE_TIMES).
    #[error("count: {requested} fire times asked for, maximum {max}")]
    #[non_exhaustive]
    TooManyFireTimes {
        /// How many were asked for.
        requested: usize,
        /// The maximum.
        max: usize,
    },

    /// A text or byte field longer than its bound.
    #[error("{path}: too long ({len} bytes, maximum {max})")]
    #[non_exhaustive]
    TooLong {
        /// The field path.
        path: String,
        /// The length in bytes (for a JSON result, as counted so far).
        len: usize,
        /// The maximum.
        max: usize,
    },

    /// A text field with a character it may not hold, or empty when it may not be.
    #[error("{path}: {input:?}: {reason}")]
    #[non_exhaustive]
    InvalidText {
        /// The field path.
        path: String,
        /// The text, shortened.
        input: String,
        /// What is wrong.
        reason: &'static str,
    },

    /// A webhook payload that is not standard base64.
    #[error("{path}: not standard base64 ({reason})")]
    #[non_exhaustive]
    InvalidBase64 {
        /// The field path.
        path: String,
        /// The decoder's reason.
        reason: String,
    },

    /// `updatedAt` before `createdAt`.
    #[error("updatedAt: {updated_at} is before createdAt {created_at}")]
    #[non_exhaustive]
    UpdatedBeforeCreated {
        /// When the action was created.
        created_at: DateTime<Utc>,
        /// When it was last changed.
        updated_at: DateTime<Utc>,
    },

    /// The next action was asked of an action that has not completed (only a completed
    /// recurring action is followed by another).
    #[error("action {id}: only a completed action recurs, this one is {state}")]
    #[non_exhaustive]
    NotCompleted {
        /// The action.
        id: ActionId,
        /// Its state.
        state: ActionState,
    },

    /// A recurrence on an action that is not scheduled (a webhook action fires once).
    #[error("recurrenceMs: only a scheduled action recurs, this one is a webhook action")]
    #[non_exhaustive]
    RecurrenceOnWebhook,

    /// A status change the action lifecycle does not allow (only pending to running, and
    /// running to completed or failed).
    #[error("action {id}: cannot go from {from} to {to}")]
    #[non_exhaustive]
    ActionTransition {
        /// The action.
        id: ActionId,
        /// Its state.
        from: ActionState,
        /// The state asked for.
        to: ActionState,
    },
}

impl ScheduleError {
    /// The category of this error: [`ErrorKind::InvalidTransition`] for a refused action
    /// status change, [`ErrorKind::Invalid`] for everything else (a value to fix).
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            ScheduleError::ActionTransition { .. } | ScheduleError::NotCompleted { .. } => {
                ErrorKind::InvalidTransition
            }
            ScheduleError::CronEmpty { .. }
            | ScheduleError::CronTooLong { .. }
            | ScheduleError::CronFieldCount { .. }
            | ScheduleError::CronNickname { .. }
            | ScheduleError::CronOutOfRange { .. }
            | ScheduleError::CronReversedRange { .. }
            | ScheduleError::CronSyntax { .. }
            | ScheduleError::UnknownTimeZone { .. }
            | ScheduleError::OutOfRange { .. }
            | ScheduleError::TriggerShape { .. }
            | ScheduleError::EmptyWindow { .. }
            | ScheduleError::Name { .. }
            | ScheduleError::Spec(_)
            | ScheduleError::TooManyFireTimes { .. }
            | ScheduleError::TooLong { .. }
            | ScheduleError::InvalidText { .. }
            | ScheduleError::InvalidBase64 { .. }
            | ScheduleError::UpdatedBeforeCreated { .. }
            | ScheduleError::RecurrenceOnWebhook => ErrorKind::Invalid,
        }
    }
}

#[cfg(test)]
mod tests;
