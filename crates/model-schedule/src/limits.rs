//! The bounds of this crate, as public constants: every input from outside is held to one.

/// The longest cron expression accepted, in bytes (checked before anything is parsed).
pub const MAX_CRON_LEN: usize = 256;

/// The longest time zone name accepted, in bytes; IANA names are at most about 30.
pub const MAX_TIME_ZONE_LEN: usize = 64;

/// The shortest interval of an `everyMs` trigger and of an action's recurrence: one second,
/// the resolution of cron.
pub const MIN_EVERY_MS: u64 = 1_000;

/// The longest interval of an `everyMs` trigger and of an action's recurrence: 3,660 days
/// (ten years of 366 days).
pub const MAX_EVERY_MS: u64 = 3_660 * 86_400_000;

/// The shortest catch-up window: one second, so a tick that is late by the tick loop's own
/// delay still fires.
pub const MIN_CATCHUP_WINDOW_MS: u64 = 1_000;

/// The catch-up window of a schedule that does not give one: one minute.
pub const DEFAULT_CATCHUP_WINDOW_MS: u64 = 60_000;

/// The longest catch-up window: 365 days (Temporal's default window).
pub const MAX_CATCHUP_WINDOW_MS: u64 = 365 * 86_400_000;

/// The most missed ticks one catch-up returns (Kubernetes' CronJob controller gives up past
/// 100 missed start times); the rest of the window comes with the next call.
pub const MAX_CATCHUP_TICKS: usize = 100;

/// The largest `jitterMs`: one hour.
pub const MAX_JITTER_MS: u64 = 3_600_000;

/// The most fire times one [`Schedule::next_fire_times`](crate::Schedule::next_fire_times)
/// call returns.
pub const MAX_NEXT_FIRE_TIMES: usize = 1_000;

/// The longest action label, in bytes.
pub const MAX_ACTION_LABEL_BYTES: usize = 256;

/// The largest webhook payload an action carries, in bytes (after base64 decoding).
pub const MAX_WEBHOOK_PAYLOAD_BYTES: usize = 1024 * 1024;

/// The longest base64 text of a webhook payload: the encoding of
/// [`MAX_WEBHOOK_PAYLOAD_BYTES`] with padding. Checked before decoding.
pub const MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES: usize = MAX_WEBHOOK_PAYLOAD_BYTES.div_ceil(3) * 4;

/// The largest result of a completed action, in bytes of compact JSON (counted while the
/// value is read: string and key bytes plus one per value).
pub const MAX_ACTION_RESULT_BYTES: usize = 64 * 1024;

/// The longest failure reason of an action, in bytes (the same as a task's status error).
pub const MAX_ACTION_REASON_BYTES: usize = model_task::lifecycle::MAX_STATUS_ERROR_BYTES;

/// The largest history limit of a schedule (`successfulHistoryLimit`, `failedHistoryLimit`):
/// how many finished runs of one outcome it keeps. Retention uses the same bound for every
/// owner's history.
pub const MAX_HISTORY_LIMIT: u32 = 10_000;

/// How many succeeded runs a schedule keeps when it sets only `failedHistoryLimit`:
/// Kubernetes CronJob's default `successfulJobsHistoryLimit`, 3.
pub const DEFAULT_SUCCESSFUL_HISTORY_LIMIT: u32 = 3;

/// How many failed runs a schedule keeps when it sets only `successfulHistoryLimit`:
/// Kubernetes CronJob's default `failedJobsHistoryLimit`, 1.
pub const DEFAULT_FAILED_HISTORY_LIMIT: u32 = 1;
