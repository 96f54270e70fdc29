//! An action from JSON: round trip, key, the due rule and every status move.
//!
//! Input: 8 bytes of milliseconds since the Unix epoch (little-endian) as `now`, then the
//! action's JSON. An action that parses must serialize and parse back equal; its key must
//! hold its due time and id; `is_due` must agree with the key and `due_upper_bound`; each
//! status move must succeed exactly when the lifecycle allows it and change nothing when
//! refused.
#![no_main]

mod common;

use chrono::DateTime;
use libfuzzer_sys::fuzz_target;
use taskmodel::schedule::{Action, ActionState, due_upper_bound};

fuzz_target!(|data: &[u8]| {
    let Some((millis, json)) = common::leading_i64(data) else {
        return;
    };
    let Ok(action) = serde_json::from_slice::<Action>(json) else {
        return;
    };
    let text = serde_json::to_string(&action).expect("an action serializes");
    let back: Action = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("JSON {text} does not parse back: {err}"));
    assert_eq!(back, action, "round trip differs: {text}");

    let key = action.key();
    assert_eq!(key.millis(), action.due_at().timestamp_millis());
    assert_eq!(key.id(), action.id());
    let now = DateTime::from_timestamp_millis(millis).unwrap_or(DateTime::UNIX_EPOCH);
    assert_eq!(
        action.is_due(now),
        action.state() == ActionState::Pending && key <= due_upper_bound(now)
    );

    let state = action.state();
    let mut started = action.clone();
    assert_eq!(started.start(now).is_ok(), state == ActionState::Pending);
    let mut completed = action.clone();
    let ok = completed
        .complete(serde_json::json!({"ok": true}), now)
        .is_ok();
    assert_eq!(ok, state == ActionState::Running);
    if !ok {
        assert_eq!(completed, action);
    }
    let mut failed = action.clone();
    assert_eq!(failed.fail("x", now).is_ok(), state == ActionState::Running);
    let mut recovered = action.clone();
    if recovered.recover(now, 0) {
        assert_eq!(state, ActionState::Running);
        assert_eq!(recovered.state(), ActionState::Failed);
    }
    let next = action.next_recurring(action.id(), now);
    assert_eq!(next.is_ok(), state == ActionState::Completed);
});
