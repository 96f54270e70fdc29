//! Unit tests for `runner`: capacity bounds, liveness at its boundary, each operation in
//! each state, availability, the wire form and the fleet.

use chrono::{TimeDelta, TimeZone};
use model_ids::ErrorKind;

use super::*;

fn t(ms: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap() + TimeDelta::milliseconds(ms)
}

fn ttl(ms: u64) -> LivenessTtl {
    LivenessTtl::from_ms(ms).unwrap()
}

fn id(s: &str) -> RunnerId {
    RunnerId::new(s).unwrap()
}

fn runner(state: RunnerState, last_seen_at: Option<i64>) -> Runner {
    let mut runner = Runner::builder(id("r1"), KindSet::ALL)
        .max_concurrent(2)
        .build()
        .unwrap();
    runner.state = state;
    runner.last_seen_at = last_seen_at.map(t);
    runner
}

#[test]
fn capacity_is_bounded_at_both_ends() {
    let check = |n: u32, ok: bool| {
        let built = Runner::builder(id("r1"), KindSet::ALL)
            .max_concurrent(n)
            .build();
        match built {
            Ok(runner) => {
                assert!(ok, "{n} accepted");
                assert_eq!(runner.max_concurrent(), n);
            }
            Err(err) => {
                assert!(!ok, "{n} refused: {err}");
                assert_eq!(
                    err,
                    FleetError::CapacityOutOfRange {
                        input: u64::from(n)
                    }
                );
            }
        }
    };
    check(0, false);
    check(1, true);
    check(MAX_RUNNER_CAPACITY, true);
    check(MAX_RUNNER_CAPACITY + 1, false);
    check(u32::MAX, false);
    let default = Runner::builder(id("r1"), KindSet::ALL).build().unwrap();
    assert_eq!(default.max_concurrent(), DEFAULT_RUNNER_CAPACITY);
    assert_eq!(default.state(), RunnerState::Online);
    assert_eq!(default.last_seen_at(), None);
}

#[test]
fn ttl_is_bounded_at_both_ends() {
    assert_eq!(
        LivenessTtl::from_ms(0),
        Err(FleetError::TtlOutOfRange { input: 0 })
    );
    assert_eq!(ttl(1).as_ms(), 1);
    assert_eq!(ttl(MAX_LIVENESS_TTL_MS).as_ms(), MAX_LIVENESS_TTL_MS);
    assert_eq!(
        LivenessTtl::from_ms(MAX_LIVENESS_TTL_MS + 1),
        Err(FleetError::TtlOutOfRange {
            input: MAX_LIVENESS_TTL_MS + 1
        })
    );
    assert_eq!(LivenessTtl::default().as_ms(), DEFAULT_LIVENESS_TTL_MS);
}

#[test]
fn liveness_at_the_boundary() {
    let check = |seen: Option<DateTime<Utc>>, now: DateTime<Utc>, want: Liveness| {
        assert_eq!(Liveness::of(seen, now, ttl(1_000)), want, "{seen:?} {now}");
    };
    check(Some(t(0)), t(0), Liveness::Alive);
    check(Some(t(0)), t(999), Liveness::Alive);
    check(Some(t(0)), t(1_000), Liveness::Stale);
    check(Some(t(0)), t(10_000_000), Liveness::Stale);
    check(Some(t(5_000)), t(0), Liveness::Alive);
    check(None, t(0), Liveness::Stale);
    // An expiry past the last time chrono holds never comes.
    check(
        Some(DateTime::<Utc>::MAX_UTC),
        DateTime::<Utc>::MAX_UTC,
        Liveness::Alive,
    );
    check(
        Some(DateTime::<Utc>::MIN_UTC),
        DateTime::<Utc>::MAX_UTC,
        Liveness::Stale,
    );
}

#[test]
fn free_capacity_and_the_reasons_agree() {
    use RunnerState::{Draining, Offline, Online};
    let check = |state: RunnerState,
                 seen: Option<i64>,
                 active: u32,
                 free: u32,
                 reasons: &[RunnerUnavailable]| {
        let r = runner(state, seen);
        assert_eq!(r.free_capacity(active, t(1_000), ttl(1_000)), free);
        assert_eq!(
            r.unavailable(active, t(1_000), ttl(1_000)).as_slice(),
            reasons
        );
    };
    let stale = |ms: Option<i64>| RunnerUnavailable::Stale {
        last_seen_at: ms.map(t),
    };
    let full = |active| RunnerUnavailable::Full {
        active,
        max_concurrent: 2,
    };
    check(Online, Some(1), 0, 2, &[]);
    check(Online, Some(1), 1, 1, &[]);
    check(Online, Some(1), 2, 0, &[full(2)]);
    check(Online, Some(1), u32::MAX, 0, &[full(u32::MAX)]);
    check(Online, Some(0), 0, 0, &[stale(Some(0))]);
    check(Online, None, 0, 0, &[stale(None)]);
    check(Draining, Some(1), 0, 0, &[RunnerUnavailable::Draining]);
    check(Offline, Some(1), 0, 0, &[RunnerUnavailable::Offline]);
    check(
        Draining,
        Some(0),
        2,
        0,
        &[RunnerUnavailable::Draining, stale(Some(0)), full(2)],
    );
}

