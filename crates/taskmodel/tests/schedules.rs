//! A schedule from JSON to the actions a tick loop runs, through the facade only: fire times,
//! time-ordered keys, the due set, Running before dispatch, catch-up, overlap, recurrence
//! and recovery after a restart.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use taskmodel::prelude::*;
use taskmodel::schedule::{ActionState, OverlapDecision, due_actions, startup_recovery};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

#[test]
fn a_tick_loop_over_a_day_with_a_restart() -> taskmodel::Result<()> {
    let schedule: Schedule = serde_json::from_str(
        r#"{
            "name": "hourly-report",
            "spec": {"slot": "reports", "kind": {"type": "container", "image": "report:3"}, "timeoutMs": 600000},
            "trigger": {"cron": "0 * * * *", "timeZone": "Europe/Berlin"},
            "overlap": "bufferOne",
            "catchupWindowMs": 10800000
        }"#,
    )
    .unwrap();
    let start = utc("2026-11-22T00:00:00Z");
    let ids = (1u128..).map(taskmodel::ids::ActionId::from_u128);
    let mut ids = ids.into_iter();

    // The store keeps pending actions under their keys; one tick per hour is queued ahead.
    let mut index = BTreeMap::new();
    for tick in schedule.next_fire_times(start, 3)? {
        let action = Action::scheduled(ids.next().unwrap(), "hourly-report", tick, None, start)?;
        index.insert(action.key(), action);
    }

    // At 02:00:30 two are due, oldest first. The loop writes Running before dispatching.
    let now = utc("2026-11-22T02:00:30Z");
    let due: Vec<_> = due_actions(&index, now).map(Action::key).collect();
    assert_eq!(due.len(), 2);
    for key in &due {
        index.get_mut(key).unwrap().start(now)?;
    }
    // A second loop racing for the same action is refused.
    let err = Error::from(index.get_mut(&due[0]).unwrap().start(now).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::InvalidTransition);

    // The first completes; the process dies before the second reports.
    index
        .get_mut(&due[0])
        .unwrap()
        .complete(serde_json::json!({"rows": 12}), now)?;
    let after_restart = utc("2026-11-22T02:20:00Z");
    let recovered = startup_recovery(index.values_mut(), after_restart, 600_000);
    assert_eq!(recovered, 1);
    assert_eq!(index[&due[1]].state(), ActionState::Failed);

    // Down until 05:10: the ticks of 03:00 to 05:00 were missed, all inside the window.
    let missed = schedule.catch_up(utc("2026-11-22T02:00:00Z"), utc("2026-11-22T05:10:00Z"));
    let hours: Vec<_> = missed
        .ticks
        .iter()
        .map(|t| t.format("%H").to_string())
        .collect();
    assert_eq!(hours, ["03", "04", "05"]);
    assert!(!missed.dropped && !missed.more);
    // The first starts; with it running, the next is buffered and the third dropped.
    assert_eq!(
        schedule.overlap().decide(false, false),
        OverlapDecision::Start
    );
    assert_eq!(
        schedule.overlap().decide(true, false),
        OverlapDecision::Buffer
    );
    assert_eq!(schedule.overlap().decide(true, true), OverlapDecision::Skip);
    Ok(())
}

#[test]
fn schedule_errors_come_through_the_facade() {
    let err: Error = "0 0 30 2 mon-fry".parse::<CronExpr>().unwrap_err().into();
    assert_eq!(err.kind(), ErrorKind::Invalid);
    assert_eq!(
        err.to_string(),
        r#"cron: day-of-week "mon-fry": expected a number 0-7 or a day name sun-sat"#
    );
    assert!(matches!(err, Error::Schedule(_)));
}
