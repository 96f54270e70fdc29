//! The query over real `Task` values built through model-task's public API: filters read
//! the task's metadata, spec and status, a query lists only its tenant's tasks, and paging
//! lists every match once, in order.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_query::{QueryError, SortOrder, TaskPage, TaskQuery};
use model_selector::Labels;
use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskPhase, TaskSpec};
use proptest::prelude::*;

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

/// A task of the tenant "team-a" (see [`task_of`]).
fn task(n: u32, created: i64, slot: &str, zone: &str, phase: TaskPhase, later: i64) -> Task {
    task_of("team-a", n, created, slot, zone, phase, later)
}

/// A task of `tenant` created at `created`, in `slot` with `zone`, moved to `phase`
/// (Pending, Running or Canceled) `later` seconds after creation.
fn task_of(
    tenant: &str,
    n: u32,
    created: i64,
    slot: &str,
    zone: &str,
    phase: TaskPhase,
    later: i64,
) -> Task {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let spec = TaskSpec::builder(slot, kind, 1_000)
        .labels(Labels::from_pairs([("zone", zone)]).unwrap())
        .build()
        .unwrap();
    let manifest = TaskManifest::named(TaskId::new(format!("task-{n}")).unwrap(), spec);
    let tenant = TenantId::new(tenant).unwrap();
    let mut task = Task::create(manifest, tenant, Uid::from_u128(n.into()), at(created)).unwrap();
    let then = at(created) + TimeDelta::seconds(later);
    match phase {
        TaskPhase::Running => {
            task.begin_attempt(None, then).unwrap();
        }
        TaskPhase::Canceled => task.cancel(None, then).unwrap(),
        _ => {}
    }
    task
}

fn tasks() -> impl Strategy<Value = Vec<Task>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["team-a", "team-b"]),
            0i64..30,
            prop::sample::select(vec!["a", "b"]),
            prop::sample::select(vec!["eu", "us"]),
            prop::sample::select(vec![
                TaskPhase::Pending,
                TaskPhase::Running,
                TaskPhase::Canceled,
            ]),
            0i64..20,
        ),
        0..50,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(n, (tenant, t, slot, zone, phase, later))| {
                task_of(tenant, n as u32, t, slot, zone, phase, later)
            })
            .collect()
    })
}

#[test]
fn filters_read_metadata_spec_and_status() {
    let tasks = [
        task(1, 10, "a", "eu", TaskPhase::Running, 5),
        task(2, 11, "a", "us", TaskPhase::Running, 5),
        task(3, 12, "b", "eu", TaskPhase::Pending, 0),
        task(4, 13, "a", "eu", TaskPhase::Canceled, 50),
        // Passes every filter below but belongs to another tenant.
        task_of("team-b", 5, 12, "a", "eu", TaskPhase::Running, 5),
    ];
    let ids = |page: TaskPage<&Task>| -> Vec<String> {
        page.items.iter().map(|t| t.id().to_string()).collect()
    };
    let q = |pairs: &[(&str, &str)]| {
        TaskQuery::from_pairs(
            [("tenant", "team-a")]
                .into_iter()
                .chain(pairs.iter().copied()),
        )
        .unwrap()
    };
    assert_eq!(
        ids(q(&[]).evaluate(&tasks)),
        ["task-1", "task-2", "task-3", "task-4"]
    );
    let other = TaskQuery::builder(TenantId::new("team-b").unwrap())
        .build()
        .unwrap();
    assert_eq!(ids(other.evaluate(&tasks)), ["task-5"]);
    let none = TaskQuery::builder(TenantId::new("team-c").unwrap())
        .build()
        .unwrap();
    assert!(none.evaluate(&tasks).items.is_empty());
    assert_eq!(
        ids(q(&[("slot", "a")]).evaluate(&tasks)),
        ["task-1", "task-2", "task-4"]
    );
    assert_eq!(
        ids(q(&[("phase", "running")]).evaluate(&tasks)),
        ["task-1", "task-2"]
    );
    assert_eq!(
        ids(q(&[("labelSelector", "zone=eu"), ("order", "desc")]).evaluate(&tasks)),
        ["task-4", "task-3", "task-1"]
    );
    assert_eq!(
        ids(q(&[
            ("createdSince", "1970-01-01T00:00:11Z"),
            ("createdBefore", "1970-01-01T00:00:13Z")
        ])
        .evaluate(&tasks)),
        ["task-2", "task-3"]
    );
    assert_eq!(
        ids(q(&[("updatedSince", "1970-01-01T00:00:16Z")]).evaluate(&tasks)),
        ["task-2", "task-4"]
    );
    assert!(
        q(&[("phase", "succeeded")])
            .evaluate(&tasks)
            .items
            .is_empty()
    );
}

