//! Run-history pages through the public API: every matching attempt exactly once and in
//! order against a reference written from the documented semantics, keyset stability while
//! attempts are added, the three ways in agreeing, and tokens bound to their query and
//! listing.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

use model_ids::{RunnerId, TaskId, TenantId};
use model_query::{
    ContinueToken, MAX_LIMIT, MAX_RUN_QUERY_PAIRS, MAX_STATES, QueryError, QueryableRun,
    RunContinueToken, SortKey, SortOrder, TaskQuery, TaskRunQuery,
};
use model_task::AttemptState;
use proptest::prelude::*;

/// An attempt as the query sees it.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    task: TaskId,
    attempt: u32,
    state: AttemptState,
    runner: RunnerId,
}

impl QueryableRun for Run {
    fn task_id(&self) -> &TaskId {
        &self.task
    }
    fn attempt(&self) -> u32 {
        self.attempt
    }
    fn state(&self) -> AttemptState {
        self.state
    }
    fn runner(&self) -> &RunnerId {
        &self.runner
    }
}

fn tenant() -> TenantId {
    TenantId::new("team-a").unwrap()
}

fn task(name: &str) -> TaskId {
    TaskId::new(name).unwrap()
}

/// Runs of tasks `a` and `b`, attempt numbers unique per task, in shuffled order.
fn runs(max: usize) -> impl Strategy<Value = Vec<Run>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["a", "b"]),
            1u32..200,
            prop::sample::select(AttemptState::ALL.to_vec()),
            prop::sample::select(vec!["r1", "r2", "r3"]),
        ),
        0..max,
    )
    .prop_map(|raw| {
        let mut seen = std::collections::BTreeSet::new();
        raw.into_iter()
            .filter(|(t, n, _, _)| seen.insert((*t, *n)))
            .map(|(t, n, state, runner)| Run {
                task: task(t),
                attempt: n,
                state,
                runner: RunnerId::new(runner).unwrap(),
            })
            .collect()
    })
    .prop_shuffle()
}

fn queries() -> impl Strategy<Value = TaskRunQuery> {
    (
        prop::sample::subsequence(AttemptState::ALL.to_vec(), 0..4),
        prop::option::of(prop::sample::select(vec!["r1", "r2"])),
        any::<bool>(),
        1u32..7,
    )
        .prop_map(|(states, runner, desc, limit)| {
            let mut b = TaskRunQuery::builder(tenant(), task("a"))
                .states(states)
                .order(if desc {
                    SortOrder::Descending
                } else {
                    SortOrder::Ascending
                })
                .limit(limit);
            if let Some(runner) = runner {
                b = b.runner(RunnerId::new(runner).unwrap());
            }
            b.build().unwrap()
        })
}

/// The reference: filter by the documented semantics, sort everything.
fn reference(query: &TaskRunQuery, runs: &[Run]) -> Vec<Run> {
    let mut all: Vec<Run> = runs
        .iter()
        .filter(|r| &r.task == query.task())
        .filter(|r| query.states().is_empty() || query.states().contains(&r.state))
        .filter(|r| query.runner().is_none_or(|runner| *runner == r.runner))
        .cloned()
        .collect();
    all.sort_by_key(|r| r.attempt);
    if query.order() == SortOrder::Descending {
        all.reverse();
    }
    all
}