#[test]
fn reasons_read_as_sentences() {
    let table = [
        (RunnerUnavailable::Draining, "the runner is draining"),
        (RunnerUnavailable::Offline, "the runner is offline"),
        (
            RunnerUnavailable::Stale {
                last_seen_at: Some(t(250)),
            },
            "the runner is stale (last seen at 2026-11-22T10:00:00.250Z)",
        ),
        (
            RunnerUnavailable::Stale { last_seen_at: None },
            "the runner is stale (never seen)",
        ),
        (
            RunnerUnavailable::Full {
                active: 3,
                max_concurrent: 3,
            },
            "the runner is at capacity (3 of 3 active)",
        ),
    ];
    for (reason, text) in table {
        assert_eq!(reason.to_string(), text);
    }
}

#[test]
fn register_in_each_case() {
    use RunnerState::{Draining, Offline, Online};
    let fresh = || {
        Runner::builder(id("r1"), KindSet::SUBPROCESS)
            .max_concurrent(3)
            .build()
            .unwrap()
    };
    let check = |previous: Option<Runner>, ok: bool| {
        let got = fresh().register(previous.as_ref(), t(1_000), ttl(1_000));
        match got {
            Ok(r) => {
                assert!(ok, "{previous:?}");
                assert_eq!(r.state(), Online);
                assert_eq!(r.last_seen_at(), Some(t(1_000)));
                assert_eq!(r.max_concurrent(), 3);
                assert_eq!(r.kinds(), &KindSet::SUBPROCESS);
            }
            Err(err) => {
                assert!(!ok, "{previous:?}: {err}");
                let state = previous.map(|p| p.state()).unwrap();
                assert_eq!(
                    err,
                    FleetError::AlreadyRegistered {
                        runner: id("r1"),
                        state
                    }
                );
                assert_eq!(err.kind(), ErrorKind::Conflict);
            }
        }
    };
    check(None, true);
    check(Some(runner(Online, Some(1))), false);
    check(Some(runner(Draining, Some(1))), false);
    check(Some(runner(Offline, Some(1))), true);
    // Stale: restarted before the reaper came by.
    check(Some(runner(Online, Some(0))), true);
    check(Some(runner(Draining, None)), true);
    // Another runner's record is not this runner's.
    let mut other = runner(Online, Some(1));
    other.id = id("r2");
    check(Some(other), true);
}

#[test]
fn heartbeat_moves_last_seen_forward_only() {
    use RunnerState::{Draining, Offline, Online};
    let check = |state, seen: Option<i64>, now: i64, want: Result<Applied, FleetError>, after| {
        let mut r = runner(state, seen);
        assert_eq!(r.heartbeat(t(now)), want, "{state:?} {seen:?} {now}");
        assert_eq!(r.last_seen_at(), after, "{state:?} {seen:?} {now}");
        assert_eq!(r.state(), state);
    };
    let changed = Ok(Applied::Changed(()));
    check(Online, Some(0), 1, changed.clone(), Some(t(1)));
    check(Online, None, 1, changed.clone(), Some(t(1)));
    check(Draining, Some(0), 1, changed, Some(t(1)));
    check(Online, Some(5), 5, Ok(Applied::Unchanged), Some(t(5)));
    check(Online, Some(5), 4, Ok(Applied::Unchanged), Some(t(5)));
    let offline = Err(FleetError::RunnerOffline {
        runner: id("r1"),
        operation: "heartbeat",
    });
    check(Offline, Some(0), 1, offline, Some(t(0)));
}

