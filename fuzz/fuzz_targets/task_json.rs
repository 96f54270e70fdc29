//! A whole task (metadata, spec, status) from JSON, then through its lifecycle.
//!
//! A task that parses must serialize to a fixpoint that parses back equal. Every lifecycle
//! call (start, finish with each outcome, cancel) at the edges of time either fails with
//! an error or leaves a task that still round-trips and whose version went up by one; its
//! own manifest, applied again, changes nothing.
#![no_main]

mod common;

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::SeededRandom;
use taskmodel::task::{ApplyChanges, AttemptOutcome, AttemptResult, Task};

fn bumped(before: &Task, after: &Task) {
    assert_eq!(after.resource_version(), before.resource_version() + 1);
    common::task_round_trip(after);
}

fuzz_target!(|data: &[u8]| {
    let Ok(task) = serde_json::from_slice::<Task>(data) else {
        return;
    };
    common::task_round_trip(&task);
    common::check_selector(task.spec().runner_selector());
    // Its own manifest, applied again, changes nothing.
    let mut same = task.clone();
    let applied = same.apply(task.manifest(), Some(task.resource_version()), DateTime::<Utc>::MAX_UTC);
    assert_eq!(applied.ok(), Some(ApplyChanges::default()), "its own manifest changed the task");
    assert_eq!(same, task);

    let times = [
        DateTime::<Utc>::MIN_UTC,
        task.metadata().updated_at(),
        DateTime::<Utc>::MAX_UTC,
    ];
    for now in times {
        let mut started = task.clone();
        if started.begin_attempt(None, now).is_ok() {
            bumped(&task, &started);
            for outcome in AttemptOutcome::ALL {
                let mut finished = started.clone();
                let result = AttemptResult::new(outcome)
                    .with_exit_code(-1)
                    .with_error("é".repeat(3000));
                let mut rng = SeededRandom::new(7);
                if finished.end_attempt(None, result, &mut rng, now).is_ok() {
                    bumped(&started, &finished);
                }
            }
        }
        let mut canceled = task.clone();
        if canceled.cancel(Some(task.resource_version()), now).is_ok() {
            bumped(&task, &canceled);
        }
        let mut finished = task.clone();
        let mut rng = SeededRandom::new(11);
        let result = AttemptResult::new(AttemptOutcome::Failed);
        if finished.end_attempt(None, result, &mut rng, now).is_ok() {
            bumped(&task, &finished);
        }
    }
});
