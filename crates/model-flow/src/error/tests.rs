//! Unit tests for `error`: messages, kinds, paths and how a long cycle is shown.

use model_ids::{ErrorKind, JobName};

use super::*;

fn names(count: usize) -> Vec<JobName> {
    (0..count)
        .map(|i| JobName::new(format!("j{i}")).unwrap())
        .collect()
}

#[test]
fn cycles_are_shown_whole_up_to_the_bound_and_shortened_after() {
    // A path of exactly MAX_CYCLE_JOBS_SHOWN names is shown whole; one more loses its middle.
    let whole = FlowCycle::new("jobs[0].dependsOn[0]".into(), names(MAX_CYCLE_JOBS_SHOWN));
    assert!(!whole.to_string().contains('…'));
    assert_eq!(
        whole.to_string().matches(" -> ").count(),
        MAX_CYCLE_JOBS_SHOWN - 1
    );
    let cut = FlowCycle::new(
        "jobs[0].dependsOn[0]".into(),
        names(MAX_CYCLE_JOBS_SHOWN + 1),
    );
    let shown = cut.to_string();
    assert!(shown.contains("j15 -> … 1 more … -> j17"), "{shown}");
    assert_eq!(cut.jobs().len(), MAX_CYCLE_JOBS_SHOWN + 1);
}

#[test]
fn messages() {
    let cycle = |path: &str, jobs: &[&str]| {
        FlowCycle::new(
            path.into(),
            jobs.iter().map(|j| JobName::new(j).unwrap()).collect(),
        )
    };
    let table = [
        (
            FlowError::NoJobs {
                path: "jobs".into(),
            },
            "jobs: a flow has at least one job",
        ),
        (
            FlowError::Cycle {
                cycles: vec![cycle("jobs[3].dependsOn[0]", &["a", "b", "a"])],
                unreported: 1,
            },
            "jobs[3].dependsOn[0]: jobs form a cycle: a -> b -> a; and 1 more cycle",
        ),
        (
            FlowError::UnknownDependency {
                path: "jobs[1].dependsOn[2]".into(),
                name: "lod".into(),
                closest: Some(JobName::new("load").unwrap()),
            },
            r#"jobs[1].dependsOn[2]: unknown job "lod" (did you mean "load"?)"#,
        ),
        (
            FlowError::TooLong {
                path: "result".into(),
                len: 20,
                max: 16,
            },
            "result: 20 bytes, more than 16",
        ),
        (
            FlowError::TooLarge {
                path: "ttlAfterFinishedMs".into(),
                value: 21,
                max: 20,
            },
            "ttlAfterFinishedMs: 21 is larger than the maximum 20",
        ),
        (
            FlowError::JobTransition {
                job: JobName::new("load").unwrap(),
                from: JobState::Waiting,
                to: JobState::Running,
            },
            r#"job "load" cannot go from waiting to running"#,
        ),
        (
            FlowError::EndConflict {
                job: JobName::new("load").unwrap(),
                state: JobState::Succeeded,
            },
            r#"conflict: job "load" already ended succeeded, with another result or state"#,
        ),
    ];
    for (error, want) in table {
        assert_eq!(error.to_string(), want);
    }
}

#[test]
fn kinds_cover_every_category() {
    let job = || JobName::new("a").unwrap();
    let table = [
        (
            FlowError::NoJobs {
                path: "jobs".into(),
            },
            ErrorKind::Invalid,
        ),
        (
            FlowError::UnknownJob { name: "x".into() },
            ErrorKind::Invalid,
        ),
        (
            FlowError::JobTransition {
                job: job(),
                from: JobState::Waiting,
                to: JobState::Running,
            },
            ErrorKind::InvalidTransition,
        ),
        (
            FlowError::NotAnAttemptEnd {
                job: job(),
                phase: model_task::TaskPhase::Running,
            },
            ErrorKind::InvalidTransition,
        ),
        (
            FlowError::EndConflict {
                job: job(),
                state: JobState::Failed,
            },
            ErrorKind::Conflict,
        ),
    ];
    for (error, kind) in table {
        assert_eq!(error.kind(), kind, "{error}");
    }
}

#[test]
fn paths_take_a_prefix() {
    let err = FlowError::Empty {
        path: "result key".into(),
    };
    assert_eq!(err.at("jobs[2]").path(), Some("jobs[2].result key"));
    let err = FlowError::Cycle {
        cycles: vec![FlowCycle::new("jobs[0].dependsOn[0]".into(), names(2))],
        unreported: 0,
    };
    assert_eq!(err.at("flow").path(), Some("flow.jobs[0].dependsOn[0]"));
    let err = FlowError::NoJobs {
        path: "jobs".into(),
    };
    assert_eq!(err.at("flow").path(), Some("flow.jobs"));
    let err = FlowError::UnknownJob { name: "x".into() };
    assert_eq!(err.at("flow").path(), None);
    assert_eq!(join_path("jobs", "[2]"), "jobs[2]");
    assert_eq!(join_path("", "a"), "a");
    assert_eq!(join_path("a", ""), "a");
}
