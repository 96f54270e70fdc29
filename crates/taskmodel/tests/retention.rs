//! Retention across the layers, through the facade only: tasks made from manifests that name
//! their flow or schedule, run through their attempts, seen by `OwnedResource::from_task`
//! and `from_attempt`, and collected by a small in-memory store in cleanup order: a flow's
//! tasks after the flow finished, times to live after finishing, a schedule's history and
//! its background cascade, an orphaning owner, and the uid precondition of each deletion;
//! and flows and schedules seen by `from_flow` and `from_schedule`, a flow's own time to live
//! and a schedule's own history limits winning over the policy's table.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::flow::{FlowRun, FlowSpec};
use taskmodel::prelude::*;
use taskmodel::retention::{
    DeleteReason, Lifecycle, Outcome, ReleaseReason, ResourceKind, collect, collect_with,
};
use taskmodel::schedule::Schedule;
use taskmodel::task::{AttemptOutcome, AttemptResult, RestartDecision, TaskEnv, TaskPhase};

const HOUR_MS: u64 = 3_600_000;

/// `minutes` after 2026-11-22T00:00:00Z.
fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_795_305_600, 0).unwrap() + TimeDelta::minutes(minutes)
}

const DAY: i64 = 24 * 60;

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

/// A reference to the owner of `kind` named `name` with `uid`, as its controller.
fn controller(kind: OwnerKind, name: &str, uid: u128) -> OwnerReference {
    OwnerReference::new(kind, name, Uid::from_u128(uid))
        .unwrap()
        .controlling()
}

/// What the control plane holds for one tenant: flows and schedules as views (their own
/// crates keep their state), tasks and their attempts as the model's own values.
#[derive(Default)]
struct Store {
    owners: Vec<OwnedResource>,
    tasks: Vec<Task>,
    attempts: Vec<TaskRun>,
    next_uid: u128,
}

impl Store {
    fn uid(&mut self) -> Uid {
        self.next_uid += 1;
        Uid::from_u128(self.next_uid)
    }

    /// A flow or schedule view named `name`, active; returns the reference its tasks write.
    fn owner(&mut self, kind: ResourceKind, name: &str) -> OwnerReference {
        let uid = self.uid();
        let view = OwnedResource::builder(kind, acme(), name, Lifecycle::Draft)
            .uid(uid)
            .build()
            .unwrap();
        self.owners.push(view);
        let kind = match kind {
            ResourceKind::Flow => OwnerKind::Flow,
            _ => OwnerKind::Schedule,
        };
        controller(kind, name, uid.to_u128())
    }

    /// Keeps `view`, a flow's or a schedule's made by its own crate's type; returns the
    /// reference its tasks write.
    fn adopt(&mut self, view: OwnedResource) -> OwnerReference {
        let kind = match view.kind() {
            ResourceKind::Flow => OwnerKind::Flow,
            _ => OwnerKind::Schedule,
        };
        let owner = controller(kind, view.name(), view.uid().unwrap().to_u128());
        self.owners.push(view);
        owner
    }

    /// Replaces the owner view of the same name with `view` (the resource changed).
    fn replace(&mut self, view: OwnedResource) {
        let slot = self
            .owners
            .iter_mut()
            .find(|o| o.name() == view.name())
            .unwrap();
        *slot = view;
    }

    /// Seals the owner `name` at `end`, as its own crate reports it finished.
    fn finish_owner(&mut self, name: &str, end: DateTime<Utc>) {
        let view = self.owners.iter_mut().find(|o| o.name() == name).unwrap();
        let mut builder = OwnedResource::builder(
            view.kind(),
            acme(),
            name,
            Lifecycle::sealed(end, Outcome::Succeeded),
        )
        .uid(view.uid().unwrap());
        if let Some(cascade) = view.cascade() {
            builder = builder.cascade(cascade);
        }
        *view = builder.build().unwrap();
    }

