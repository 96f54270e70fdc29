//! What a store gives back of its flows: each job's result, reported with the attempt that
//! ended it, and the tenant's flows listed in keyset pages.

use std::collections::BTreeSet;

use taskmodel::SeededRandom;
use taskmodel::flow::{FailurePolicy, FlowJob, FlowSpec, FlowStatus, JobResult, TriggerRule};
use taskmodel::ids::{FlowId, JobName, TenantId};
use taskmodel::task::{AttemptOutcome, AttemptResult, LeaseId, TaskPhase};
use taskstore::{FlowCursor, Store, StoreError};

use super::fixtures::*;

/// A flow `name` of one job `only` (retried once on failure), or of `first -> second`.
fn chain(name: &str, jobs: &[&str]) -> FlowSpec {
    let mut previous: Option<JobName> = None;
    let jobs: Vec<FlowJob> = jobs
        .iter()
        .map(|job| {
            let deps = previous.iter().cloned().collect();
            let job = JobName::new(*job).unwrap();
            previous = Some(job.clone());
            FlowJob::new(
                job.clone(),
                spec(&format!("{name}-{job}"), 1),
                deps,
                TriggerRule::AllSucceeded,
            )
        })
        .collect();
    FlowSpec::builder(name)
        .failure_policy(FailurePolicy::FailFast)
        .jobs(jobs)
        .build()
        .unwrap()
}

/// A job's result reported with a restart is dropped; reported with the end that ends the
/// job it is kept in the run, returned with the flow, and a repeat changes nothing.
pub fn a_job_result_is_stored_with_the_flow<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let flow = chain("etl", &["extract", "load"]);
    store
        .create_flow(&tenant(), &flow, uid_of("etl"), at(0))
        .unwrap();
    let report = |store: &mut B::Store, task: &str, lease: u64, outcome, rows: &str, ms: i64| {
        let result = JobResult::from_pairs([("rows", rows)]).unwrap();
        store.report_job(
            &tenant(),
            &id(task),
            LeaseId::new(lease),
            AttemptResult::new(outcome),
            result,
            &mut SeededRandom::new(1),
            at(ms),
        )
    };

    let task = start_next(&mut store, "r", 1, 0);
    assert_eq!(task, "etl.extract");
    report(&mut store, &task, 1, AttemptOutcome::Failed, "0", 2).unwrap();
    let etl = store.flow(&tenant(), &FlowId::new("etl").unwrap()).unwrap();
    assert_eq!(etl.jobs[0].result, None, "a restart keeps no result");

    let task = start_next(&mut store, "r", 2, 5_000);
    report(
        &mut store,
        &task,
        2,
        AttemptOutcome::Succeeded,
        "120",
        5_002,
    )
    .unwrap();
    let repeat = report(
        &mut store,
        &task,
        2,
        AttemptOutcome::Succeeded,
        "120",
        5_003,
    )
    .unwrap();
    assert!(!repeat.applied.is_changed());
    let etl = store.flow(&tenant(), &FlowId::new("etl").unwrap()).unwrap();
    let rows = |flow: &taskstore::StoredFlow, job: usize| {
        flow.jobs[job]
            .result
            .as_ref()
            .and_then(|r| r.get("rows"))
            .map(str::to_owned)
    };
    assert_eq!(rows(&etl, 0).as_deref(), Some("120"));
    assert_eq!(etl.run.result("extract"), etl.jobs[0].result.as_ref());
    assert_eq!(rows(&etl, 1), None);

    let task = start_next(&mut store, "r", 3, 6_000);
    assert_eq!(task, "etl.load");
    report(&mut store, &task, 3, AttemptOutcome::Succeeded, "7", 6_002).unwrap();
    let etl = store.flow(&tenant(), &FlowId::new("etl").unwrap()).unwrap();
    assert_eq!(etl.run.status(), FlowStatus::Finished);
    let results: Vec<(&str, Option<&str>)> = etl
        .run
        .results()
        .map(|(job, result)| (job.as_str(), result.get("rows")))
        .collect();
    assert_eq!(results, [("extract", Some("120")), ("load", Some("7"))]);

    // A task no flow's job names ends as `report` ends it; its result goes nowhere.
    create_all(&mut store, &[super::fixtures::task("alone", at(7_000))]);
    let alone = start_next(&mut store, "r", 4, 7_000);
    assert_eq!(alone, "alone");
    let ended = report(&mut store, &alone, 4, AttemptOutcome::Succeeded, "1", 7_002).unwrap();
    assert_eq!(ended.task.phase(), TaskPhase::Succeeded);
}

/// Flows list oldest first, then by name, in pages that start after the last one's cursor;
/// a flow created or deleted during the listing does not make another one appear twice or
/// go missing; another tenant's flows are not listed; a limit of 0 is out of range.
pub fn flows_list_in_creation_order_in_keyset_pages<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let created = [("d", 0), ("b", 10), ("a", 10), ("c", 20), ("e", 30)];
    for (name, ms) in created {
        store
            .create_flow(&tenant(), &chain(name, &["only"]), uid_of(name), at(ms))
            .unwrap();
    }
    let other = TenantId::new("other").unwrap();
    store
        .create_flow(&other, &chain("z", &["only"]), uid_of("z"), at(0))
        .unwrap();

    let first = store.flows(&tenant(), None, 2).unwrap();
    let names = |page: &[taskstore::FlowSummary]| -> Vec<String> {
        page.iter().map(|flow| flow.name.to_string()).collect()
    };
    assert_eq!(names(&first), ["d", "a"]);
    assert_eq!(first[0].status, FlowStatus::Started);
    assert_eq!(
        (first[1].created_at, first[1].resource_version),
        (at(10), 1)
    );
    assert_eq!(first[0].uid, uid_of("d"));

    // Churn: a new flow sorts after every existing one; "b" is listed next regardless.
    store
        .create_flow(&tenant(), &chain("f", &["only"]), uid_of("f"), at(40))
        .unwrap();
    let cursor = first.last().unwrap().cursor();
    assert_eq!(cursor, FlowCursor::new(at(10), FlowId::new("a").unwrap()));
    let mut seen: BTreeSet<String> = names(&first).into_iter().collect();
    let mut after = Some(cursor);
    loop {
        let page = store.flows(&tenant(), after.as_ref(), 2).unwrap();
        for name in names(&page) {
            assert!(seen.insert(name.clone()), "{name} listed twice");
        }
        match page.last() {
            Some(last) if page.len() == 2 => after = Some(last.cursor()),
            _ => break,
        }
    }
    let expected: BTreeSet<String> = ["a", "b", "c", "d", "e", "f"].map(String::from).into();
    assert_eq!(seen, expected);

    let error = store.flows(&tenant(), None, 0).unwrap_err();
    assert!(
        matches!(error, StoreError::OutOfRange { field: "limit", .. }),
        "{error}"
    );
}
