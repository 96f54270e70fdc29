//! Unit tests for `wire`: the job list and dependencies are bounded while they are read.

use serde::Deserialize;

use super::*;
use crate::limits::MAX_JOB_DEPENDENCIES;

/// A raw job with only its dependencies.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Job {
    #[serde(default)]
    depends_on: DependsOnRaw,
}

impl RawJob for Job {
    fn dependencies(&self) -> usize {
        self.depends_on.names.len()
    }
}

fn read(json: &str) -> Result<usize, String> {
    serde_json::from_str::<JobList<Job>>(json)
        .map(|jobs| jobs.0.len())
        .map_err(|e| e.to_string())
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(","))
}

#[test]
fn the_job_count_is_bounded_while_reading() {
    let jobs = |n: usize| list((0..n).map(|_| "{}".to_owned()));
    assert_eq!(read(&jobs(MAX_FLOW_JOBS)), Ok(MAX_FLOW_JOBS));
    let err = read(&jobs(MAX_FLOW_JOBS + 1)).unwrap_err();
    assert!(
        err.starts_with("invalid jobs: more than 100000 entries"),
        "{err}"
    );
    // Nothing after the entry past the bound is read, not even a broken one.
    let broken = jobs(MAX_FLOW_JOBS + 1).replace("{}]", "{} not json");
    assert!(
        read(&broken)
            .unwrap_err()
            .starts_with("invalid jobs: more than")
    );
}

#[test]
fn dependencies_are_bounded_per_job_and_in_all_while_reading() {
    let deps = |n: usize| list((0..n).map(|_| r#""a""#.to_owned()));
    let job = |n: usize| format!(r#"{{"dependsOn": {}}}"#, deps(n));
    assert_eq!(
        read(&list(std::iter::once(job(MAX_JOB_DEPENDENCIES)))),
        Ok(1)
    );
    let err = read(&list(std::iter::once(job(MAX_JOB_DEPENDENCIES + 1)))).unwrap_err();
    assert!(
        err.starts_with("invalid dependsOn: more than 1000 entries"),
        "{err}"
    );
    let per_job = MAX_JOB_DEPENDENCIES;
    let full = MAX_FLOW_DEPENDENCIES / per_job;
    let at_limit = list((0..full).map(|_| job(per_job)));
    assert_eq!(read(&at_limit), Ok(full));
    let over = list(
        (0..full)
            .map(|_| job(per_job))
            .chain(std::iter::once(job(1))),
    );
    let err = read(&over).unwrap_err();
    assert!(
        err.starts_with("invalid jobs: more than 1000000 dependencies in all"),
        "{err}"
    );
}

#[test]
fn null_dependencies_read_as_none() {
    assert_eq!(read(r#"[{"dependsOn": null}, {}]"#), Ok(2));
}