    /// A task `name` created at `now` from a manifest naming `owner`, kept `ttl_ms` after it
    /// finishes when given; it never restarts.
    fn task(
        &mut self,
        name: &str,
        owner: &OwnerReference,
        ttl_ms: Option<u64>,
        now: DateTime<Utc>,
    ) {
        let kind = TaskKind::wasm("job.wasm".into(), vec![], TaskEnv::default()).unwrap();
        let mut spec = TaskSpec::builder("etl", kind, 60_000);
        if let Some(ttl) = ttl_ms {
            spec = spec.ttl_after_finished_ms(ttl);
        }
        let meta = ManifestMeta::new(TaskId::new(name).unwrap())
            .with_owner_references(vec![owner.clone()])
            .unwrap();
        let manifest = TaskManifest::new(meta, spec.build().unwrap());
        let uid = self.uid();
        self.tasks
            .push(Task::create(manifest, acme(), uid, now).unwrap());
    }

    /// Runs one attempt of task `name` from `start` to `end`, ending with `outcome` (at
    /// `end`, or still running when `None`).
    fn attempt(
        &mut self,
        name: &str,
        outcome: Option<AttemptOutcome>,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
    ) {
        let mut rng = SeededRandom::new(7);
        let task = self.tasks.iter_mut().find(|t| t.id() == name).unwrap();
        let lease = LeaseId::new(self.next_uid as u64);
        let runner = RunnerId::new("runner-1").unwrap();
        let expires = end + TimeDelta::hours(1);
        let mut run = task
            .lease_attempt(None, None, runner, lease, expires, start)
            .unwrap();
        assert!(
            task.start_attempt(&mut run, lease, start)
                .unwrap()
                .is_changed()
        );
        if let Some(outcome) = outcome {
            let result = AttemptResult::new(outcome);
            let applied = task.report_result(&mut run, lease, result, &mut rng, end);
            assert!(applied.unwrap().is_changed());
        }
        self.attempts.push(run);
    }

    /// Ends the running attempt of task `name` with `outcome` at `end`.
    fn end(&mut self, name: &str, outcome: AttemptOutcome, end: DateTime<Utc>) {
        let mut rng = SeededRandom::new(7);
        let task = self.tasks.iter_mut().find(|t| t.id() == name).unwrap();
        let run = self
            .attempts
            .iter_mut()
            .find(|r| r.task_id() == name && r.is_active())
            .unwrap();
        let lease = run.lease();
        let applied = task.report_result(run, lease, AttemptResult::new(outcome), &mut rng, end);
        assert!(applied.unwrap().is_changed());
    }

    /// The view `collect` reads: owners, then every task and attempt.
    fn view(&self) -> Vec<OwnedResource> {
        let mut view = self.owners.clone();
        for task in &self.tasks {
            view.push(OwnedResource::from_task(task).unwrap());
        }
        for run in &self.attempts {
            let task = self.tasks.iter().find(|t| t.id() == run.task_id()).unwrap();
            view.push(OwnedResource::from_attempt(run, task).unwrap());
        }
        view
    }

    /// Deletes what `deletions` name, in their order, each guarded by the uid the view had
    /// (a task by its own precondition); returns the names and reasons, in order.
    fn delete(
        &mut self,
        deletions: &[(ResourceKind, String, Option<Uid>, DeleteReason)],
    ) -> Vec<(String, DeleteReason)> {
        let mut done = Vec::new();
        for (kind, name, uid, reason) in deletions {
            match kind {
                ResourceKind::Task => {
                    let index = self.tasks.iter().position(|t| t.id() == name).unwrap();
                    let guard = Precondition::from(uid.unwrap());
                    self.tasks[index].metadata().check(&guard).unwrap();
                    // Its attempts went first, in the same collection.
                    assert!(self.attempts.iter().all(|r| r.task_id() != name));
                    self.tasks.remove(index);
                }
                ResourceKind::Attempt => {
                    let (task, number) = name.split_once('/').unwrap();
                    let number: u32 = number.parse().unwrap();
                    self.attempts
                        .retain(|r| !(r.task_id() == task && r.attempt() == number));
                }
                _ => {
                    // What an owner owned went first, or stays through a release.
                    let index = self.owners.iter().position(|o| o.name() == name).unwrap();
                    assert_eq!(self.owners[index].uid(), *uid);
                    self.owners.remove(index);
                }
            }
            done.push((name.clone(), *reason));
        }
        done
    }

