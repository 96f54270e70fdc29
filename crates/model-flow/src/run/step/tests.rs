//! The step over rows: what a job's end reads and changes, and the attempt-end checks.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests fail loudly"
)]

use std::convert::Infallible;

use chrono::DateTime;
use model_ids::JobName;
use model_task::{RestartDecision, TaskPhase};

use super::{FlowJobs, JobRow, StateChange, attempt_end, cancel_jobs, end_job};
use crate::error::FlowError;
use crate::limits::MAX_FLOW_RESULT_BYTES;
use crate::rule::{FailurePolicy, TriggerRule};
use crate::run::JobResult;
use crate::state::{JobState, SkipReason};

/// Rows in vectors, counting the rows read, so a test sees what a step touched.
struct Rows {
    rows: Vec<JobRow>,
    dependents: Vec<Vec<u32>>,
    read: Vec<u32>,
}

impl Rows {
    /// `deps[i]`: the positions job `i` depends on; every rule `rule`.
    fn new(deps: &[&[u32]], rule: TriggerRule) -> Self {
        let mut dependents = vec![Vec::new(); deps.len()];
        for (i, list) in deps.iter().enumerate() {
            for &d in *list {
                dependents[d as usize].push(i as u32);
            }
        }
        let rows = deps
            .iter()
            .map(|list| JobRow::new(rule, list.len() as u32))
            .collect();
        Self {
            rows,
            dependents,
            read: Vec::new(),
        }
    }

    fn running(mut self, job: usize) -> Self {
        self.rows[job].state = JobState::Running;
        self
    }
}

impl FlowJobs for Rows {
    type Error = Infallible;

    fn row(&mut self, job: u32) -> Result<JobRow, Infallible> {
        self.read.push(job);
        Ok(self.rows[job as usize])
    }

    fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), Infallible> {
        self.rows[job as usize] = row;
        Ok(())
    }

    fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), Infallible> {
        into.extend(&self.dependents[job as usize]);
        Ok(())
    }

    fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), Infallible> {
        let waiting = |r: &JobRow| matches!(r.state, JobState::Waiting | JobState::Ready);
        into.extend((0..self.rows.len() as u32).filter(|&i| waiting(&self.rows[i as usize])));
        Ok(())
    }
}

fn change(position: u32, from: JobState, to: JobState) -> StateChange {
    StateChange { position, from, to }
}

#[test]
fn an_end_reads_only_the_job_and_its_dependents() {
    // 0 -> 1, 0 -> 2; 3 and 4 unrelated.
    let mut rows = Rows::new(&[&[], &[0], &[0], &[], &[3]], TriggerRule::AllSucceeded).running(0);
    let changes = end_job(
        &mut rows,
        0,
        JobState::Succeeded,
        FailurePolicy::FailFast,
        false,
    );
    let changes = changes.unwrap();
    assert_eq!(
        changes,
        [
            change(0, JobState::Running, JobState::Succeeded),
            change(1, JobState::Waiting, JobState::Ready),
            change(2, JobState::Waiting, JobState::Ready),
        ]
    );
    let mut read = rows.read.clone();
    read.sort_unstable();
    read.dedup();
    assert_eq!(read, [0, 1, 2]);
    assert_eq!(rows.rows[1].tally.succeeded(), 1);
}

#[test]
fn a_skip_propagates_breadth_first() {
    // 0 -> 1 -> 2, 0 -> 3.
    let mut rows = Rows::new(&[&[], &[0], &[1], &[0]], TriggerRule::AllSucceeded).running(0);
    let changes = end_job(
        &mut rows,
        0,
        JobState::Failed,
        FailurePolicy::Continue,
        false,
    );
    let skipped = JobState::Skipped(SkipReason::UpstreamFailed);
    assert_eq!(
        changes.unwrap(),
        [
            change(0, JobState::Running, JobState::Failed),
            change(1, JobState::Waiting, skipped),
            change(3, JobState::Waiting, skipped),
            change(2, JobState::Waiting, skipped),
        ]
    );
}

