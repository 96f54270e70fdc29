//! Unit tests for `rule`: the verdict table, and that a decided rule stays decided.

use super::*;

fn tally(succeeded: u32, failed: u32, skipped: u32) -> UpstreamTally {
    UpstreamTally {
        succeeded,
        failed,
        skipped,
    }
}

use SkipReason::{NotTriggered, UpstreamFailed};
use TriggerRule::{AllDone, AllSucceeded, AnyFailed, AnySucceeded, NoneFailed};
use Verdict::{Run, Skip, Wait};

/// (rule, succeeded, failed, skipped, total) gives the verdict, at each rule's boundaries.
#[test]
fn verdict_table() {
    let table = [
        // No dependencies: every rule runs at once.
        (AllSucceeded, 0, 0, 0, 0, Run),
        (AnySucceeded, 0, 0, 0, 0, Run),
        (AnyFailed, 0, 0, 0, 0, Run),
        (NoneFailed, 0, 0, 0, 0, Run),
        (AllDone, 0, 0, 0, 0, Run),
        // allSucceeded: all succeeded; a failure wins over a skip; no waiting for the rest.
        (AllSucceeded, 2, 0, 0, 3, Wait),
        (AllSucceeded, 3, 0, 0, 3, Run),
        (AllSucceeded, 0, 1, 0, 3, Skip(UpstreamFailed)),
        (AllSucceeded, 1, 0, 1, 3, Skip(NotTriggered)),
        (AllSucceeded, 0, 1, 1, 3, Skip(UpstreamFailed)),
        // allDone: every upstream job final, whatever its state.
        (AllDone, 1, 1, 0, 3, Wait),
        (AllDone, 1, 1, 1, 3, Run),
        (AllDone, 0, 0, 3, 3, Run),
        // anySucceeded: one success is enough; none when all are done is a skip.
        (AnySucceeded, 0, 0, 0, 3, Wait),
        (AnySucceeded, 1, 0, 0, 3, Run),
        (AnySucceeded, 1, 2, 0, 3, Run),
        (AnySucceeded, 0, 2, 0, 3, Wait),
        (AnySucceeded, 0, 0, 3, 3, Skip(NotTriggered)),
        (AnySucceeded, 0, 1, 2, 3, Skip(UpstreamFailed)),
        // anyFailed: one failure is enough; none when all are done is a skip.
        (AnyFailed, 2, 0, 0, 3, Wait),
        (AnyFailed, 0, 1, 0, 3, Run),
        (AnyFailed, 2, 0, 1, 3, Skip(NotTriggered)),
        // noneFailed: all done with no failure; a failure skips at once.
        (NoneFailed, 1, 0, 1, 3, Wait),
        (NoneFailed, 2, 0, 1, 3, Run),
        (NoneFailed, 0, 0, 3, 3, Run),
        (NoneFailed, 0, 1, 0, 3, Skip(UpstreamFailed)),
    ];
    for (rule, s, f, k, total, want) in table {
        assert_eq!(
            rule.verdict(tally(s, f, k), total),
            want,
            "{rule} with {s} succeeded, {f} failed, {k} skipped of {total}"
        );
    }
}

/// Every tally of `total` upstream jobs with at most that many final.
fn tallies(total: u32) -> impl Iterator<Item = UpstreamTally> {
    (0..=total).flat_map(move |s| {
        (0..=total - s).flat_map(move |f| (0..=total - s - f).map(move |k| tally(s, f, k)))
    })
}

/// Whether `later` is `earlier` with more upstream jobs ended.
fn extends(later: UpstreamTally, earlier: UpstreamTally) -> bool {
    later.succeeded >= earlier.succeeded
        && later.failed >= earlier.failed
        && later.skipped >= earlier.skipped
}

/// A decided verdict stays decided as more upstream jobs end: a rule that held still holds,
/// and a skip the rule made is still allowed for its reason (what reading a stored run
/// relies on). Exhaustive up to four dependencies.
#[test]
fn decisions_are_monotone_and_skips_are_allowed_later() {
    for total in 0..=4 {
        for rule in TriggerRule::ALL {
            for earlier in tallies(total) {
                let verdict = rule.verdict(earlier, total);
                if let Skip(reason) = verdict {
                    assert!(
                        rule.allows_skip(reason, earlier, total),
                        "{rule} {earlier:?}"
                    );
                }
                for later in tallies(total).filter(|&t| extends(t, earlier)) {
                    match verdict {
                        Run => assert_eq!(rule.verdict(later, total), Run, "{rule} {later:?}"),
                        Skip(reason) => {
                            assert!(rule.allows_skip(reason, later, total), "{rule} {later:?}");
                            assert!(matches!(rule.verdict(later, total), Skip(_)));
                        }
                        Wait => {}
                    }
                }
            }
        }
    }
}

/// `allows_skip` is no looser than the verdict: whenever it allows a reason, the rule
/// cannot run, and some earlier tally (or this one) gave that very skip.
#[test]
fn allowed_skips_come_from_a_verdict() {
    for total in 0..=4 {
        for rule in TriggerRule::ALL {
            for now in tallies(total) {
                for reason in [UpstreamFailed, NotTriggered] {
                    if !rule.allows_skip(reason, now, total) {
                        continue;
                    }
                    assert_ne!(rule.verdict(now, total), Run, "{rule} {now:?}");
                    let reached = tallies(total)
                        .filter(|&t| extends(now, t))
                        .any(|t| rule.verdict(t, total) == Skip(reason));
                    assert!(
                        reached,
                        "{rule} allows {reason:?} at {now:?} but never gives it"
                    );
                }
            }
        }
    }
}

#[test]
fn names_and_defaults() {
    assert_eq!(TriggerRule::default(), AllSucceeded);
    assert_eq!(FailurePolicy::default(), FailurePolicy::FailFast);
    let names: Vec<&str> = TriggerRule::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(
        names,
        [
            "allSucceeded",
            "allDone",
            "anySucceeded",
            "anyFailed",
            "noneFailed"
        ]
    );
    for rule in TriggerRule::ALL {
        let json = serde_json::to_string(&rule).unwrap();
        assert_eq!(json, format!("\"{rule}\""));
        assert_eq!(serde_json::from_str::<TriggerRule>(&json).unwrap(), rule);
    }
    assert_eq!(FailurePolicy::Continue.to_string(), "continue");
    assert!(serde_json::from_str::<TriggerRule>(r#""all_success""#).is_err());
    let wants: Vec<bool> = TriggerRule::ALL.iter().map(|r| r.wants_success()).collect();
    assert_eq!(wants, [true, false, true, false, true]);
}