    /// Collects at `now` with the default policy and deletes what it says; returns the
    /// deletions and the next expiry.
    fn collect(
        &mut self,
        now: DateTime<Utc>,
    ) -> (Vec<(String, DeleteReason)>, Option<DateTime<Utc>>) {
        let view = self.view();
        let collection = collect(now, &view);
        assert!(
            collection.releases().is_empty(),
            "{:?}",
            collection.releases()
        );
        let deletions = deletions(&collection);
        let next = collection.next_expiry();
        (self.delete(&deletions), next)
    }
}

/// A collection's deletions as owned values, so the store can change while it writes them.
fn deletions(
    collection: &Collection<'_>,
) -> Vec<(ResourceKind, String, Option<Uid>, DeleteReason)> {
    collection
        .deletions()
        .iter()
        .map(|d| {
            let r = d.resource();
            (r.kind(), r.name().to_owned(), r.uid(), d.reason())
        })
        .collect()
}

fn names(list: &[(&str, DeleteReason)]) -> Vec<(String, DeleteReason)> {
    list.iter().map(|(n, r)| ((*n).to_owned(), *r)).collect()
}

#[test]
fn a_flows_tasks_go_after_the_flow_finished_attempts_first_then_tasks_then_the_flow() {
    use DeleteReason::{Expired, OwnerDeleted};
    let mut store = Store::default();
    let flow = store.owner(ResourceKind::Flow, "etl");
    // extract is kept ten minutes after it finishes; load a day (its kind's default).
    store.task("etl.extract", &flow, Some(10 * 60_000), at(0));
    store.task("etl.load", &flow, None, at(0));
    store.attempt(
        "etl.extract",
        Some(AttemptOutcome::Succeeded),
        at(1),
        at(10),
    );
    store.attempt("etl.load", Some(AttemptOutcome::Succeeded), at(11), at(30));
    assert!(store.tasks.iter().all(|t| t.phase().is_final()));

    // extract's time ran out at 00:20, but the flow is still running and holds its tasks.
    let (deleted, _) = store.collect(at(40));
    assert!(deleted.is_empty(), "{deleted:?}");

    // The flow finishes at 00:45: extract goes at once, its attempt first.
    store.finish_owner("etl", at(45));
    let (deleted, next) = store.collect(at(45));
    assert_eq!(
        deleted,
        names(&[("etl.extract/1", OwnerDeleted), ("etl.extract", Expired)])
    );
    // load's day runs out at 00:30 tomorrow; a millisecond before, nothing goes.
    assert_eq!(next, Some(at(DAY + 30)));
    let (deleted, _) = store.collect(at(DAY + 30) - TimeDelta::milliseconds(1));
    assert!(deleted.is_empty(), "{deleted:?}");
    let (deleted, next) = store.collect(at(DAY + 30));
    assert_eq!(
        deleted,
        names(&[("etl.load/1", OwnerDeleted), ("etl.load", Expired)])
    );

    // Then the flow itself, a day after it finished, with nothing left under it.
    assert_eq!(next, Some(at(DAY + 45)));
    let (deleted, next) = store.collect(at(DAY + 45));
    assert_eq!(deleted, names(&[("etl", Expired)]));
    assert_eq!(next, None);
    assert!(store.owners.is_empty() && store.tasks.is_empty() && store.attempts.is_empty());
}

