//! Cross-layer scenario through the facade only: an extension workload submitted as a
//! manifest, routed to the one runner that declares its kind, run there under leases (the
//! runner authenticated by a bearer token), its output streamed as events, its changes
//! watched and resumed, and its run history paged.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "helpers of tests: a bad fixture fails the test"
)]

use chrono::{DateTime, Utc};
use serde_json::json;
use taskmodel::prelude::*;
use taskmodel::query::SortOrder;
use taskmodel::task::event::{OutputChunk, OutputStream, WatchWindow};
use taskmodel::task::route::RouteOutcome;
use taskmodel::task::{AttemptOutcome, AttemptResult, ExtensionSpec, TaskError};

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_735_689_600 + seconds, 0).unwrap()
}

fn resize() -> ExtensionKind {
    ExtensionKind::new("images.example.com/v1", "Resize").unwrap()
}

/// The manifest a caller submits: a `Resize` extension with its own spec, retried once.
fn manifest() -> TaskManifest {
    let spec = ExtensionSpec::new(json!({ "width": 256, "format": "webp" })).unwrap();
    let spec = TaskSpec::builder("thumbnails", TaskKind::extension(resize(), spec), 30_000)
        .restart(RestartPolicy::OnFailure)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 1_000, 1.0).unwrap())
        .max_retries(1)
        .build()
        .unwrap();
    TaskManifest::named(TaskId::new("thumbs-7f3a").unwrap(), spec)
}

/// Three runners in one zone: one runs `Resize` of v1, one only `Resize` of v2, one every
/// built-in kind and no extension.
fn runners() -> RunnerRouter {
    let router = RunnerRouter::new();
    let mut batch = RouterBatch::new();
    let zone = Labels::from_pairs([("zone", "eu")]).unwrap();
    let v2 = ExtensionKind::new("images.example.com/v2", "Resize").unwrap();
    batch
        .register(
            RunnerId::new("img-1").unwrap(),
            zone.clone(),
            KindSet::from_names([KindName::Subprocess, KindName::Extension(resize())]).unwrap(),
        )
        .register(
            RunnerId::new("img-2").unwrap(),
            zone.clone(),
            KindSet::one(KindName::Extension(v2)),
        )
        .register(RunnerId::new("plain").unwrap(), zone, KindSet::ALL);
    router.apply(batch).unwrap();
    router
}

