//! A flow or a flow run from JSON, then run to its end.
//!
//! A flow that parses must serialize to a fixpoint that parses back equal; its order must
//! take every job once, each after all it depends on, and its levels must agree; each job's
//! task spec (the flow's environment merged in) must build. Its run, driven to the end with
//! outcomes taken from the jobs' positions, must end with every job final, report exactly
//! the jobs it changed, keep its status equal to the roll-up of its states, and read back
//! equal at every step. A flow run that parses is driven to its end the same way.
#![no_main]

use chrono::DateTime;
use libfuzzer_sys::fuzz_target;
use taskmodel::flow::{FlowRun, FlowSpec, FlowStatus, JobState};
use taskmodel::task::{RestartDecision, TaskPhase};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let json = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, value, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}

fn check_flow(flow: &FlowSpec) {
    round_trip(flow);
    let graph = flow.graph();
    let mut place = vec![usize::MAX; graph.len()];
    for (at, job) in graph.order().enumerate() {
        assert_eq!(place[job], usize::MAX, "job {job} twice in the order");
        place[job] = at;
    }
    for job in 0..graph.len() {
        let mut level = 0;
        for dep in graph.dependencies(job) {
            assert!(place[dep] < place[job], "{dep} after its dependent {job}");
            level = level.max(graph.level(dep).expect("a level") + 1);
        }
        assert_eq!(graph.level(job), Some(level));
    }
    for job in flow.jobs().iter().take(64) {
        flow.task_spec(job.name()).expect("the merged spec builds");
    }
}

/// The decision for job `position`'s attempt number `attempt`: mostly success, some
/// failures, timeouts, cancels and retries, from the position alone.
fn decision(position: usize, attempt: u32) -> RestartDecision {
    match (position % 7, attempt) {
        (0, 0) => RestartDecision::Restart { retry: 1, delay_ms: 1, at: DateTime::UNIX_EPOCH },
        (1, _) => RestartDecision::Final(TaskPhase::Failed),
        (2, _) if position % 3 == 0 => RestartDecision::Exhausted,
        (3, _) if position % 5 == 0 => RestartDecision::Final(TaskPhase::Canceled),
        _ => RestartDecision::Final(TaskPhase::Succeeded),
    }
}

fn run_to_end(mut run: FlowRun, cancel_after: usize) {
    round_trip(&run);
    let mut attempts = vec![0u32; run.graph().len()];
    for step in 0.. {
        assert_eq!(run.status(), FlowStatus::of(run.states().map(|(_, s)| s)));
        if step == cancel_after {
            let changes = run.cancel();
            assert!(changes.changed().iter().all(|c| c.to() == JobState::Skipped(taskmodel::flow::SkipReason::Canceled)));
        }
        let next = run
            .states()
            .position(|(_, s)| matches!(s, JobState::Ready | JobState::Running));
        let Some(position) = next else { break };
        let name = run.graph().name(position).expect("a name").clone();
        let before: Vec<JobState> = run.states().map(|(_, s)| s).collect();
        run.start(&name).expect("a ready or running job starts");
        let decision = decision(position, attempts[position]);
        attempts[position] += 1;
        let changes = run.end_attempt(&name, decision, None).expect("a running job ends");
        let after: Vec<JobState> = run.states().map(|(_, s)| s).collect();
        let changed: Vec<usize> = (0..after.len()).filter(|&i| before[i] != after[i]).collect();
        let mut reported: Vec<usize> = changes.changed().iter().map(|c| c.position()).collect();
        reported.sort_unstable();
        reported.dedup();
        let mut changed_after_start = changed.clone();
        // The start itself (ready to running) is not part of the end's changes.
        changed_after_start.retain(|&i| !(i == position && after[i] == JobState::Running));
        assert_eq!(reported, changed_after_start, "the end reports what it changed");
        if step % 16 == 0 {
            round_trip(&run);
        }
    }
    assert!(run.is_done(), "a run ends with every job final");
    round_trip(&run);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(flow) = serde_json::from_slice::<FlowSpec>(data) {
        check_flow(&flow);
        let cancel_after = data.len() % 11;
        run_to_end(FlowRun::new(&flow), if data.len() % 2 == 0 { cancel_after } else { usize::MAX });
    }
    if let Ok(run) = serde_json::from_slice::<FlowRun>(data) {
        run_to_end(run, usize::MAX);
    }
});