proptest! {
    #[test]
    fn paging_real_tasks_lists_every_match_once_in_order(
        tasks in tasks(),
        slot in prop::option::of(prop::sample::select(vec!["a", "b"])),
        phase in prop::option::of(prop::sample::select(vec!["pending", "running", "canceled"])),
        zone in prop::option::of(prop::sample::select(vec!["zone=eu", "zone!=eu"])),
        desc in any::<bool>(),
        limit in 1u32..7,
        tenant in prop::sample::select(vec!["team-a", "team-b"]),
    ) {
        let mut pairs = vec![("tenant", tenant.to_owned()), ("limit", limit.to_string()), ("order", (if desc { "desc" } else { "asc" }).to_owned())];
        pairs.extend(slot.map(|s| ("slot", s.to_owned())));
        pairs.extend(phase.map(|p| ("phase", p.to_owned())));
        pairs.extend(zone.map(|z| ("labelSelector", z.to_owned())));
        let mut query = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();

        // The reference: filter by hand from the task's own accessors, sort everything.
        let mut expected: Vec<&Task> = tasks
            .iter()
            .filter(|t| t.metadata().tenant().as_str() == tenant)
            .filter(|t| slot.is_none_or(|s| t.spec().slot() == s))
            .filter(|t| phase.is_none_or(|p| t.phase().to_string() == p))
            .filter(|t| zone.is_none_or(|z| {
                let eu = t.spec().labels().get("zone") == Some("eu");
                if z == "zone=eu" { eu } else { !eu }
            }))
            .collect();
        expected.sort_by_key(|t| (t.metadata().created_at(), t.id().clone()));
        if desc {
            expected.reverse();
        }

        let mut listed: Vec<&Task> = Vec::new();
        loop {
            let page = query.evaluate(&tasks);
            prop_assert!(page.items.len() <= limit as usize);
            listed.extend(page.items);
            match page.next {
                Some(token) => query = query.with_continue(token).unwrap(),
                None => break,
            }
        }
        prop_assert_eq!(listed, expected);
        prop_assert_eq!(query.order(), if desc { SortOrder::Descending } else { SortOrder::Ascending });
    }
}

#[test]
fn a_page_of_tasks_serializes_its_token() {
    let tasks: Vec<Task> = (0..5)
        .map(|n| task(n, i64::from(n), "a", "eu", TaskPhase::Pending, 0))
        .collect();
    let page = TaskQuery::builder(TenantId::new("team-a").unwrap())
        .limit(2)
        .build()
        .unwrap()
        .evaluate(tasks.clone());
    let token = page.next.unwrap();
    let pairs = |extra: (&'static str, &'static str), tenant| {
        [("tenant", tenant), ("continue", token.as_str()), extra]
    };
    let err = TaskQuery::from_pairs(pairs(("slot", "b"), "team-a")).unwrap_err();
    assert!(matches!(err, QueryError::TokenQueryMismatch { .. }));
    // The token of one tenant's listing is refused by the same query of another tenant.
    let err = TaskQuery::from_pairs(pairs(("limit", "2"), "team-b")).unwrap_err();
    assert!(matches!(err, QueryError::TokenQueryMismatch { .. }));
    let rest = TaskQuery::from_pairs(pairs(("limit", "10"), "team-a")).unwrap();
    let page = rest.evaluate(tasks);
    assert_eq!(page.items.len(), 3);
    assert_eq!(page.items[0].id().as_str(), "task-2");
}
