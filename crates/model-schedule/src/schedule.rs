//! `Schedule`: a task template fired by a trigger, within bounds, and its fire times.

use chrono::{DateTime, Utc};
use model_ids::ScheduleId;
use model_policy::RandomSource;
use model_task::TaskSpec;
use serde::{Deserialize, Serialize};

use crate::{
    error::ScheduleError,
    limits::{
        DEFAULT_CATCHUP_WINDOW_MS, DEFAULT_FAILED_HISTORY_LIMIT, DEFAULT_SUCCESSFUL_HISTORY_LIMIT,
        MAX_CATCHUP_WINDOW_MS, MAX_HISTORY_LIMIT, MAX_JITTER_MS, MAX_NEXT_FIRE_TIMES,
        MIN_CATCHUP_WINDOW_MS,
    },
    overlap::OverlapPolicy,
    trigger::{RawTrigger, Trigger},
};

/// A schedule: a task template ([`TaskSpec`]) that a [`Trigger`] fires, within optional
/// bounds, with the policies for ticks that overlap, come late, or should spread out.
///
/// On the wire (camelCase): `name`, `spec` and `trigger` are required; `startAt` and `endAt`
/// (inclusive) bound the fire times, `remainingRuns` counts the fires left, `paused` stops
/// all of them, `overlap` (default `skip`), `catchupWindowMs` (default one minute, see
/// [`Schedule::catch_up`]) and `jitterMs` (default 0, see [`Schedule::jitter_ms`]);
/// `successfulHistoryLimit` and `failedHistoryLimit` (each at most [`MAX_HISTORY_LIMIT`]; see
/// [`Schedule::history_limits`]) say how many finished runs it keeps.
/// `docs/wire-format.md` has an example. Parsing validates everything and every error names
/// its field (`trigger.cron`, `catchupWindowMs`); the template must pass the submit boundary
/// ([`TaskSpec::validate`]).
///
/// ```
/// use model_schedule::Schedule;
///
/// let schedule: Schedule = serde_json::from_str(r#"{
///     "name": "nightly-backup",
///     "spec": {"slot": "backup", "kind": {"type": "container", "image": "backup:1"}, "timeoutMs": 600000},
///     "trigger": {"cron": "0 2 * * *", "timeZone": "Europe/Berlin"},
///     "overlap": "skip"
/// }"#)?;
/// let after = "2026-10-24T12:00:00Z".parse().unwrap();
/// let times = schedule.next_fire_times(after, 2).unwrap();
/// // 02:00 CEST on the 25th (the clock goes back at 03:00), then 02:00 CET.
/// assert_eq!(times[0].to_rfc3339(), "2026-10-25T00:00:00+00:00");
/// assert_eq!(times[1].to_rfc3339(), "2026-10-26T01:00:00+00:00");
///
/// let bad = r#"{"name": "x", "spec": {"slot": "s", "kind": {"type": "container", "image": "i"}, "timeoutMs": 1},
///               "trigger": {"cron": "0 0 32 * *"}}"#;
/// let err = serde_json::from_str::<Schedule>(bad).unwrap_err();
/// assert!(err.to_string().starts_with(r#"trigger.cron: day-of-month "32" is out of range 1-31"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSchedule", into = "RawSchedule")]
pub struct Schedule {
    name: ScheduleId,
    spec: TaskSpec,
    trigger: Trigger,
    start_at: Option<DateTime<Utc>>,
    end_at: Option<DateTime<Utc>>,
    remaining_runs: Option<u32>,
    paused: bool,
    overlap: OverlapPolicy,
    catchup_window_ms: u64,
    jitter_ms: u64,
    successful_history_limit: Option<u32>,
    failed_history_limit: Option<u32>,
}

/// Builds a [`Schedule`]; [`ScheduleBuilder::build`] runs the checks parsing runs.
#[derive(Debug, Clone)]
#[must_use]
pub struct ScheduleBuilder {
    schedule: Schedule,
}

impl Schedule {
    /// A builder with the three required parts; everything else takes its default.
    pub fn builder(name: ScheduleId, spec: TaskSpec, trigger: Trigger) -> ScheduleBuilder {
        ScheduleBuilder {
            schedule: Schedule {
                name,
                spec,
                trigger,
                start_at: None,
                end_at: None,
                remaining_runs: None,
                paused: false,
                overlap: OverlapPolicy::default(),
                catchup_window_ms: DEFAULT_CATCHUP_WINDOW_MS,
                jitter_ms: 0,
                successful_history_limit: None,
                failed_history_limit: None,
            },
        }
    }

