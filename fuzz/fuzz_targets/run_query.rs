//! A run-history query from URL query pairs and from JSON, paged over fixed attempts.
//!
//! Input: a first byte choosing the reader, then `name=value` pairs separated by `&` or a
//! JSON document. A query that parses must round-trip through `to_pairs` and JSON, and its
//! pages (following each `next` token) must list exactly its task's matching attempts
//! after its cursor, in order, each once. A task listing never accepts its tokens.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use taskmodel::query::{QueryableRun, SortOrder, TaskQuery, TaskRunQuery};
use taskmodel::task::AttemptState;
use taskmodel::{RunnerId, TaskId};

/// A run as the query reads it.
#[derive(Debug, Clone, PartialEq)]
struct Run(TaskId, u32, AttemptState, RunnerId);

impl QueryableRun for Run {
    fn task_id(&self) -> &TaskId {
        &self.0
    }
    fn attempt(&self) -> u32 {
        self.1
    }
    fn state(&self) -> AttemptState {
        self.2
    }
    fn runner(&self) -> &RunnerId {
        &self.3
    }
}

/// 30 attempts of tasks `a` and `b` on three runners, in scrambled order.
static RUNS: LazyLock<Vec<Run>> = LazyLock::new(|| {
    (0..30_u32)
        .map(|i| {
            let n = (i * 7) % 30;
            Run(
                TaskId::new(if n % 3 == 0 { "b" } else { "a" }).expect("id"),
                n / 2 + 1 + (n % 2) * 100,
                AttemptState::ALL[(n % 8) as usize],
                RunnerId::new(["r1", "r2", "r3"][(n % 3) as usize]).expect("id"),
            )
        })
        .collect()
});

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let parsed = if selector % 2 == 0 {
        let pairs: Vec<(&str, &str)> = text
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .collect();
        TaskRunQuery::from_pairs(pairs).ok()
    } else {
        serde_json::from_str::<TaskRunQuery>(text).ok()
    };
    let Some(query) = parsed else {
        return;
    };
    let pairs = query.to_pairs();
    let back = TaskRunQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .unwrap_or_else(|err| panic!("{pairs:?} does not parse back: {err}"));
    assert_eq!(back, query);
    let json = serde_json::to_string(&query).expect("a query serializes");
    let again: TaskRunQuery = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
    assert_eq!(again, query);

    let mut expected: Vec<&Run> = RUNS
        .iter()
        .filter(|run| query.matches(*run))
        .filter(|run| {
            query.after().is_none_or(|after| match query.order() {
                SortOrder::Descending => run.1 < after,
                _ => run.1 > after,
            })
        })
        .collect();
    expected.sort_by_key(|run| run.1);
    if query.order() == SortOrder::Descending {
        expected.reverse();
    }
    let mut listed = Vec::new();
    let mut page_query = query.clone();
    for _ in 0..=RUNS.len() {
        let page = page_query.evaluate(RUNS.iter());
        assert!(page.items.len() <= page_query.limit() as usize);
        listed.extend(page.items);
        let Some(token) = page.next else {
            break;
        };
        assert!(TaskQuery::from_pairs([("tenant", "t"), ("continue", token.as_str())]).is_err());
        page_query = page_query.with_continue(token).expect("its own token");
    }
    assert_eq!(listed, expected);
});