#[test]
fn drain_resume_and_mark_offline_in_each_state() {
    use RunnerState::{Draining, Offline, Online};
    type Op = fn(&mut Runner) -> Result<Applied, FleetError>;
    let drain: Op = Runner::drain;
    let resume: Op = Runner::resume;
    let offline: Op = |r| r.mark_offline(t(1_000), ttl(1_000));
    let changed = |s| (Ok(Applied::Changed(())), s);
    let unchanged = |s| (Ok(Applied::Unchanged), s);
    let gone = |operation| {
        (
            Err(FleetError::RunnerOffline {
                runner: id("r1"),
                operation,
            }),
            Offline,
        )
    };
    let alive = |s| {
        (
            Err(FleetError::RunnerAlive {
                runner: id("r1"),
                last_seen_at: Some(t(1)),
                ttl_ms: 1_000,
            }),
            s,
        )
    };
    let table: [(RunnerState, Option<i64>, &str, Op, _); 11] = [
        (Online, Some(1), "drain", drain, changed(Draining)),
        (Draining, Some(1), "drain", drain, unchanged(Draining)),
        (Offline, Some(1), "drain", drain, gone("drain")),
        (Online, Some(1), "resume", resume, unchanged(Online)),
        (Draining, Some(1), "resume", resume, changed(Online)),
        (Offline, Some(1), "resume", resume, gone("resume")),
        (Online, Some(1), "offline", offline, alive(Online)),
        (Draining, Some(1), "offline", offline, alive(Draining)),
        (Online, Some(0), "offline", offline, changed(Offline)),
        (Draining, None, "offline", offline, changed(Offline)),
        (Offline, Some(1), "offline", offline, unchanged(Offline)),
    ];
    for (state, seen, name, op, (want, after)) in table {
        let mut r = runner(state, seen);
        assert_eq!(op(&mut r), want, "{name} from {state:?}");
        assert_eq!(r.state(), after, "{name} from {state:?}");
        assert_eq!(r.last_seen_at(), seen.map(t), "{name} leaves lastSeenAt");
    }
}

#[test]
fn errors_classify_and_read() {
    let table = [
        (
            FleetError::UnknownRunner { runner: id("r9") },
            ErrorKind::NotFound,
            r#"runner "r9" is not registered"#,
        ),
        (
            FleetError::AlreadyRegistered {
                runner: id("r1"),
                state: RunnerState::Draining,
            },
            ErrorKind::Conflict,
            r#"runner "r1" is already registered and draining"#,
        ),
        (
            FleetError::RunnerOffline {
                runner: id("r1"),
                operation: "heartbeat",
            },
            ErrorKind::Gone,
            r#"heartbeat of runner "r1": the runner is offline and must register again"#,
        ),
        (
            FleetError::RunnerAlive {
                runner: id("r1"),
                last_seen_at: Some(t(0)),
                ttl_ms: 1_000,
            },
            ErrorKind::InvalidTransition,
            r#"runner "r1" is alive (last seen at 2026-11-22T10:00:00Z, liveness ttl 1000 ms) and is not marked offline"#,
        ),
        (
            FleetError::TtlOutOfRange { input: 0 },
            ErrorKind::Invalid,
            "invalid liveness ttl: 0 ms is out of range (1 to 604800000)",
        ),
        (
            FleetError::TooManyRunners { max: 3 },
            ErrorKind::Invalid,
            "too many runners: the limit is 3",
        ),
    ];
    for (err, kind, text) in table {
        assert_eq!(err.kind(), kind, "{err:?}");
        assert_eq!(err.to_string(), text);
    }
}

// ---- wire

fn parse(json: &str) -> Result<Runner, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

#[test]
fn the_wire_form_reads_defaults_and_writes_every_field() {
    let r = parse(r#"{"id": "eu-1", "kinds": ["subprocess"]}"#).unwrap();
    assert_eq!(r.labels(), &Labels::new());
    assert_eq!(r.max_concurrent(), DEFAULT_RUNNER_CAPACITY);
    assert_eq!(r.state(), RunnerState::Online);
    assert_eq!(r.last_seen_at(), None);
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        r#"{"id":"eu-1","labels":{},"kinds":["subprocess"],"maxConcurrent":1,"state":"online"}"#
    );
    let nulls = r#"{"id": "eu-1", "labels": null, "kinds": ["subprocess"], "maxConcurrent": null,
        "state": null, "lastSeenAt": null}"#;
    assert_eq!(parse(nulls).unwrap(), r);
    let full = r#"{"id":"eu-1","labels":{"zone":"eu"},"kinds":["subprocess","wasm"],"maxConcurrent":4,"state":"draining","lastSeenAt":"2026-11-22T10:00:00.250Z"}"#;
    let r = parse(full).unwrap();
    assert_eq!(r.max_concurrent(), 4);
    assert_eq!(r.state(), RunnerState::Draining);
    assert_eq!(r.last_seen_at(), Some(t(250)));
    assert_eq!(serde_json::to_string(&r).unwrap(), full);
}