    /// The schedule's name.
    #[must_use]
    pub fn name(&self) -> &ScheduleId {
        &self.name
    }

    /// The task template each fire starts.
    #[must_use]
    pub fn spec(&self) -> &TaskSpec {
        &self.spec
    }

    /// When it fires.
    #[must_use]
    pub fn trigger(&self) -> &Trigger {
        &self.trigger
    }

    /// No fire time before this one.
    #[must_use]
    pub fn start_at(&self) -> Option<DateTime<Utc>> {
        self.start_at
    }

    /// No fire time after this one.
    #[must_use]
    pub fn end_at(&self) -> Option<DateTime<Utc>> {
        self.end_at
    }

    /// How many fires are left (`None`: no limit).
    #[must_use]
    pub fn remaining_runs(&self) -> Option<u32> {
        self.remaining_runs
    }

    /// Whether the schedule is paused (it fires nothing).
    #[must_use]
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// What a tick does while the previous run is active.
    #[must_use]
    pub fn overlap(&self) -> OverlapPolicy {
        self.overlap
    }

    /// How old a missed tick may be and still fire, in milliseconds.
    #[must_use]
    pub fn catchup_window_ms(&self) -> u64 {
        self.catchup_window_ms
    }

    /// The largest delay jitter adds to a tick, in milliseconds.
    #[must_use]
    pub fn max_jitter_ms(&self) -> u64 {
        self.jitter_ms
    }

    /// How many succeeded runs it keeps, as written (`successfulHistoryLimit`).
    #[must_use]
    pub fn successful_history_limit(&self) -> Option<u32> {
        self.successful_history_limit
    }

    /// How many failed runs it keeps, as written (`failedHistoryLimit`).
    #[must_use]
    pub fn failed_history_limit(&self) -> Option<u32> {
        self.failed_history_limit
    }

    /// How many finished runs it keeps, succeeded then failed, after Kubernetes CronJob:
    /// `None` when it sets neither limit (then the retention policy's rule for schedules
    /// decides, by default CronJob's 3 and 1); when it sets one, the other is CronJob's
    /// default ([`DEFAULT_SUCCESSFUL_HISTORY_LIMIT`], [`DEFAULT_FAILED_HISTORY_LIMIT`]).
    ///
    /// ```
    /// use model_schedule::Schedule;
    ///
    /// let json = r#"{"name": "nightly", "trigger": {"cron": "0 2 * * *"},
    ///     "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}}"#;
    /// let schedule: Schedule = serde_json::from_str(json)?;
    /// assert_eq!(schedule.history_limits(), None);
    /// let schedule: Schedule = serde_json::from_str(&json.replace("{\"name", "{\"failedHistoryLimit\": 5, \"name"))?;
    /// assert_eq!(schedule.history_limits(), Some((3, 5)));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[must_use]
    pub fn history_limits(&self) -> Option<(u32, u32)> {
        if self.successful_history_limit.is_none() && self.failed_history_limit.is_none() {
            return None;
        }
        Some((
            self.successful_history_limit
                .unwrap_or(DEFAULT_SUCCESSFUL_HISTORY_LIMIT),
            self.failed_history_limit
                .unwrap_or(DEFAULT_FAILED_HISTORY_LIMIT),
        ))
    }

    /// Pauses or resumes the schedule.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Counts one fire against `remainingRuns` (if set; it stops at 0).
    pub fn record_fire(&mut self) {
        if let Some(runs) = &mut self.remaining_runs {
            *runs = runs.saturating_sub(1);
        }
    }

