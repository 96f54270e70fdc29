//! Paging laws: every matching task exactly once and in order, and keyset stability while
//! tasks are added and removed between pages.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Row, queries, reference, rows, strictly_ordered};
use model_query::{MAX_LIMIT, TaskQuery};
use proptest::prelude::*;

/// Pages through `rows` with `query`, returning the pages.
fn all_pages(query: &TaskQuery, rows: &[Row]) -> Vec<Vec<Row>> {
    let mut query = query.clone();
    let mut pages = Vec::new();
    for _ in 0..=rows.len() + 1 {
        let page = query.evaluate(rows.iter().cloned());
        let next = page.next.clone();
        pages.push(page.items);
        match next {
            Some(token) => query = query.with_continue(token).unwrap(),
            None => return pages,
        }
    }
    panic!("paging did not end after {} pages", pages.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_match_exactly_once_in_order(rows in rows(0, 60), query in queries()) {
        let pages = all_pages(&query, &rows);
        let limit = query.limit() as usize;
        for (i, page) in pages.iter().enumerate() {
            prop_assert!(page.len() <= limit);
            // Every page but the last is full (a next token only when more follow).
            if i + 1 < pages.len() {
                prop_assert_eq!(page.len(), limit);
            }
        }
        let listed: Vec<Row> = pages.concat();
        prop_assert_eq!(listed, reference(&query, &rows));
    }

    #[test]
    fn evaluating_references_gives_the_same_page(rows in rows(0, 40), query in queries()) {
        let owned = query.evaluate(rows.iter().cloned());
        let borrowed = query.evaluate(&rows);
        prop_assert_eq!(owned.items.iter().collect::<Vec<_>>(), borrowed.items);
        prop_assert_eq!(owned.next, borrowed.next);
    }

    #[test]
    fn limit_may_change_between_pages(
        rows in rows(0, 60),
        query in queries(),
        limits in prop::collection::vec(1u32..6, 1..40),
    ) {
        let mut q = query.clone();
        let mut listed = Vec::new();
        let mut limits = limits.into_iter().cycle();
        loop {
            let page = q.evaluate(&rows);
            listed.extend(page.items.into_iter().cloned());
            let Some(token) = page.next else { break };
            q = q.with_continue(token).unwrap().with_limit(limits.next().unwrap()).unwrap();
        }
        prop_assert_eq!(listed, reference(&query, &rows));
    }

    #[test]
    fn keyset_stability_under_inserts_and_removals(
        initial in rows(0, 50),
        query in queries(),
        // Per page boundary: which current rows to remove, and rows to insert (fresh ids).
        steps in prop::collection::vec(
            (prop::collection::vec(any::<prop::sample::Index>(), 0..4), rows(0, 4)),
            0..30,
        ),
    ) {
        let mut live: BTreeMap<String, Row> =
            initial.iter().map(|r| (r.id.to_string(), r.clone())).collect();
        let mut removed: BTreeSet<String> = BTreeSet::new();
        let mut next_id = 10_000u32;
        let mut steps = steps.into_iter();
        let mut q = query.clone();
        let mut listed: Vec<Row> = Vec::new();
        for _ in 0..1000 {
            let current: Vec<Row> = live.values().cloned().collect();
            let page = q.evaluate(current);
            listed.extend(page.items);
            let Some(token) = page.next else { break };
            q = q.with_continue(token).unwrap();
            if let Some((removals, inserts)) = steps.next() {
                for index in removals {
                    if live.is_empty() { break; }
                    let key = live.keys().nth(index.index(live.len())).unwrap().clone();
                    live.remove(&key);
                    removed.insert(key);
                }
                for mut r in inserts {
                    r.id = model_ids::TaskId::new(format!("n{next_id}")).unwrap();
                    next_id += 1;
                    live.insert(r.id.to_string(), r);
                }
            }
        }
        // In order and without repeats.
        prop_assert!(strictly_ordered(query.order(), &listed));
        // Every task that existed for the whole listing and matches appears exactly once.
        let stable: Vec<Row> = reference(&query, &initial)
            .into_iter()
            .filter(|r| !removed.contains(r.id.as_str()))
            .collect();
        for r in &stable {
            prop_assert_eq!(listed.iter().filter(|l| l.id == r.id).count(), 1, "{}", r.id);
        }
    }
}

#[test]
fn max_limit_page() {
    let rows: Vec<Row> = (0..MAX_LIMIT + 5)
        .map(|n| {
            common::row(
                n,
                i64::from(n % 13),
                "a",
                model_task::TaskPhase::Running,
                "eu",
            )
        })
        .collect();
    let query = TaskQuery::builder(common::tenant())
        .limit(MAX_LIMIT)
        .build()
        .unwrap();
    let first = query.evaluate(&rows);
    assert_eq!(first.items.len(), MAX_LIMIT as usize);
    let second = query
        .with_continue(first.next.unwrap())
        .unwrap()
        .evaluate(&rows);
    assert_eq!(second.items.len(), 5);
    assert!(second.next.is_none());
}

#[test]
fn empty_input_is_one_empty_last_page() {
    let query = TaskQuery::builder(common::tenant()).build().unwrap();
    let page = query.evaluate(Vec::<Row>::new());
    assert!(page.items.is_empty());
    assert!(page.next.is_none());
}
