//! When the tick next looks at a schedule: its next fire time, sooner while a tick is
//! buffered, never while it is paused; at the exact boundaries.

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::ids::ScheduleId;
use taskmodel::schedule::{Interval, Schedule, Trigger};
use taskmodel::task::{TaskKind, TaskSpec};

use super::next_due;

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

/// Every 10 s since 1970, paused or not, ending at 30 s.
fn schedule(paused: bool) -> Schedule {
    let kind = TaskKind::container("img".into(), vec![], vec![], Default::default()).unwrap();
    let trigger = Trigger::Every {
        every: Interval::from_ms(10_000).unwrap(),
        anchor: None,
    };
    Schedule::builder(
        ScheduleId::new("s").unwrap(),
        TaskSpec::builder("s", kind, 1_000).build().unwrap(),
        trigger,
    )
    .end_at(at(30_000))
    .paused(paused)
    .build()
    .unwrap()
}

#[test]
fn next_due_is_the_next_fire_time_or_just_after_now_while_a_tick_is_buffered() {
    let check = |paused: bool, after: i64, buffered: Option<i64>, now: i64, due: Option<i64>| {
        let got = next_due(&schedule(paused), at(after), buffered.map(at), at(now));
        assert_eq!(
            got,
            due.map(at),
            "paused {paused}, after {after}, buffered {buffered:?}"
        );
    };
    check(false, 0, None, 0, Some(10_000));
    check(false, 9_999, None, 0, Some(10_000));
    check(false, 10_000, None, 0, Some(20_000));
    check(false, 29_999, None, 0, Some(30_000));
    check(false, 30_000, None, 0, None);
    check(false, 10_000, Some(10_000), 12_000, Some(12_001));
    check(false, 10_000, Some(10_000), 19_999, Some(20_000));
    check(false, 10_000, Some(10_000), 20_000, Some(20_000));
    check(false, 30_000, Some(30_000), 40_000, Some(40_001));
    check(true, 0, None, 0, None);
    // A buffered recheck after a `now` with microseconds is its millisecond's.
    let now = at(12_000) + TimeDelta::microseconds(500);
    let got = next_due(&schedule(false), at(10_000), Some(at(10_000)), now);
    assert_eq!(got, Some(at(12_001)));
    check(true, 10_000, Some(10_000), 12_000, None);
}