    /// The fire times strictly after `after`, oldest first, as a lazy iterator that honours
    /// `paused`, `startAt`, `endAt` and `remainingRuns`. Each step is a bounded search, and
    /// each time is later than the one before.
    pub fn fire_times(&self, after: DateTime<Utc>) -> FireTimes<'_> {
        FireTimes {
            schedule: self,
            after,
            left: if self.paused {
                0
            } else {
                self.remaining_runs.unwrap_or(u32::MAX)
            },
        }
    }

    /// The next `n` fire times strictly after `after` (see [`Schedule::fire_times`]);
    /// fewer, possibly none, when the schedule stops firing.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::TooManyFireTimes`] when `n` is above
    /// [`MAX_NEXT_FIRE_TIMES`](crate::MAX_NEXT_FIRE_TIMES).
    pub fn next_fire_times(
        &self,
        after: DateTime<Utc>,
        n: usize,
    ) -> Result<Vec<DateTime<Utc>>, ScheduleError> {
        if n > MAX_NEXT_FIRE_TIMES {
            return Err(ScheduleError::TooManyFireTimes {
                requested: n,
                max: MAX_NEXT_FIRE_TIMES,
            });
        }
        Ok(self.fire_times(after).take(n).collect())
    }

    /// The delay to add to a tick before dispatching it: uniform in `0..=jitterMs`
    /// milliseconds, from one draw of the caller's random source (0 without jitter, and then
    /// nothing is drawn). Fire times themselves carry no jitter, so they stay reproducible.
    pub fn jitter_ms<R: RandomSource + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.jitter_ms == 0 {
            return 0;
        }
        // Multiply-shift: the top 64 bits of draw * (jitter + 1) are uniform in 0..=jitter
        // (within 2^-40 of uniform for any jitter up to an hour).
        let span = u128::from(self.jitter_ms) + 1;
        u64::try_from((u128::from(rng.next_u64()) * span) >> 64).unwrap_or(self.jitter_ms)
    }
}

impl ScheduleBuilder {
    /// No fire time before `start_at`.
    pub fn start_at(mut self, start_at: DateTime<Utc>) -> Self {
        self.schedule.start_at = Some(start_at);
        self
    }

    /// No fire time after `end_at`.
    pub fn end_at(mut self, end_at: DateTime<Utc>) -> Self {
        self.schedule.end_at = Some(end_at);
        self
    }

    /// At most `runs` more fires.
    pub fn remaining_runs(mut self, runs: u32) -> Self {
        self.schedule.remaining_runs = Some(runs);
        self
    }

    /// Starts paused (or not).
    pub fn paused(mut self, paused: bool) -> Self {
        self.schedule.paused = paused;
        self
    }

    /// The overlap policy.
    pub fn overlap(mut self, overlap: OverlapPolicy) -> Self {
        self.schedule.overlap = overlap;
        self
    }

    /// The catch-up window, in milliseconds.
    pub fn catchup_window_ms(mut self, ms: u64) -> Self {
        self.schedule.catchup_window_ms = ms;
        self
    }

    /// The largest jitter, in milliseconds.
    pub fn jitter_ms(mut self, ms: u64) -> Self {
        self.schedule.jitter_ms = ms;
        self
    }

    /// Keep the newest `limit` succeeded runs (at most [`MAX_HISTORY_LIMIT`]).
    pub fn successful_history_limit(mut self, limit: u32) -> Self {
        self.schedule.successful_history_limit = Some(limit);
        self
    }

    /// Keep the newest `limit` failed runs (at most [`MAX_HISTORY_LIMIT`]).
    pub fn failed_history_limit(mut self, limit: u32) -> Self {
        self.schedule.failed_history_limit = Some(limit);
        self
    }

    /// Checks the schedule and returns it.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::OutOfRange`] for `catchupWindowMs` outside
    /// [`MIN_CATCHUP_WINDOW_MS`](crate::MIN_CATCHUP_WINDOW_MS) to
    /// [`MAX_CATCHUP_WINDOW_MS`](crate::MAX_CATCHUP_WINDOW_MS) or `jitterMs` above
    /// [`MAX_JITTER_MS`](crate::MAX_JITTER_MS), or a history limit above
    /// [`MAX_HISTORY_LIMIT`]; [`ScheduleError::EmptyWindow`] when `endAt`
    /// is before `startAt`; [`ScheduleError::Spec`] when the template fails
    /// [`TaskSpec::validate`].
    pub fn build(self) -> Result<Schedule, ScheduleError> {
        let schedule = self.schedule;
        check_range(
            "catchupWindowMs",
            schedule.catchup_window_ms,
            MIN_CATCHUP_WINDOW_MS,
            MAX_CATCHUP_WINDOW_MS,
        )?;
        check_range("jitterMs", schedule.jitter_ms, 0, MAX_JITTER_MS)?;
        for (path, limit) in [
            ("successfulHistoryLimit", schedule.successful_history_limit),
            ("failedHistoryLimit", schedule.failed_history_limit),
        ] {
            if let Some(limit) = limit {
                check_range(path, u64::from(limit), 0, u64::from(MAX_HISTORY_LIMIT))?;
            }
        }
        if let (Some(start_at), Some(end_at)) = (schedule.start_at, schedule.end_at)
            && end_at < start_at
        {
            return Err(ScheduleError::EmptyWindow { start_at, end_at });
        }
        schedule
            .spec
            .validate()
            .map_err(|error| ScheduleError::Spec(error.at("spec")))?;
        Ok(schedule)
    }
}

