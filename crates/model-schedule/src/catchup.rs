//! Catch-up after downtime: which missed ticks fire, oldest first, within the window and a
//! bound.

use chrono::{DateTime, TimeDelta, Utc};

use crate::{limits::MAX_CATCHUP_TICKS, schedule::Schedule};

/// The ticks a schedule missed, as [`Schedule::catch_up`] decides them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatchUp {
    /// The ticks to fire, oldest first, each once, at most
    /// [`MAX_CATCHUP_TICKS`](crate::MAX_CATCHUP_TICKS).
    pub ticks: Vec<DateTime<Utc>>,
    /// Whether ticks older than the catch-up window were dropped.
    pub dropped: bool,
    /// Whether the window holds more ticks than were returned: call again with the last
    /// returned tick as `last_tick`.
    pub more: bool,
}

impl Schedule {
    /// The missed ticks to fire at `now`, when the last tick handled (fired or dropped) was
    /// `last_tick`: the fire times in `(last_tick, now]` that are no older than
    /// `catchupWindowMs` before `now`, oldest first, at most
    /// [`MAX_CATCHUP_TICKS`](crate::MAX_CATCHUP_TICKS) of them. Older ones are dropped
    /// ([`CatchUp::dropped`]). A paused schedule catches up nothing.
    ///
    /// The work is bounded by the returned ticks: a schedule down for a year with a one-hour
    /// window looks at the last hour only. What each tick then does while a run is still
    /// active is the overlap policy's call ([`OverlapPolicy::decide`](crate::OverlapPolicy::decide)).
    ///
    /// ```
    /// use model_schedule::{Schedule, Trigger, Interval};
    /// # use model_task::{TaskKind, TaskSpec};
    /// # let spec = TaskSpec::builder("s", TaskKind::container("img:1".into(), vec![], vec![], Default::default())?, 1_000).build()?;
    /// let every_minute = Trigger::Every { every: Interval::from_ms(60_000)?, anchor: None };
    /// let schedule = Schedule::builder("sync".parse()?, spec, every_minute)
    ///     .catchup_window_ms(180_000)
    ///     .build()?;
    /// let last = "2026-11-22T10:00:00Z".parse().unwrap();
    /// let now = "2026-11-22T10:10:30Z".parse().unwrap();
    /// let missed = schedule.catch_up(last, now);
    /// // Ticks 10:01 to 10:10 were missed; only those from 10:07:30 on are in the window.
    /// let times: Vec<String> = missed.ticks.iter().map(|t| t.format("%H:%M").to_string()).collect();
    /// assert_eq!(times, ["10:08", "10:09", "10:10"]);
    /// assert!(missed.dropped && !missed.more);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn catch_up(&self, last_tick: DateTime<Utc>, now: DateTime<Utc>) -> CatchUp {
        let nothing = CatchUp {
            ticks: Vec::new(),
            dropped: false,
            more: false,
        };
        if self.paused() || now <= last_tick {
            return nothing;
        }
        let window = i64::try_from(self.catchup_window_ms())
            .ok()
            .and_then(TimeDelta::try_milliseconds)
            .unwrap_or(TimeDelta::MAX);
        let window_start = now
            .checked_sub_signed(window)
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        let mut dropped = false;
        let mut from = last_tick;
        if window_start > last_tick {
            // Ticks in (last_tick, window_start) are too old; the window itself is inclusive.
            let just_before = window_start
                .checked_sub_signed(TimeDelta::nanoseconds(1))
                .unwrap_or(window_start);
            dropped = self
                .fire_times(last_tick)
                .next()
                .is_some_and(|first| first < window_start);
            from = from.max(just_before);
        }
        let mut times = self.fire_times(from).take_while(|time| *time <= now);
        let ticks: Vec<_> = times.by_ref().take(MAX_CATCHUP_TICKS).collect();
        let more = times.next().is_some();
        CatchUp {
            ticks,
            dropped,
            more,
        }
    }
}

#[cfg(test)]
mod tests;
