//! Unit tests of `run`: matching, the fingerprint's coverage of scope, filters and order,
//! and the bound on states.

use model_ids::{RunnerId, TaskId, TenantId};
use model_task::AttemptState;

use super::*;

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

fn run(task: &str, state: AttemptState, runner: &str) -> Run {
    Run(task.parse().unwrap(), 1, state, runner.parse().unwrap())
}

fn builder() -> TaskRunQueryBuilder {
    TaskRunQuery::builder("team".parse().unwrap(), "a".parse().unwrap())
}

#[test]
fn matching_is_task_then_filters() {
    let any = builder().build().unwrap();
    let failed_on_r1 = builder()
        .state(AttemptState::Failed)
        .state(AttemptState::Expired)
        .runner("r1".parse().unwrap())
        .build()
        .unwrap();
    for (run, any_wants, filtered_wants) in [
        (run("a", AttemptState::Failed, "r1"), true, true),
        (run("a", AttemptState::Expired, "r1"), true, true),
        (run("a", AttemptState::Failed, "r2"), true, false),
        (run("a", AttemptState::Running, "r1"), true, false),
        (run("b", AttemptState::Failed, "r1"), false, false),
    ] {
        assert_eq!(any.matches(&run), any_wants);
        assert_eq!(failed_on_r1.matches(&run), filtered_wants);
    }
}

#[test]
fn the_fingerprint_covers_scope_filters_and_order_only() {
    let base = builder().build().unwrap();
    let fp = |q: &TaskRunQuery| q.fingerprint;
    let others = [
        TaskRunQuery::builder("other".parse().unwrap(), "a".parse().unwrap())
            .build()
            .unwrap(),
        TaskRunQuery::builder("team".parse().unwrap(), "b".parse().unwrap())
            .build()
            .unwrap(),
        builder().state(AttemptState::Failed).build().unwrap(),
        builder().runner("r".parse().unwrap()).build().unwrap(),
        builder().order(SortOrder::Descending).build().unwrap(),
    ];
    for other in &others {
        assert_ne!(fp(other), fp(&base), "{other:?}");
    }
    // Tenant and task are length-prefixed: moving a character from one to the other is
    // another query.
    let shifted = TaskRunQuery::builder("tea".parse().unwrap(), "ma".parse().unwrap())
        .build()
        .unwrap();
    assert_ne!(fp(&shifted), fp(&base));
    // The limit and the order of the state calls are not part of it.
    assert_eq!(fp(&builder().limit(3).build().unwrap()), fp(&base));
    assert_eq!(
        fp(&builder()
            .state(AttemptState::Failed)
            .state(AttemptState::Leased)
            .build()
            .unwrap()),
        fp(&builder()
            .state(AttemptState::Leased)
            .state(AttemptState::Failed)
            .build()
            .unwrap()),
    );
    // A task query with the same words is another listing's fingerprint domain.
    assert_ne!(
        TaskRunQuery::builder(TenantId::new("t").unwrap(), TaskId::new("a").unwrap())
            .build()
            .unwrap()
            .fingerprint,
        0
    );
}

#[test]
fn state_values_are_bounded_counting_repeats() {
    let at = builder()
        .states(std::iter::repeat_n(AttemptState::Failed, MAX_STATES))
        .build()
        .unwrap();
    assert_eq!(at.states(), [AttemptState::Failed]);
    let err = builder()
        .states(std::iter::repeat_n(AttemptState::Failed, MAX_STATES + 1))
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        QueryError::TooManyStates {
            max: MAX_STATES,
            ..
        }
    ));
    assert_eq!(err.field(), Some("states"));
}
