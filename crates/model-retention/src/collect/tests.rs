//! Unit tests of `collect`: one small view per rule, at its exact edges (a time to live a
//! millisecond before and at its end, history limits at their counts), each with the
//! deletions in order and the releases it must give.

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::TenantId;

use super::*;
use crate::kind::ResourceKind;
use crate::lifecycle::{Lifecycle, Outcome};
use crate::policy::{HistoryLimits, RetentionRule};
use crate::resource::OwnedResourceBuilder;
use model_ids::Uid;
use model_task::task::OwnerKind;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn now() -> DateTime<Utc> {
    "2026-11-22T00:00:00Z".parse().unwrap()
}

/// Finished `ago_ms` before now.
fn done(ago_ms: i64) -> Lifecycle {
    Lifecycle::sealed(now() - TimeDelta::milliseconds(ago_ms), Outcome::Succeeded)
}

/// Failed `ago_ms` before now.
fn failed(ago_ms: i64) -> Lifecycle {
    Lifecycle::sealed(now() - TimeDelta::milliseconds(ago_ms), Outcome::Failed)
}

/// A resource of `kind` named `name` (uid from the name's bytes), in tenant acme.
fn new(kind: ResourceKind, name: &str, lifecycle: Lifecycle) -> OwnedResourceBuilder {
    let uid = name
        .bytes()
        .fold(0_u128, |uid, b| uid * 256 + u128::from(b));
    OwnedResource::builder(kind, TenantId::new("acme").unwrap(), name, lifecycle)
        .uid(Uid::from_u128(uid))
}

/// `builder` owned by `owner`.
fn owned(
    builder: OwnedResourceBuilder,
    owner: &OwnedResourceBuilder,
    controller: bool,
) -> OwnedResourceBuilder {
    let owner = owner.clone().build().unwrap();
    let kind = match owner.kind() {
        ResourceKind::Flow => OwnerKind::Flow,
        ResourceKind::Schedule => OwnerKind::Schedule,
        _ => OwnerKind::Task,
    };
    let reference = OwnerReference::new(kind, owner.name(), owner.uid().unwrap()).unwrap();
    builder.owner(if controller {
        reference.controlling()
    } else {
        reference
    })
}