fn all_pages(query: &TaskRunQuery, runs: &[Run]) -> Vec<Vec<Run>> {
    let mut query = query.clone();
    let mut pages = Vec::new();
    for _ in 0..=runs.len() + 1 {
        let page = query.evaluate(runs.iter().cloned());
        pages.push(page.items);
        match page.next {
            Some(token) => query = query.with_continue(token).unwrap(),
            None => return pages,
        }
    }
    panic!("paging did not end after {} pages", pages.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_matching_attempt_exactly_once_in_order(runs in runs(80), query in queries()) {
        let pages = all_pages(&query, &runs);
        let limit = query.limit() as usize;
        for (i, page) in pages.iter().enumerate() {
            prop_assert!(page.len() <= limit);
            if i + 1 < pages.len() {
                prop_assert_eq!(page.len(), limit);
            }
        }
        prop_assert_eq!(pages.concat(), reference(&query, &runs));
    }

    #[test]
    fn attempts_added_while_paging_do_not_disturb_the_listing(
        runs in runs(60),
        query in queries(),
        added in prop::collection::vec(prop::sample::select(AttemptState::ALL.to_vec()), 0..20),
    ) {
        let mut live = runs.clone();
        let mut next_attempt = 1_000;
        let mut q = query.clone();
        let mut listed = Vec::new();
        let mut added = added.into_iter();
        loop {
            let page = q.evaluate(&live);
            listed.extend(page.items.into_iter().cloned());
            let Some(token) = page.next else { break };
            q = q.with_continue(token).unwrap();
            // A new attempt starts between pages (a higher number, as attempts go).
            if let Some(state) = added.next() {
                live.push(Run {
                    task: task("a"),
                    attempt: next_attempt,
                    state,
                    runner: RunnerId::new("r1").unwrap(),
                });
                next_attempt += 1;
            }
        }
        let attempts: Vec<u32> = listed.iter().map(|r| r.attempt).collect();
        let mut sorted = attempts.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if query.order() == SortOrder::Descending {
            sorted.reverse();
        }
        prop_assert_eq!(&attempts, &sorted, "in order, each once");
        for run in reference(&query, &runs) {
            prop_assert!(attempts.contains(&run.attempt), "attempt {} missing", run.attempt);
        }
    }

    #[test]
    fn pairs_and_json_read_back_equal(query in queries(), attempt in 1u32..500, resume in any::<bool>()) {
        let query = if resume {
            query.with_continue(query.continue_after(attempt)).unwrap()
        } else {
            query
        };
        prop_assert_eq!(&TaskRunQuery::from_pairs(query.to_pairs()).unwrap(), &query);
        let json = serde_json::to_string(&query).unwrap();
        prop_assert_eq!(&serde_json::from_str::<TaskRunQuery>(&json).unwrap(), &query);
    }
}

#[test]
fn a_run_page_of_the_largest_limit() {
    let runs: Vec<Run> = (1..=MAX_LIMIT + 5)
        .map(|n| Run {
            task: task("a"),
            attempt: n,
            state: AttemptState::Failed,
            runner: RunnerId::new("r1").unwrap(),
        })
        .collect();
    let query = TaskRunQuery::builder(tenant(), task("a"))
        .limit(MAX_LIMIT)
        .build()
        .unwrap();
    let first = query.evaluate(&runs);
    assert_eq!(first.items.len(), MAX_LIMIT as usize);
    let token = first.next.unwrap();
    assert_eq!(token.after(), MAX_LIMIT);
    let second = query.with_continue(token).unwrap().evaluate(&runs);
    assert_eq!(
        second.items.iter().map(|r| r.attempt).collect::<Vec<_>>(),
        (MAX_LIMIT + 1..=MAX_LIMIT + 5).collect::<Vec<_>>()
    );
    assert!(second.next.is_none());
}

#[test]
fn tokens_are_bound_to_their_query_and_listing() {
    let query = |task_name: &str, tenant_name: &str| {
        TaskRunQuery::builder(TenantId::new(tenant_name).unwrap(), task(task_name))
            .build()
            .unwrap()
    };
    let a = query("a", "team-a");
    let token = a.continue_after(3);
    // Another task, another tenant, another filter or order: another query.
    for other in [
        query("b", "team-a"),
        query("a", "team-b"),
        a.to_builder().state(AttemptState::Failed).build().unwrap(),
        a.to_builder().order(SortOrder::Descending).build().unwrap(),
    ] {
        assert!(matches!(
            other.with_continue(token.clone()),
            Err(QueryError::TokenQueryMismatch { .. })
        ));
    }
    // The limit may change.
    assert!(
        a.with_limit(7)
            .unwrap()
            .with_continue(token.clone())
            .is_ok()
    );
    // A task listing's token is refused by a run query, and the reverse.
    let task_token: ContinueToken = TaskQuery::builder(tenant())
        .build()
        .unwrap()
        .continue_after(SortKey::new(chrono::DateTime::UNIX_EPOCH, task("a")));
    let err = TaskRunQuery::from_pairs([
        ("tenant", "team-a"),
        ("task", "a"),
        ("continue", task_token.as_str()),
    ])
    .unwrap_err();
    assert!(
        matches!(err, QueryError::TokenListingMismatch { .. }),
        "{err:?}"
    );
    assert_eq!(err.field(), Some("continue"));
    let err = TaskQuery::from_pairs([("continue", token.as_str())]).unwrap_err();
    assert!(
        matches!(err, QueryError::TokenListingMismatch { .. }),
        "{err:?}"
    );
    assert!(token.as_str().parse::<RunContinueToken>().is_ok());
}

#[test]
fn pair_errors_name_their_parameter() {
    let check = |pairs: &[(&str, &str)], field: Option<&str>, want: fn(&QueryError) -> bool| {
        let err = TaskRunQuery::from_pairs(pairs.iter().copied()).unwrap_err();
        assert!(want(&err), "{pairs:?}: {err:?}");
        assert_eq!(err.field(), field, "{pairs:?}");
    };
    let base = [("tenant", "team-a"), ("task", "a")];
    let with = |extra: &[(&'static str, &'static str)]| {
        base.iter().chain(extra).copied().collect::<Vec<_>>()
    };
    check(&[("task", "a")], Some("tenant"), |e| {
        matches!(e, QueryError::MissingParameter { .. })
    });
    check(&[("tenant", "team-a")], Some("task"), |e| {
        matches!(e, QueryError::MissingParameter { .. })
    });
    check(&with(&[("state", "sleeping")]), Some("state"), |e| {
        matches!(e, QueryError::InvalidValue { .. })
    });
    check(&with(&[("runner", "a b")]), Some("runner"), |e| {
        matches!(e, QueryError::InvalidId { .. })
    });
    check(&[("tenant", "a/b"), ("task", "a")], Some("tenant"), |e| {
        matches!(e, QueryError::InvalidId { .. })
    });
    check(&with(&[("task", "b")]), Some("task"), |e| {
        matches!(e, QueryError::DuplicateParameter { .. })
    });
    check(&with(&[("phase", "running")]), Some("phase"), |e| {
        matches!(e, QueryError::UnknownParameter { .. })
    });
    check(&with(&[("limit", "0")]), Some("limit"), |e| {
        matches!(e, QueryError::LimitOutOfRange { .. })
    });
    // States: the bound is exact, repeats count.
    let states = |n: usize| {
        let mut pairs = base.to_vec();
        pairs.extend(std::iter::repeat_n(("state", "FAILED"), n));
        pairs
    };
    let query = TaskRunQuery::from_pairs(states(MAX_STATES)).unwrap();
    assert_eq!(query.states(), [AttemptState::Failed]);
    check(&states(MAX_STATES + 1), Some("state"), |e| {
        matches!(e, QueryError::TooManyStates { .. })
    });
    assert_eq!(MAX_RUN_QUERY_PAIRS, 22);
    let mut many = states(MAX_STATES);
    many.extend([("runner", "r1"), ("order", "desc"), ("limit", "5")]);
    let token = TaskRunQuery::from_pairs(many.iter().copied())
        .unwrap()
        .continue_after(4);
    let mut many: Vec<(&str, &str)> = many;
    many.push(("continue", token.as_str()));
    assert_eq!(many.len(), MAX_RUN_QUERY_PAIRS);
    assert_eq!(
        TaskRunQuery::from_pairs(many.iter().copied())
            .unwrap()
            .after(),
        Some(4)
    );
    many.push(("order", "asc"));
    check(&many, None, |e| {
        matches!(e, QueryError::TooManyParameters { .. })
    });
}

#[test]
fn json_form_and_its_errors() {
    let query: TaskRunQuery = serde_json::from_str(
        r#"{"tenant":"team-a","task":"a","states":["failed","Expired"],"runner":"r1","order":"desc","limit":5}"#,
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&query).unwrap(),
        r#"{"tenant":"team-a","task":"a","states":["failed","expired"],"runner":"r1","order":"desc","limit":5}"#
    );
    for (json, want) in [
        (r#"{"task":"a"}"#, "tenant: required"),
        (r#"{"tenant":"team-a"}"#, "task: required"),
        (
            r#"{"tenant":"team-a","task":"a","states":["x"]}"#,
            "states[0]: invalid value \"x\"",
        ),
        (
            r#"{"tenant":"team-a","task":"a","phases":[]}"#,
            "unknown field `phases`",
        ),
        (
            r#"{"tenant":"team-a","task":"a","limit":1001}"#,
            "limit: \"1001\" is out of range",
        ),
    ] {
        let err = serde_json::from_str::<TaskRunQuery>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{json}: {err}");
    }
    let states = format!(
        r#"{{"tenant":"team-a","task":"a","states":[{}]}}"#,
        vec![r#""failed""#; MAX_STATES + 1].join(",")
    );
    let err = serde_json::from_str::<TaskRunQuery>(&states)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("states: more than 16 states"), "{err}");
}
