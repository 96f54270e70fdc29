//! Unit tests of `convert`: each model type's view, state by state, and a collection over
//! views made from them.

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::{ActionId, ScheduleId, TenantId};
use model_schedule::{Action, Schedule};

use super::*;
use crate::collect::{DeleteReason, collect};
use crate::shim::OwnerKind;

fn now() -> DateTime<Utc> {
    "2026-11-22T02:00:00Z".parse().unwrap()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn schedule() -> Schedule {
    serde_json::from_str(
        r#"{"name": "nightly", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}, "trigger": {"cron": "0 2 * * *"}}"#,
    )
    .unwrap()
}

/// Action `n`, due `n` hours before now, moved on to `state` at its due time plus a minute.
fn action(n: u128, state: ActionState) -> Action {
    let due = now() - TimeDelta::hours(n as i64);
    let done = due + TimeDelta::minutes(1);
    let mut action = Action::scheduled(ActionId::from_u128(n), "nightly", due, None, due).unwrap();
    if state != ActionState::Pending {
        action.start(due).unwrap();
    }
    match state {
        ActionState::Completed => action.complete(serde_json::json!({}), done).unwrap(),
        ActionState::Failed => action.fail("boom", done).unwrap(),
        _ => {}
    }
    action
}

fn owner() -> OwnerReference {
    OwnerReference::new(OwnerKind::Schedule, "nightly", Uid::from_u128(1000), true)
}

#[test]
fn a_schedule_is_active_until_it_ended() {
    let active =
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), None).unwrap();
    assert_eq!(active.kind(), ResourceKind::Schedule);
    assert_eq!(active.name(), ScheduleId::new("nightly").unwrap().as_str());
    assert_eq!(active.uid(), Some(Uid::from_u128(1000)));
    assert_eq!(active.lifecycle(), Lifecycle::Draft);
    let ended =
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), Some(now()))
            .unwrap();
    assert_eq!(
        ended.lifecycle(),
        Lifecycle::sealed(now(), Outcome::Succeeded)
    );
}

#[test]
fn an_action_is_sealed_when_it_ended() {
    let minute = TimeDelta::minutes(1);
    let cases = [
        (ActionState::Pending, Lifecycle::Draft),
        (ActionState::Running, Lifecycle::Draft),
        (
            ActionState::Completed,
            Lifecycle::sealed(now() - TimeDelta::hours(3) + minute, Outcome::Succeeded),
        ),
        (
            ActionState::Failed,
            Lifecycle::sealed(now() - TimeDelta::hours(3) + minute, Outcome::Failed),
        ),
    ];
    for (state, lifecycle) in cases {
        let action = action(3, state);
        let view = OwnedResource::from_action(&action, acme(), owner()).unwrap();
        assert_eq!(view.lifecycle(), lifecycle, "{state:?}");
        assert_eq!(view.name(), action.id().to_string());
        assert_eq!(
            view.uid().map(|uid| *uid.as_bytes()),
            Some(*action.id().as_bytes())
        );
        assert_eq!(view.controller(), Some(&owner()));
    }
}

#[test]
fn a_schedule_keeps_its_newest_actions() {
    let mut views = vec![
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), None).unwrap(),
    ];
    for n in 1..=5 {
        views.push(
            OwnedResource::from_action(&action(n, ActionState::Completed), acme(), owner())
                .unwrap(),
        );
    }
    views.push(
        OwnedResource::from_action(&action(6, ActionState::Running), acme(), owner()).unwrap(),
    );
    let collection = collect(now(), &views);
    let deleted: Vec<(usize, DeleteReason)> = collection
        .deletions()
        .iter()
        .map(|d| (d.index(), d.reason()))
        .collect();
    // CronJob's three newest succeeded stay (actions 1 to 3); 4 and 5 go; 6 runs.
    assert_eq!(
        deleted,
        [
            (4, DeleteReason::HistoryLimit),
            (5, DeleteReason::HistoryLimit)
        ]
    );
}