#[test]
fn an_extension_workload_runs_on_the_runner_of_its_kind_and_pages_its_history() {
    // Submitted as JSON, read back equal, and created by the control plane for its tenant.
    let json = serde_json::to_string(&manifest()).unwrap();
    let submitted: TaskManifest = serde_json::from_str(&json).unwrap();
    submitted.validate().unwrap();
    let tenant = TenantId::new("media").unwrap();
    let mut task = Task::create(submitted, tenant.clone(), Uid::from_u128(7), at(0)).unwrap();
    let id = task.id().clone();

    // Routing matches the extension's apiVersion and kind, not only its being an extension.
    let router = runners();
    let pick = router.pick(task.spec(), &id).unwrap();
    assert_eq!((pick.runner.as_str(), pick.eligible), ("img-1", 1));
    let explanation = router.explain(task.spec(), &id).unwrap();
    assert_eq!(explanation.kind, KindName::Extension(resize()));
    for verdict in &explanation.runners {
        let kind_supported = match &verdict.outcome {
            RouteOutcome::Picked => true,
            RouteOutcome::Rejected { kind_supported, .. } => *kind_supported,
            other => panic!("{}: {other:?}", verdict.runner),
        };
        assert_eq!(kind_supported, verdict.runner.as_str() == "img-1");
    }

    // The runner authenticates with a token the control plane generated from its own source.
    let issued = Token::generate(&mut SeededRandom::new(11));
    let presented: Token = serde_json::from_str(&serde_json::to_string(&issued).unwrap()).unwrap();
    assert_eq!(presented, issued);
    assert!(!issued.verify("tm_not-the-token-at-all"));
    assert_eq!(format!("{presented:?}"), "Token(redacted)");
    let err = Error::from(Token::new("short").unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Invalid);

    // Every change is an event of the watched collection, numbered by the store.
    let mut changes = vec![TaskWatchEvent::added(1, task.clone()).unwrap()];
    let mut record = |task: &Task| {
        let version = changes.len() as u64 + 1;
        changes.push(TaskWatchEvent::modified(version, task.clone()).unwrap());
    };

    // Attempt 1 fails; its output is streamed while it runs.
    let mut rng = SeededRandom::new(1);
    let (lease1, lease2) = (LeaseId::new(1), LeaseId::new(2));
    let mut run1 = task
        .lease_attempt(None, None, pick.runner.clone(), lease1, at(60), at(1))
        .unwrap();
    record(&task);
    assert!(
        task.start_attempt(&mut run1, lease1, at(2))
            .unwrap()
            .is_changed()
    );
    record(&task);
    let output = [
        OutputEvent::run_started(1, at(2)).unwrap(),
        OutputEvent::Chunk(
            OutputChunk::new(
                1,
                OutputStream::Stderr,
                0,
                at(3),
                b"decode failed\n".to_vec(),
                false,
            )
            .unwrap(),
        ),
        OutputEvent::run_finished(1, at(4), AttemptOutcome::Failed, None).unwrap(),
    ];
    for event in &output {
        let json = serde_json::to_string(event).unwrap();
        assert_eq!(&serde_json::from_str::<OutputEvent>(&json).unwrap(), event);
        assert_eq!(event.attempt(), Some(run1.attempt()));
    }
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_error("decode failed");
    let decision = task
        .report_result(&mut run1, lease1, failed, &mut rng, at(4))
        .unwrap();
    assert!(
        matches!(
            decision,
            Applied::Changed(RestartDecision::Restart { retry: 1, .. })
        ),
        "{decision:?}"
    );
    record(&task);

    // Attempt 2, after the backoff, succeeds.
    let mut run2 = task
        .lease_attempt(
            None,
            Some(&run1),
            pick.runner.clone(),
            lease2,
            at(70),
            at(6),
        )
        .unwrap();
    record(&task);
    assert!(
        task.start_attempt(&mut run2, lease2, at(6))
            .unwrap()
            .is_changed()
    );
    record(&task);
    let succeeded = AttemptResult::new(AttemptOutcome::Succeeded);
    let decision = task
        .report_result(&mut run2, lease2, succeeded, &mut rng, at(9))
        .unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Final(TaskPhase::Succeeded))
    );
    record(&task);

    // A watcher that saw version 3 resumes with 4 onwards and ends on the task as it is now.
    let latest = changes.last().unwrap().version();
    let window = WatchWindow::new(1, latest).unwrap();
    let replay = window.resume(3).unwrap().unwrap();
    let replayed: Vec<&TaskWatchEvent> = changes
        .iter()
        .filter(|event| replay.contains(&event.version()))
        .collect();
    assert_eq!(replayed.len(), changes.len() - 3);
    let last = replayed.last().unwrap().task().unwrap();
    assert_eq!(
        serde_json::to_value(last).unwrap(),
        serde_json::to_value(&task).unwrap()
    );
    // Once the store compacted past it, the watcher lists again: gone, as Kubernetes says.
    let compacted = WatchWindow::new(5, latest).unwrap();
    let err = Error::from(compacted.resume(3).unwrap_err());
    assert!(matches!(err, Error::Task(TaskError::WatchExpired { .. })));
    assert_eq!(err.kind(), ErrorKind::Gone);
    let err = Error::from(window.resume(latest + 1).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Invalid);

    // The run history, one attempt a page, newest first; the token pages on.
    let runs = [run1, run2];
    let mut query = TaskRunQuery::builder(tenant.clone(), id.clone())
        .order(SortOrder::Descending)
        .limit(1)
        .build()
        .unwrap();
    let mut listed = Vec::new();
    loop {
        let page: TaskRunPage<&TaskRun> = query.evaluate(&runs);
        listed.extend(page.items.iter().map(|run| (run.attempt(), run.state())));
        match page.next {
            Some(token) => query = query.with_continue(token).unwrap(),
            None => break,
        }
    }
    assert_eq!(
        listed,
        [(2, AttemptState::Succeeded), (1, AttemptState::Failed)]
    );
    let failures = TaskRunQuery::from_pairs([
        ("tenant", "media"),
        ("task", "thumbs-7f3a"),
        ("state", "failed"),
    ])
    .unwrap()
    .evaluate(&runs);
    assert_eq!(failures.items.len(), 1);
    assert_eq!(failures.items[0].attempt(), 1);

    // The task listing of the tenant holds the task; a run page's token is not a task page's.
    let tasks = TaskQuery::builder(tenant)
        .build()
        .unwrap()
        .evaluate([&task]);
    assert_eq!(tasks.items.len(), 1);
    let run_token = TaskRunQuery::builder(TenantId::new("media").unwrap(), id)
        .limit(1)
        .build()
        .unwrap()
        .evaluate(&runs)
        .next
        .unwrap();
    let err = Error::from(
        TaskQuery::from_pairs([("tenant", "media"), ("continue", run_token.as_str())]).unwrap_err(),
    );
    assert!(matches!(err, Error::Query(_)));
    assert_eq!(err.kind(), ErrorKind::Invalid);
}