#[test]
fn one_collection_deletes_in_cleanup_order_and_never_an_owner_before_what_it_owns() {
    let mut store = Store::default();
    let flow = store.owner(ResourceKind::Flow, "etl");
    for (n, name) in ["etl.a", "etl.b", "etl.c"].into_iter().enumerate() {
        let n = n as i64;
        store.task(name, &flow, Some(0), at(0));
        store.attempt(name, Some(AttemptOutcome::Failed), at(n), at(n + 1));
    }
    store.finish_owner("etl", at(10));
    let view = store.view();
    let collection = collect(at(DAY + 10), &view);
    let kinds: Vec<ResourceKind> = collection
        .deletions()
        .iter()
        .map(|d| d.resource().kind())
        .collect();
    use ResourceKind::{Attempt, Flow, Task};
    assert_eq!(kinds, [Attempt, Attempt, Attempt, Task, Task, Task, Flow]);
    // Each attempt comes before its task.
    let position = |name: &str| {
        collection
            .deletions()
            .iter()
            .position(|d| d.resource().name() == name)
            .unwrap()
    };
    for task in ["etl.a", "etl.b", "etl.c"] {
        assert!(position(&format!("{task}/1")) < position(task), "{task}");
    }
    let deletions = deletions(&collection);
    assert_eq!(store.delete(&deletions).len(), 7);
}

#[test]
fn a_deletion_is_guarded_by_the_uid_it_was_decided_for() {
    let mut store = Store::default();
    let flow = store.owner(ResourceKind::Flow, "etl");
    store.task("etl.load", &flow, Some(0), at(0));
    store.attempt("etl.load", Some(AttemptOutcome::Succeeded), at(1), at(2));
    store.finish_owner("etl", at(3));
    let view = store.view();
    let collection = collect(at(3), &view);
    let task = collection
        .deletions()
        .iter()
        .find(|d| d.resource().kind() == ResourceKind::Task)
        .unwrap();
    let decided = Precondition::from(task.resource().uid().unwrap());

    // Before the store writes it, the task and its attempt are deleted by hand, and the
    // task is created again under its name.
    store.tasks.clear();
    store.attempts.clear();
    store.task("etl.load", &flow, Some(0), at(4));
    let err = Error::from(store.tasks[0].metadata().check(&decided).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Gone);
    // Collecting again from fresh rows keeps the new one: it has not finished.
    let (deleted, _) = store.collect(at(5));
    assert!(
        deleted.iter().all(|(name, _)| name != "etl.load"),
        "{deleted:?}"
    );
}

#[test]
fn a_schedule_keeps_cronjobs_history_and_cascades_in_the_background() {
    use AttemptOutcome::{Failed, Succeeded};
    use DeleteReason::{HistoryLimit, OwnerDeleted, OwnerGone};
    let mut store = Store::default();
    let schedule = store.owner(ResourceKind::Schedule, "nightly");
    // Seven nightly runs, kept thirty days each; the seventh is still running.
    let outcomes = [Succeeded, Failed, Succeeded, Succeeded, Failed, Succeeded];
    for night in 1..=7_i64 {
        let name = format!("nightly.{night}");
        let start = at(night * DAY + 120);
        store.task(&name, &schedule, Some(30 * 24 * HOUR_MS), start);
        let outcome = outcomes.get(night as usize - 1).copied();
        store.attempt(&name, outcome, start, start + TimeDelta::minutes(5));
    }

    // CronJob's history: the newest three succeeded (6, 4, 3) and the newest failed (5)
    // stay; 1 and 2 go, each after its attempt.
    let (deleted, _) = store.collect(at(7 * DAY + 130));
    assert_eq!(
        deleted,
        names(&[
            ("nightly.1/1", OwnerDeleted),
            ("nightly.2/1", OwnerDeleted),
            ("nightly.1", HistoryLimit),
            ("nightly.2", HistoryLimit),
        ])
    );

    // The schedule is deleted (a time to live of zero once it ended, background cascade):
    // it goes at once with every finished task; the running one stays.
    store.finish_owner("nightly", at(7 * DAY + 140));
    let policy: RetentionPolicy = serde_json::from_str(
        r#"{"rules": {"schedule": {"cleanupPriority": 10, "ttlAfterFinishedMs": 0, "cascade": "background"}}}"#,
    )
    .unwrap();
    let view = store.view();
    let collection = collect_with(&policy, at(7 * DAY + 140), &view);
    let deletions = deletions(&collection);
    let deleted = store.delete(&deletions);
    let tasks: Vec<&str> = deleted
        .iter()
        .filter(|(name, _)| !name.contains('/'))
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        tasks,
        [
            "nightly.3",
            "nightly.4",
            "nightly.5",
            "nightly.6",
            "nightly"
        ]
    );
    assert!(deleted.iter().all(|(_, reason)| *reason != HistoryLimit));
    assert_eq!(store.tasks.len(), 1);

    // When the last night finishes, its owner is gone: it goes with its attempt.
    store.end("nightly.7", Succeeded, at(7 * DAY + 150));
    let (deleted, _) = store.collect(at(7 * DAY + 150));
    assert_eq!(
        deleted,
        names(&[("nightly.7/1", OwnerDeleted), ("nightly.7", OwnerGone)])
    );
}