/// One case: a view, what is deleted (name and reason, in order) and released (resource,
/// owner, reason), and the next expiry after now.
struct Case {
    what: &'static str,
    policy: RetentionPolicy,
    view: Vec<OwnedResourceBuilder>,
    deleted: Vec<(&'static str, DeleteReason)>,
    released: Vec<(&'static str, &'static str, ReleaseReason)>,
    next_expiry: Option<i64>,
}

fn check(case: Case) {
    let resources: Vec<OwnedResource> = case.view.into_iter().map(|b| b.build().unwrap()).collect();
    let collection = collect_with(&case.policy, now(), &resources);
    let deleted: Vec<(&str, DeleteReason)> = collection
        .deletions()
        .iter()
        .map(|d| (d.resource().name(), d.reason()))
        .collect();
    assert_eq!(deleted, case.deleted, "{}: deletions", case.what);
    let released: Vec<(&str, &str, ReleaseReason)> = collection
        .releases()
        .iter()
        .map(|r| (r.resource().name(), r.owner().name(), r.reason()))
        .collect();
    assert_eq!(released, case.released, "{}: releases", case.what);
    let next = case
        .next_expiry
        .map(|ms| now() + TimeDelta::milliseconds(ms));
    assert_eq!(collection.next_expiry(), next, "{}: next expiry", case.what);
}

#[test]
fn a_time_to_live_ends_exactly_at_its_expiry() {
    use DeleteReason::Expired;
    let task = |name, lifecycle| new(ResourceKind::Task, name, lifecycle);
    for case in [
        Case {
            what: "a day after, the task goes",
            policy: RetentionPolicy::DEFAULT,
            view: vec![task("t", done(DAY))],
            deleted: vec![("t", Expired)],
            released: vec![],
            next_expiry: None,
        },
        Case {
            what: "a millisecond before, it stays",
            policy: RetentionPolicy::DEFAULT,
            view: vec![task("t", done(DAY - 1))],
            deleted: vec![],
            released: vec![],
            next_expiry: Some(1),
        },
        Case {
            what: "its own time to live wins over its kind's",
            policy: RetentionPolicy::DEFAULT,
            view: vec![
                task("t", done(0)).ttl_after_finished_ms(0),
                task("u", done(DAY)).ttl_after_finished_ms(2 * DAY as u64),
            ],
            deleted: vec![("t", Expired)],
            released: vec![],
            next_expiry: Some(DAY),
        },
        Case {
            what: "a running task stays, whatever its time to live",
            policy: RetentionPolicy::DEFAULT,
            view: vec![task("t", Lifecycle::Draft).ttl_after_finished_ms(0)],
            deleted: vec![],
            released: vec![],
            next_expiry: None,
        },
        Case {
            what: "a schedule has no time to live by default",
            policy: RetentionPolicy::DEFAULT,
            view: vec![new(ResourceKind::Schedule, "s", done(400 * DAY))],
            deleted: vec![],
            released: vec![],
            next_expiry: None,
        },
    ] {
        check(case);
    }
}

#[test]
fn cascades_follow_kubernetes() {
    use DeleteReason::{Expired, OwnerDeleted};
    use ReleaseReason::Orphaned;
    let flow = |cascade| new(ResourceKind::Flow, "etl", done(2 * DAY)).cascade(cascade);
    let view = |cascade| {
        let flow = flow(cascade);
        vec![
            owned(
                new(ResourceKind::Task, "run", Lifecycle::Draft),
                &flow,
                true,
            ),
            owned(new(ResourceKind::Task, "fresh", done(HOUR)), &flow, true),
            flow,
        ]
    };
    for case in [
        Case {
            what: "foreground: the flow waits for its running task; the finished one goes",
            policy: RetentionPolicy::DEFAULT,
            view: view(CascadePolicy::Foreground),
            deleted: vec![("fresh", OwnerDeleted)],
            released: vec![],
            next_expiry: None,
        },
        Case {
            what: "background: the flow goes at once, its running task later",
            policy: RetentionPolicy::DEFAULT,
            view: view(CascadePolicy::Background),
            deleted: vec![("fresh", OwnerDeleted), ("etl", Expired)],
            released: vec![],
            next_expiry: None,
        },
        Case {
            what: "orphan: the flow goes alone and its tasks are released",
            policy: RetentionPolicy::DEFAULT,
            view: view(CascadePolicy::Orphan),
            deleted: vec![("etl", Expired)],
            released: vec![("run", "etl", Orphaned), ("fresh", "etl", Orphaned)],
            next_expiry: Some(DAY - HOUR),
        },
    ] {
        check(case);
    }
}

#[test]
fn history_limits_keep_the_newest_of_each_outcome() {
    use DeleteReason::HistoryLimit;
    let schedule = new(ResourceKind::Schedule, "nightly", Lifecycle::Draft);
    let task = |name, lifecycle| owned(new(ResourceKind::Task, name, lifecycle), &schedule, true);
    let mut view = vec![schedule.clone()];
    for (name, hours) in [("ok1", 1), ("ok2", 2), ("ok3", 3), ("ok4", 4), ("ok5", 5)] {
        view.push(task(name, done(hours * HOUR)));
    }
    for (name, hours) in [("bad1", 1), ("bad2", 2), ("bad3", 3)] {
        view.push(task(name, failed(hours * HOUR)));
    }
    view.push(task("running", Lifecycle::Draft));
    // An owner that is not the controller counts nothing against the limits.
    view.push(owned(
        new(ResourceKind::Task, "loose", done(9 * HOUR)),
        &schedule,
        false,
    ));
    check(Case {
        what: "CronJob's 3 succeeded and 1 failed",
        policy: RetentionPolicy::DEFAULT,
        view: view.clone(),
        deleted: vec![
            ("ok4", HistoryLimit),
            ("ok5", HistoryLimit),
            ("bad2", HistoryLimit),
            ("bad3", HistoryLimit),
        ],
        released: vec![],
        next_expiry: Some(DAY - 9 * HOUR),
    });
    view[0] = schedule.clone().history(HistoryLimits::new(0, 0).unwrap());
    check(Case {
        what: "with no history kept, an active schedule still keeps its newest run",
        policy: RetentionPolicy::DEFAULT,
        view,
        deleted: ["ok2", "ok3", "ok4", "ok5", "bad1", "bad2", "bad3"]
            .map(|n| (n, HistoryLimit))
            .to_vec(),
        released: vec![],
        next_expiry: Some(DAY - 9 * HOUR),
    });
}

#[test]
fn an_active_owner_that_holds_keeps_what_it_owns() {
    use DeleteReason::Expired;
    let draft = new(ResourceKind::Flow, "etl", Lifecycle::Draft);
    let sealed = new(ResourceKind::Flow, "etl", done(HOUR));
    let task = |flow: &OwnedResourceBuilder| {
        owned(new(ResourceKind::Task, "load", done(2 * DAY)), flow, true)
    };
    check(Case {
        what: "a running flow holds its expired task",
        policy: RetentionPolicy::DEFAULT,
        view: vec![draft.clone(), task(&draft)],
        deleted: vec![],
        released: vec![],
        next_expiry: None,
    });
    check(Case {
        what: "a finished flow does not",
        policy: RetentionPolicy::DEFAULT,
        view: vec![sealed.clone(), task(&sealed)],
        deleted: vec![("load", Expired)],
        released: vec![],
        next_expiry: Some(DAY - HOUR),
    });
    let not_holding = RetentionPolicy::DEFAULT.with_rule(
        ResourceKind::Flow,
        RetentionRule::builder(30)
            .ttl_after_finished_ms(DAY as u64)
            .build()
            .unwrap(),
    );
    let other = owned(
        new(ResourceKind::Task, "extract", done(3 * DAY)),
        &draft,
        true,
    );
    check(Case {
        what: "a running flow that does not hold keeps only its newest task",
        policy: not_holding,
        view: vec![draft.clone(), task(&draft), other],
        deleted: vec![("extract", Expired)],
        released: vec![],
        next_expiry: None,
    });
}

#[test]
fn a_resource_another_owner_keeps_is_released() {
    use DeleteReason::Expired;
    use ReleaseReason::Survives;
    let flow = new(ResourceKind::Flow, "etl", done(2 * DAY));
    let schedule = new(ResourceKind::Schedule, "nightly", Lifecycle::Draft);
    let task = owned(
        owned(new(ResourceKind::Task, "load", done(HOUR)), &flow, true),
        &schedule,
        false,
    );
    check(Case {
        what: "the task stays through its schedule; the flow goes",
        policy: RetentionPolicy::DEFAULT,
        view: vec![flow, schedule, task],
        deleted: vec![("etl", Expired)],
        released: vec![("load", "etl", Survives)],
        next_expiry: Some(DAY - HOUR),
    });
}

#[test]
fn a_gone_owner_frees_what_it_owned() {
    use DeleteReason::OwnerGone;
    use ReleaseReason::OwnerGone as Gone;
    let gone = new(ResourceKind::Flow, "etl", done(HOUR));
    let recreated = new(ResourceKind::Flow, "etl", Lifecycle::Draft).uid(Uid::from_u128(7));
    let live = new(ResourceKind::Schedule, "nightly", Lifecycle::Draft);
    let orphan = owned(new(ResourceKind::Task, "load", done(HOUR)), &gone, true);
    let kept = owned(
        owned(new(ResourceKind::Task, "keep", done(HOUR)), &gone, true),
        &live,
        false,
    );
    check(Case {
        what: "a task whose flow was deleted and created again goes; one with another owner loses the reference",
        policy: RetentionPolicy::DEFAULT,
        view: vec![recreated, live, orphan, kept],
        deleted: vec![("load", OwnerGone)],
        released: vec![("keep", "etl", Gone)],
        next_expiry: Some(DAY - HOUR),
    });
}

#[test]
fn the_order_follows_priorities_and_ownership() {
    use DeleteReason::{Expired, OwnerDeleted};
    let schedule = new(ResourceKind::Schedule, "nightly", done(DAY)).ttl_after_finished_ms(0);
    let task = owned(new(ResourceKind::Task, "t", done(DAY)), &schedule, true);
    let attempt = owned(new(ResourceKind::Attempt, "t/1", done(DAY)), &task, true);
    let flow = new(ResourceKind::Flow, "etl", done(DAY));
    let view = vec![schedule, flow, task, attempt];
    check(Case {
        what: "by the default priorities",
        policy: RetentionPolicy::DEFAULT,
        view: view.clone(),
        deleted: vec![
            ("t/1", OwnerDeleted),
            ("t", Expired),
            ("etl", Expired),
            ("nightly", Expired),
        ],
        released: vec![],
        next_expiry: None,
    });
    let attempts_last = RetentionPolicy::DEFAULT.with_rule(
        ResourceKind::Attempt,
        RetentionRule::builder(5).build().unwrap(),
    );
    check(Case {
        what: "an owner waits for what it owns, however low its priority",
        policy: attempts_last,
        view,
        deleted: vec![
            ("etl", Expired),
            ("t/1", OwnerDeleted),
            ("t", Expired),
            ("nightly", Expired),
        ],
        released: vec![],
        next_expiry: None,
    });
}

#[test]
fn a_cycle_is_left_alone() {
    let a = new(ResourceKind::Task, "a", done(2 * DAY));
    let b = owned(new(ResourceKind::Task, "b", done(2 * DAY)), &a, true);
    let a = owned(a, &b, true);
    check(Case {
        what: "two tasks that own each other",
        policy: RetentionPolicy::DEFAULT,
        view: vec![a, b],
        deleted: vec![],
        released: vec![],
        next_expiry: None,
    });
}