fn check_range(path: &str, value: u64, min: u64, max: u64) -> Result<(), ScheduleError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ScheduleError::OutOfRange {
            path: path.to_owned(),
            value,
            min,
            max,
        })
    }
}

/// The fire times of a [`Schedule`] after a time: see [`Schedule::fire_times`].
#[derive(Debug, Clone)]
pub struct FireTimes<'a> {
    schedule: &'a Schedule,
    after: DateTime<Utc>,
    left: u32,
}

impl Iterator for FireTimes<'_> {
    type Item = DateTime<Utc>;

    fn next(&mut self) -> Option<DateTime<Utc>> {
        if self.left == 0 {
            return None;
        }
        // `startAt` is inclusive: search from just before it.
        let from = match self.schedule.start_at {
            Some(start_at) if start_at > self.after => {
                start_at.checked_sub_signed(chrono::TimeDelta::nanoseconds(1))?
            }
            _ => self.after,
        };
        let next = self.schedule.trigger.next_after(from);
        match next {
            Some(time) if self.schedule.end_at.is_none_or(|end_at| time <= end_at) => {
                self.after = time;
                self.left -= 1;
                Some(time)
            }
            _ => {
                self.left = 0;
                None
            }
        }
    }
}

impl std::iter::FusedIterator for FireTimes<'_> {}

/// The wire form of [`Schedule`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawSchedule {
    name: String,
    spec: TaskSpec,
    trigger: RawTrigger,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    start_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    end_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remaining_runs: Option<u32>,
    #[serde(default)]
    paused: Option<bool>,
    #[serde(default)]
    overlap: Option<OverlapPolicy>,
    #[serde(default)]
    catchup_window_ms: Option<u64>,
    #[serde(default)]
    jitter_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    successful_history_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failed_history_limit: Option<u64>,
}

impl TryFrom<RawSchedule> for Schedule {
    type Error = ScheduleError;

    fn try_from(raw: RawSchedule) -> Result<Self, ScheduleError> {
        let name = ScheduleId::new(&raw.name).map_err(|source| ScheduleError::Name { source })?;
        let trigger = Trigger::try_from(raw.trigger)?;
        let mut builder = Schedule::builder(name, raw.spec, trigger)
            .paused(raw.paused.unwrap_or(false))
            .overlap(raw.overlap.unwrap_or_default())
            .catchup_window_ms(raw.catchup_window_ms.unwrap_or(DEFAULT_CATCHUP_WINDOW_MS))
            .jitter_ms(raw.jitter_ms.unwrap_or(0));
        builder.schedule.start_at = raw.start_at;
        builder.schedule.end_at = raw.end_at;
        builder.schedule.remaining_runs = raw.remaining_runs;
        builder.schedule.successful_history_limit =
            history_limit("successfulHistoryLimit", raw.successful_history_limit)?;
        builder.schedule.failed_history_limit =
            history_limit("failedHistoryLimit", raw.failed_history_limit)?;
        builder.build()
    }
}

impl From<Schedule> for RawSchedule {
    fn from(schedule: Schedule) -> Self {
        RawSchedule {
            name: schedule.name.into(),
            spec: schedule.spec,
            trigger: schedule.trigger.into(),
            start_at: schedule.start_at,
            end_at: schedule.end_at,
            remaining_runs: schedule.remaining_runs,
            paused: Some(schedule.paused),
            overlap: Some(schedule.overlap),
            catchup_window_ms: Some(schedule.catchup_window_ms),
            jitter_ms: Some(schedule.jitter_ms),
            successful_history_limit: schedule.successful_history_limit.map(u64::from),
            failed_history_limit: schedule.failed_history_limit.map(u64::from),
        }
    }
}

/// A history limit as read: within [`MAX_HISTORY_LIMIT`] (checked here, before it is
/// narrowed, so a value past `u32` gets the same error as one just past the bound).
fn history_limit(path: &str, limit: Option<u64>) -> Result<Option<u32>, ScheduleError> {
    let Some(value) = limit else {
        return Ok(None);
    };
    check_range(path, value, 0, u64::from(MAX_HISTORY_LIMIT))?;
    u32::try_from(value)
        .map(Some)
        .map_err(|_| ScheduleError::OutOfRange {
            path: path.to_owned(),
            value,
            min: 0,
            max: u64::from(MAX_HISTORY_LIMIT),
        })
}

#[cfg(test)]
mod tests;