#[test]
fn an_orphaning_flow_goes_alone_and_its_tasks_lose_the_reference() {
    let mut store = Store::default();
    let flow = store.owner(ResourceKind::Flow, "etl");
    store.owners[0] = OwnedResource::builder(ResourceKind::Flow, acme(), "etl", Lifecycle::Draft)
        .uid(flow.uid())
        .cascade(CascadePolicy::Orphan)
        .build()
        .unwrap();
    store.task("etl.load", &flow, Some(7 * 24 * HOUR_MS), at(0));
    store.attempt("etl.load", Some(AttemptOutcome::Succeeded), at(1), at(2));
    store.finish_owner("etl", at(3));

    let view = store.view();
    let collection = collect(at(DAY + 3), &view);
    let deleted: Vec<(&str, DeleteReason)> = collection
        .deletions()
        .iter()
        .map(|d| (d.resource().name(), d.reason()))
        .collect();
    assert_eq!(deleted, [("etl", DeleteReason::Expired)]);
    let released: Vec<(&str, &str, ReleaseReason)> = collection
        .releases()
        .iter()
        .map(|r| (r.resource().name(), r.owner().name(), r.reason()))
        .collect();
    assert_eq!(released, [("etl.load", "etl", ReleaseReason::Orphaned)]);
    // The task keeps its own time to live: a week after it finished.
    assert_eq!(collection.next_expiry(), Some(at(7 * DAY + 2)));
}

/// A flow named `name` of one job, `load`, keeping its finished run `ttl_ms` if given.
fn flow_spec(name: &str, ttl_ms: Option<u64>) -> FlowSpec {
    let ttl = ttl_ms.map_or(String::new(), |ms| {
        format!(r#""ttlAfterFinishedMs": {ms},"#)
    });
    serde_json::from_str(&format!(
        r#"{{"name": "{name}", {ttl} "jobs": [{{"name": "load",
            "spec": {{"slot": "etl", "kind": {{"type": "wasm", "module": "load.wasm"}}, "timeoutMs": 60000}}}}]}}"#
    ))
    .unwrap()
}

