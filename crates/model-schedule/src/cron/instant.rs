//! From wall-clock matches to instants: the daylight-saving rules of Debian's cron.
//!
//! A fixed-time expression fires once for each local time it names: at the first of two
//! instants when the clock goes back, and at the first instant after the gap when the clock
//! goes forward over it. A wildcard expression fires at every instant whose local time
//! matches: nothing in a gap, both passes of a repeated hour.

use chrono::{DateTime, LocalResult, NaiveDateTime, TimeDelta, Utc};

use super::CronExpr;
use crate::zone::Zone;

/// How many gaps and repeated hours one search may step over before it gives up; real zones
/// change their offset at most a few times a year, so a search meets one or two.
const MAX_SKIPS: usize = 64;

/// The first fire time strictly after `after`.
pub(super) fn next_fire(
    expr: &CronExpr,
    zone: &Zone,
    after: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    if !expr.fires {
        return None;
    }
    // Fire times are whole seconds: the first one after `after` is the first one after the
    // whole second `after` falls in.
    let from = DateTime::from_timestamp(after.timestamp(), 0)?;
    if zone.is_utc() {
        let start = from.naive_utc().checked_add_signed(TimeDelta::seconds(1))?;
        return expr.next_local_from(start).map(|local| local.and_utc());
    }
    let local_from = local_of(zone, from)?;
    let first = first_pass_fire(expr, zone, from, local_from)?;
    if expr.wildcard
        && let Some(repeat) = repeated_fire(expr, zone, from, local_from)
    {
        return Some(first.min(repeat));
    }
    Some(first)
}

/// The first fire time after `from` found by walking the wall clock forward from
/// `local_from`, resolving each match in the zone.
fn first_pass_fire(
    expr: &CronExpr,
    zone: &Zone,
    from: DateTime<Utc>,
    local_from: NaiveDateTime,
) -> Option<DateTime<Utc>> {
    let mut start = local_from.checked_add_signed(TimeDelta::seconds(1))?;
    for _ in 0..MAX_SKIPS {
        let local = expr.next_local_from(start)?;
        match zone.resolve(local) {
            LocalResult::Single(at) if at > from => return Some(at),
            LocalResult::Single(_) => start = local.checked_add_signed(TimeDelta::seconds(1))?,
            LocalResult::Ambiguous(earlier, later) => {
                if earlier > from {
                    return Some(earlier);
                }
                if expr.wildcard && later > from {
                    return Some(later);
                }
                // A fixed-time expression on the second pass of a repeated hour: it fired on
                // the first, so skip to where the repeated local times end.
                let change = offset_change(zone, earlier, later)?;
                start = local_of(zone, change)?
                    .checked_add_signed(later.signed_duration_since(earlier))?;
            }
            LocalResult::None => {
                let end = zone.gap_end(local)?;
                if !expr.wildcard && end > from {
                    return Some(end);
                }
                start = local_of(zone, end)?;
            }
        }
    }
    None
}

/// For a wildcard expression whose `from` lies on the first pass of a repeated hour, the
/// first match on the second pass at or before `local_from`: those local times come round
/// again after the clock goes back, and the forward walk from `local_from` cannot see them.
fn repeated_fire(
    expr: &CronExpr,
    zone: &Zone,
    from: DateTime<Utc>,
    local_from: NaiveDateTime,
) -> Option<DateTime<Utc>> {
    let LocalResult::Ambiguous(earlier, later) = zone.resolve(local_from) else {
        return None;
    };
    if earlier != from {
        return None;
    }
    let change = offset_change(zone, earlier, later)?;
    let local = expr.next_local_from(local_of(zone, change)?)?;
    if local > local_from {
        return None;
    }
    // On the second pass the local time `local` is `change` plus its distance from the
    // first local time of the second pass.
    let repeat_start = local_of(zone, change)?;
    change.checked_add_signed(local.signed_duration_since(repeat_start))
}

/// The first instant in `(before, after]` whose offset differs from `before`'s: where the
/// clock changes between two instants with different offsets. Offsets change on whole
/// seconds, so a bisection over seconds finds it in at most about 40 steps.
fn offset_change(
    zone: &Zone,
    before: DateTime<Utc>,
    after: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let offset = zone.offset_at(before);
    let (mut low, mut high) = (before.timestamp(), after.timestamp());
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if zone.offset_at(DateTime::from_timestamp(middle, 0)?) == offset {
            low = middle;
        } else {
            high = middle;
        }
    }
    DateTime::from_timestamp(high, 0)
}

/// The local date and time of `instant` in `zone`.
fn local_of(zone: &Zone, instant: DateTime<Utc>) -> Option<NaiveDateTime> {
    let offset = zone.offset_at(instant).local_minus_utc();
    instant
        .naive_utc()
        .checked_add_signed(TimeDelta::seconds(i64::from(offset)))
}