#[test]
fn the_wire_form_refuses_what_breaks_a_rule() {
    let check = |json: &str, message: &str| {
        let err = parse(json).unwrap_err();
        assert!(err.starts_with(message), "{json}: {err}");
    };
    check(
        r#"{"id": "eu-1", "kinds": [], "maxConcurrent": 0}"#,
        "invalid maxConcurrent: 0 is out of range (1 to 1024)",
    );
    check(
        r#"{"id": "eu-1", "kinds": [], "maxConcurrent": 1025}"#,
        "invalid maxConcurrent: 1025 is out of range",
    );
    check(
        r#"{"id": "eu-1", "kinds": [], "maxConcurrent": 18446744073709551615}"#,
        "invalid maxConcurrent: 18446744073709551615 is out of range",
    );
    check(
        r#"{"id": "eu-1", "kinds": [], "maxConcurrent": -1}"#,
        "invalid value",
    );
    check(
        r#"{"id": "eu-1", "kinds": [], "state": "busy"}"#,
        "unknown variant `busy`",
    );
    check(
        r#"{"id": "eu-1", "kinds": [], "tenant": "acme"}"#,
        "unknown field `tenant`",
    );
    check(r#"{"id": "eu 1", "kinds": []}"#, "invalid runner id");
    check(r#"{"id": "eu-1"}"#, "missing field `kinds`");
    check(r#"{"kinds": []}"#, "missing field `id`");
    check(
        r#"{"id": "eu-1", "kinds": ["embedded"]}"#,
        "unknown task kind",
    );
    check(r#"{"id": "eu-1", "kinds": null}"#, "invalid type: null");
}

// ---- fleet

#[test]
fn a_fleet_addresses_runners_by_id() {
    let mut fleet = Fleet::new(ttl(1_000));
    let unknown = FleetError::UnknownRunner { runner: id("r1") };
    assert_eq!(fleet.heartbeat(&id("r1"), t(0)), Err(unknown.clone()));
    assert_eq!(fleet.drain(&id("r1")), Err(unknown.clone()));
    assert_eq!(fleet.resume(&id("r1")), Err(unknown.clone()));
    assert_eq!(fleet.mark_offline(&id("r1"), t(0)), Err(unknown.clone()));
    assert_eq!(fleet.remove(&id("r1")), Err(unknown));

    let built = runner(RunnerState::Online, None);
    let kept = fleet.register(built.clone(), t(0)).unwrap().clone();
    assert_eq!(kept.last_seen_at(), Some(t(0)));
    assert!(matches!(
        fleet.register(built.clone(), t(10)),
        Err(FleetError::AlreadyRegistered { .. })
    ));
    assert_eq!(fleet.heartbeat(&id("r1"), t(500)), Ok(Applied::Changed(())));
    assert_eq!(fleet.drain(&id("r1")), Ok(Applied::Changed(())));
    assert_eq!(fleet.resume(&id("r1")), Ok(Applied::Changed(())));
    assert!(fleet.reap(t(1_499)).is_empty());
    assert_eq!(fleet.reap(t(1_500)), [id("r1")]);
    assert!(
        fleet.reap(t(1_500)).is_empty(),
        "a second pass reaps nothing"
    );
    assert_eq!(
        fleet.heartbeat(&id("r1"), t(1_600)),
        Err(FleetError::RunnerOffline {
            runner: id("r1"),
            operation: "heartbeat"
        })
    );
    let again = fleet.register(built, t(1_700)).unwrap();
    assert_eq!(again.state(), RunnerState::Online);
    assert_eq!(fleet.len(), 1);
    assert_eq!(
        fleet.remove(&id("r1")).map(|r| r.state()),
        Ok(RunnerState::Online)
    );
    assert!(fleet.is_empty());
}

#[test]
fn the_reaper_takes_only_stale_runners_in_id_order() {
    let mut fleet = Fleet::new(ttl(1_000));
    for (name, seen) in [("c", 0), ("a", 0), ("b", 600)] {
        let r = Runner::builder(id(name), KindSet::ALL).build().unwrap();
        fleet.register(r, t(seen)).unwrap();
    }
    let _ = fleet.drain(&id("a")).unwrap();
    assert_eq!(fleet.reap(t(1_000)), [id("a"), id("c")]);
    let states: Vec<_> = fleet
        .iter()
        .map(|r| (r.id().to_string(), r.state()))
        .collect();
    assert_eq!(
        states,
        [
            ("a".to_owned(), RunnerState::Offline),
            ("b".to_owned(), RunnerState::Online),
            ("c".to_owned(), RunnerState::Offline)
        ]
    );
    assert_eq!(fleet.ttl(), ttl(1_000));
}
