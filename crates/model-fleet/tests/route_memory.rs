//! `RunnerRouter::explain` holds memory proportional to the spec plus the fleet, never to
//! their product: the largest selector against 100,000 runners that fail all of it, with the
//! bytes counted by a counting global allocator.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test setup fails loudly"
)]

use model_fleet::{KindSet, RouteOutcome, RunnerRouter};
use model_ids::{RunnerId, TaskId};
use model_selector::{
    LabelSelector, Labels, MAX_REQUIREMENTS, MAX_VALUE_LEN, MAX_VALUES, SelectorRequirement,
};
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};

const RUNNERS: usize = 100_000;

/// `MAX_REQUIREMENTS` `In` requirements, each of `MAX_VALUES` values of `MAX_VALUE_LEN`
/// bytes: the largest selector a spec may hold.
fn maximal_selector() -> LabelSelector {
    let mut builder = LabelSelector::builder();
    for r in 0..MAX_REQUIREMENTS {
        let values = (0..MAX_VALUES)
            .map(|v| format!("{:0>width$}", r * MAX_VALUES + v, width = MAX_VALUE_LEN));
        builder = builder
            .requirement(SelectorRequirement::in_values(format!("key-{r:02}"), values).unwrap());
    }
    builder.build().unwrap()
}

fn spec(selector: LabelSelector) -> TaskSpec {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    TaskSpec::builder("lane", kind, 1_000)
        .runner_selector(selector)
        .build()
        .unwrap()
}

/// Explains the maximal selector against `runners` label-less runners and checks the peak
/// of live bytes against `spec_factor` times the selector's text plus `per_runner` bytes
/// for each runner.
fn check(runners: usize) -> u64 {
    let selector = maximal_selector();
    let text = selector.to_string().len();
    assert!(text > 500_000, "the selector is the largest: {text} bytes");
    let spec = spec(selector);
    let router = RunnerRouter::new();
    router
        .replace_all((0..runners).map(|i| {
            let id = RunnerId::new(format!("r-{i:06}")).unwrap();
            (id, Labels::new(), KindSet::ALL)
        }))
        .unwrap();
    let task = TaskId::new("t-1").unwrap();
    let mut rejected = 0;
    let info = allocation_counter::measure(|| {
        let explained = router.explain(&spec, &task).unwrap();
        rejected = explained
            .runners
            .iter()
            .filter(|v| matches!(v.outcome, RouteOutcome::Rejected { .. }))
            .count();
    });
    assert_eq!(rejected, runners, "every runner fails the selector");
    // The text of the selector a few times over (the shared requirement table and the
    // selectors it tests with, whose long lists' hash slots hold a 32-byte head each, two
    // to sixteen slots a listed value), plus a fixed size for each runner's verdict. The
    // selector's part was 2.9 times its text with 16-byte slots and is 4.9 with heads.
    let bound = 6 * text as u64 + 64 * runners as u64;
    assert!(
        info.bytes_max <= bound,
        "explain held {} bytes at its peak for {runners} runners, bound {bound}",
        info.bytes_max
    );
    info.bytes_max
}

#[test]
fn explain_memory_is_spec_plus_fleet_at_the_largest_selector() {
    check(RUNNERS);
}
