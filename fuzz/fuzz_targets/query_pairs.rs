//! A task query from URL query pairs, then paged over a fixed set of tasks.
//!
//! Input: `name=value` pairs separated by `&` (already decoded; a pair without `=` has an
//! empty value); without a `tenant` pair, `tenant=fuzz` is read first, so inputs reach the
//! filters (a query without a tenant is refused before any of them). A query that parses must round-trip through `to_pairs` and JSON, and its
//! pages (following each `next` token) must list exactly the matching tasks after its
//! cursor, in order, each once.
#![no_main]

mod common;

use std::sync::LazyLock;

use chrono::{DateTime, TimeDelta, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::{TaskId, TenantId, Uid};
use taskmodel::query::{Queryable, SortKey, TaskQuery};
use taskmodel::selector::Labels;
use taskmodel::task::{Task, TaskKind, TaskManifest, TaskSpec};

/// 40 tasks in two tenants and two slots, with creation-time ties, a few labels and several
/// phases.
static TASKS: LazyLock<Vec<Task>> = LazyLock::new(|| {
    let t0 = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).expect("in range");
    (0..40_i64)
        .map(|i| {
            let labels = Labels::from_pairs([
                ("zone", if i % 2 == 0 { "eu" } else { "us" }),
                ("tier", ["0", "1", "2"][(i % 3) as usize]),
            ])
            .expect("valid labels");
            let slot = if i % 7 < 4 { "a" } else { "b" };
            let spec = TaskSpec::builder(slot, TaskKind::Embedded, 1_000)
                .labels(labels)
                .build()
                .expect("valid spec");
            let created = t0 + TimeDelta::milliseconds(i / 3 * 500);
            let manifest = TaskManifest::named(TaskId::new(format!("t{}", 97 - i)).expect("id"), spec);
            let tenant = TenantId::new(if i % 6 == 5 { "other" } else { "fuzz" }).expect("tenant");
            let uid = Uid::from_u128(u128::try_from(i).expect("positive"));
            let mut task = Task::create(manifest, tenant, uid, created).expect("created");
            if i % 4 == 0 {
                task.begin_attempt(None, created).expect("starts");
            }
            if i % 5 == 0 {
                let _ = task.cancel(None, created);
            }
            task
        })
        .collect()
});

fn key(task: &Task) -> SortKey {
    SortKey::new(Queryable::created_at(task), Queryable::id(task).clone())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut pairs: Vec<(&str, &str)> = text
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    if !pairs.iter().any(|(name, _)| *name == "tenant") {
        pairs.insert(0, ("tenant", "fuzz"));
    }
    let Ok(query) = TaskQuery::from_pairs(pairs.iter().copied()) else {
        return;
    };

    let written = query.to_pairs();
    let back = TaskQuery::from_pairs(written.iter().map(|(k, v)| (*k, v.as_str())))
        .unwrap_or_else(|err| panic!("to_pairs {written:?} does not parse back: {err}"));
    assert_eq!(back, query, "to_pairs round trip differs: {written:?}");
    assert_eq!(back.to_pairs(), written, "to_pairs is not a fixpoint");

    let json = serde_json::to_string(&query).expect("a query serializes");
    let from_json: TaskQuery = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(from_json, query, "JSON round trip differs: {json}");

    if let Some(selector) = query.label_selector() {
        common::check_selector(selector);
    }

    // The reference answer: every matching task after the cursor, in order.
    let mut expected: Vec<&Task> = TASKS.iter().filter(|t| query.matches(*t)).collect();
    expected.sort_by(|a, b| query.order().compare(&key(a), &key(b)));
    if let Some(after) = query.after() {
        expected.retain(|t| query.order().compare(&key(t), after).is_gt());
    }
    let mut listed: Vec<&Task> = Vec::new();
    let mut page_query = query.clone();
    for _ in 0..=TASKS.len() {
        let page = page_query.evaluate(TASKS.iter());
        assert!(
            page.items.len() <= query.limit() as usize,
            "page longer than the limit"
        );
        listed.extend(page.items.iter().copied());
        match page.next {
            Some(token) => {
                let parsed = token.as_str().parse().expect("an issued token parses");
                assert_eq!(token, parsed);
                page_query = page_query
                    .with_continue(token)
                    .unwrap_or_else(|err| panic!("the query refuses its own token: {err}"));
            }
            None => break,
        }
    }
    let ids = |tasks: &[&Task]| tasks.iter().map(|t| t.id().to_string()).collect::<Vec<_>>();
    assert_eq!(
        ids(&listed),
        ids(&expected),
        "pages differ from the reference"
    );
});