#[test]
fn a_flow_is_kept_for_its_own_time_to_live_and_one_without_for_its_kinds() {
    use DeleteReason::{Expired, OwnerDeleted};
    let mut store = Store::default();
    // etl keeps its finished run two hours; plain says nothing, so the policy's day applies.
    let etl = flow_spec("etl", Some(2 * HOUR_MS));
    let plain = flow_spec("plain", None);
    let (etl_uid, plain_uid) = (store.uid(), store.uid());
    let mut etl_run = FlowRun::new(&etl);
    let mut plain_run = FlowRun::new(&plain);
    let owner =
        store.adopt(OwnedResource::from_flow(&etl, &etl_run, acme(), etl_uid, None).unwrap());
    store.adopt(OwnedResource::from_flow(&plain, &plain_run, acme(), plain_uid, None).unwrap());

    // etl's job runs as the task etl.load, kept ten minutes after it finishes.
    store.task("etl.load", &owner, Some(10 * 60_000), at(0));
    etl_run.start("load").unwrap();
    store.attempt("etl.load", Some(AttemptOutcome::Succeeded), at(1), at(10));
    let done = RestartDecision::Final(TaskPhase::Succeeded);
    etl_run.end_attempt("load", done, None).unwrap();
    plain_run.start("load").unwrap();
    plain_run.end_attempt("load", done, None).unwrap();
    // Both runs are done at 00:10; the store records when, and sees the flows again.
    for (spec, run, uid) in [(&etl, &etl_run, etl_uid), (&plain, &plain_run, plain_uid)] {
        let view = OwnedResource::from_flow(spec, run, acme(), uid, Some(at(10))).unwrap();
        assert_eq!(
            view.lifecycle(),
            Lifecycle::sealed(at(10), Outcome::Succeeded)
        );
        store.replace(view);
    }

    // The task's ten minutes run out first; then etl's own two hours, not a day.
    let (deleted, next) = store.collect(at(20));
    assert_eq!(
        deleted,
        names(&[("etl.load/1", OwnerDeleted), ("etl.load", Expired)])
    );
    assert_eq!(next, Some(at(130)));
    let (deleted, _) = store.collect(at(130) - TimeDelta::milliseconds(1));
    assert!(deleted.is_empty(), "{deleted:?}");
    let (deleted, next) = store.collect(at(130));
    assert_eq!(deleted, names(&[("etl", Expired)]));

    // plain keeps the policy's day.
    assert_eq!(next, Some(at(DAY + 10)));
    let (deleted, next) = store.collect(at(DAY + 10));
    assert_eq!(deleted, names(&[("plain", Expired)]));
    assert_eq!(next, None);
}

#[test]
fn a_schedule_keeps_its_own_history_limits_over_cronjobs() {
    use AttemptOutcome::{Failed, Succeeded};
    use DeleteReason::{HistoryLimit, OwnerDeleted};
    let mut store = Store::default();
    // One succeeded run kept and two failed, where CronJob's defaults keep three and one.
    let schedule: Schedule = serde_json::from_str(
        r#"{"name": "nightly", "trigger": {"cron": "0 2 * * *"},
            "successfulHistoryLimit": 1, "failedHistoryLimit": 2,
            "spec": {"slot": "etl", "kind": {"type": "wasm", "module": "job.wasm"}, "timeoutMs": 60000}}"#,
    )
    .unwrap();
    let uid = store.uid();
    let owner = store.adopt(OwnedResource::from_schedule(&schedule, acme(), uid, None).unwrap());
    let outcomes = [Succeeded, Failed, Succeeded, Failed, Failed, Succeeded];
    for (night, outcome) in (1..).zip(outcomes) {
        let name = format!("nightly.{night}");
        let start = at(night * DAY + 120);
        store.task(&name, &owner, Some(30 * 24 * HOUR_MS), start);
        store.attempt(&name, Some(outcome), start, start + TimeDelta::minutes(5));
    }

    // Succeeded 6 stays (1 and 3 go); failed 5 and 4 stay (2 goes). Under CronJob's
    // defaults 1, 3 and 6 would all stay, and 2 and 4 go.
    let (deleted, _) = store.collect(at(7 * DAY));
    assert_eq!(
        deleted,
        names(&[
            ("nightly.1/1", OwnerDeleted),
            ("nightly.2/1", OwnerDeleted),
            ("nightly.3/1", OwnerDeleted),
            ("nightly.1", HistoryLimit),
            ("nightly.2", HistoryLimit),
            ("nightly.3", HistoryLimit),
        ])
    );
    let kept: Vec<&str> = store.tasks.iter().map(|t| t.id().as_str()).collect();
    assert_eq!(kept, ["nightly.4", "nightly.5", "nightly.6"]);
}