#[test]
fn only_the_first_failure_of_a_fail_fast_flow_skips_the_rest() {
    // 0, 1 running; 2 waits for 0 with allDone; 3 waits for 1 and asks for success.
    let deps: &[&[u32]] = &[&[], &[], &[0], &[1]];
    let mut rows = Rows::new(deps, TriggerRule::AllSucceeded)
        .running(0)
        .running(1);
    rows.rows[2].rule = TriggerRule::AllDone;
    let first = end_job(
        &mut rows,
        0,
        JobState::Failed,
        FailurePolicy::FailFast,
        false,
    );
    let fail_fast = JobState::Skipped(SkipReason::FailFast);
    assert_eq!(
        first.unwrap(),
        [
            change(0, JobState::Running, JobState::Failed),
            change(3, JobState::Waiting, fail_fast),
            change(2, JobState::Waiting, JobState::Ready),
        ]
    );
    let mut again = Rows::new(deps, TriggerRule::AllSucceeded).running(1);
    let later = end_job(
        &mut again,
        1,
        JobState::Failed,
        FailurePolicy::FailFast,
        true,
    );
    assert_eq!(
        later.unwrap(),
        [
            change(1, JobState::Running, JobState::Failed),
            change(
                3,
                JobState::Waiting,
                JobState::Skipped(SkipReason::UpstreamFailed)
            ),
        ]
    );
}

#[test]
fn a_cancel_skips_what_has_not_started() {
    let mut rows = Rows::new(&[&[], &[], &[0]], TriggerRule::AllSucceeded).running(0);
    let canceled = JobState::Skipped(SkipReason::Canceled);
    assert_eq!(
        cancel_jobs(&mut rows).unwrap(),
        [
            change(1, JobState::Ready, canceled),
            change(2, JobState::Waiting, canceled),
        ]
    );
    assert_eq!(rows.rows[0].state, JobState::Running);
}

#[test]
fn attempt_end_says_what_the_job_becomes() {
    let job = JobName::new("a").unwrap();
    let ok = RestartDecision::Final(TaskPhase::Succeeded);
    let restart = RestartDecision::Restart {
        retry: 1,
        delay_ms: 1,
        at: DateTime::UNIX_EPOCH,
    };
    let result = JobResult::from_pairs([("k", "v")]).unwrap();
    let other = JobResult::from_pairs([("k", "w")]).unwrap();
    let check = |state, kept: Option<&JobResult>, decision: &RestartDecision, sent, bytes| {
        attempt_end(&job, state, kept, decision, sent, bytes)
    };
    let running = JobState::Running;
    let done = JobState::Succeeded;
    assert_eq!(check(running, None, &ok, None, 0).unwrap(), Some(done));
    assert_eq!(check(running, None, &restart, None, 0).unwrap(), None);
    let failed = RestartDecision::Final(TaskPhase::Timeout);
    assert_eq!(
        check(running, None, &failed, None, 0).unwrap(),
        Some(JobState::Failed)
    );
    // The same end again changes nothing; another is a conflict.
    assert_eq!(
        check(done, Some(&result), &ok, Some(&result), 0).unwrap(),
        None
    );
    assert_eq!(check(done, Some(&result), &ok, None, 0).unwrap(), None);
    let conflict = check(done, Some(&result), &ok, Some(&other), 0).unwrap_err();
    assert!(matches!(conflict, FlowError::EndConflict { .. }));
    let waiting = check(JobState::Waiting, None, &ok, None, 0).unwrap_err();
    assert!(matches!(waiting, FlowError::JobTransition { .. }));
    let pending = RestartDecision::Final(TaskPhase::Running);
    let not_an_end = check(running, None, &pending, None, 0).unwrap_err();
    assert!(matches!(not_an_end, FlowError::NotAnAttemptEnd { .. }));
    // The flow's results are bounded, to the byte.
    let room = MAX_FLOW_RESULT_BYTES - result.byte_len();
    assert_eq!(
        check(running, None, &ok, Some(&result), room).unwrap(),
        Some(done)
    );
    let over = check(running, None, &ok, Some(&result), room + 1).unwrap_err();
    assert!(matches!(over, FlowError::TooLong { .. }));
}
