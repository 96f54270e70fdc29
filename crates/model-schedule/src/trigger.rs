//! `Trigger`: when a schedule fires (cron in a time zone, every N milliseconds, or once), and
//! its wire form.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{cron::CronExpr, error::ScheduleError, interval::Interval, zone::Zone};

/// When a schedule fires.
///
/// On the wire, an object with exactly one of `cron`, `everyMs` and `at`:
/// `{"cron": "0 2 * * *", "timeZone": "Europe/Berlin"}` (`timeZone` defaults to `UTC`),
/// `{"everyMs": 60000, "anchor": "2026-01-01T00:00:30Z"}` (`anchor` defaults to the Unix
/// epoch, so intervals line up with the clock the way Temporal's do), or
/// `{"at": "2026-12-24T18:00:00Z"}`. A field that belongs to another kind of trigger is an
/// error, so a typo cannot turn one kind into another.
///
/// ```
/// use model_schedule::Trigger;
///
/// let trigger: Trigger = serde_json::from_str(r#"{"everyMs": 90000}"#)?;
/// let after = "2026-11-22T10:00:00Z".parse().unwrap();
/// assert_eq!(trigger.next_after(after).unwrap().to_rfc3339(), "2026-11-22T10:01:30+00:00");
///
/// let err = serde_json::from_str::<Trigger>(r#"{"cron": "0 2 * * *", "everyMs": 1000}"#).unwrap_err();
/// assert!(err.to_string().starts_with("trigger: give exactly one of cron, everyMs and at"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawTrigger", into = "RawTrigger")]
#[non_exhaustive]
pub enum Trigger {
    /// A cron expression read in a time zone.
    Cron {
        /// The expression.
        cron: CronExpr,
        /// The zone its local times are in.
        time_zone: Zone,
    },
    /// Every `every`, at `anchor + k * every` for whole numbers `k`.
    Every {
        /// The period.
        every: Interval,
        /// A time the series passes through (the Unix epoch when absent).
        anchor: Option<DateTime<Utc>>,
    },
    /// Once.
    At {
        /// The one fire time.
        at: DateTime<Utc>,
    },
}

impl Trigger {
    /// The first fire time strictly after `after`, or `None` when there is none (a one-off
    /// trigger that has passed, a cron expression that never fires, or past chrono's range).
    /// The search is bounded (see [`CronExpr::next_after`]).
    #[must_use]
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Trigger::Cron { cron, time_zone } => cron.next_after(time_zone, after),
            Trigger::Every { every, anchor } => {
                every.next_after(anchor.unwrap_or(DateTime::UNIX_EPOCH), after)
            }
            Trigger::At { at } => (*at > after).then_some(*at),
        }
    }
}

/// The wire form of [`Trigger`]: every field optional, checked in one place.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RawTrigger {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cron: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time_zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    every_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anchor: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<DateTime<Utc>>,
}

impl TryFrom<RawTrigger> for Trigger {
    type Error = ScheduleError;

    /// Field paths start with `trigger`, the trigger's field in a schedule
    /// (`trigger.cron`, `trigger.timeZone`).
    fn try_from(raw: RawTrigger) -> Result<Self, ScheduleError> {
        let shape = |reason| ScheduleError::TriggerShape {
            path: "trigger".to_owned(),
            reason,
        };
        match (raw.cron, raw.every_ms, raw.at) {
            (Some(cron), None, None) => {
                if raw.anchor.is_some() {
                    return Err(shape(
                        "anchor belongs to an everyMs trigger, not a cron one",
                    ));
                }
                let cron = CronExpr::parse_at("trigger.cron", &cron)?;
                let time_zone = match raw.time_zone {
                    Some(name) => Zone::parse_at("trigger.timeZone", &name)?,
                    None => Zone::UTC,
                };
                Ok(Trigger::Cron { cron, time_zone })
            }
            (None, Some(every_ms), None) => {
                if raw.time_zone.is_some() {
                    return Err(shape(
                        "timeZone belongs to a cron trigger, not an everyMs one",
                    ));
                }
                Ok(Trigger::Every {
                    every: Interval::from_ms_at("trigger.everyMs", every_ms)?,
                    anchor: raw.anchor,
                })
            }
            (None, None, Some(at)) => {
                if raw.time_zone.is_some() || raw.anchor.is_some() {
                    return Err(shape("an at trigger has no timeZone or anchor"));
                }
                Ok(Trigger::At { at })
            }
            _ => Err(shape("give exactly one of cron, everyMs and at")),
        }
    }
}

impl From<Trigger> for RawTrigger {
    fn from(trigger: Trigger) -> Self {
        match trigger {
            Trigger::Cron { cron, time_zone } => RawTrigger {
                cron: Some(cron.as_str().to_owned()),
                time_zone: Some(time_zone.name().to_owned()),
                ..RawTrigger::default()
            },
            Trigger::Every { every, anchor } => RawTrigger {
                every_ms: Some(every.as_ms()),
                anchor,
                ..RawTrigger::default()
            },
            Trigger::At { at } => RawTrigger {
                at: Some(at),
                ..RawTrigger::default()
            },
        }
    }
}
