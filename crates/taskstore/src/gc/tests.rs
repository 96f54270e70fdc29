//! A collection's batch bounds and how its passes' next expiries combine.

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::ids::TenantId;

use super::{MAX_GC_BATCH, Pass, check_batch};
use crate::error::StoreError;
use crate::values::Collected;

#[test]
fn a_batch_is_1_to_max_gc_batch() {
    let check = |batch: u32, size: Option<usize>| match (check_batch(batch), size) {
        (Ok(got), Some(size)) => assert_eq!(got, size, "batch {batch}"),
        (Err(StoreError::OutOfRange { field: "batch", .. }), None) => {}
        (got, _) => panic!("batch {batch}: {got:?}"),
    };
    check(0, None);
    check(1, Some(1));
    check(MAX_GC_BATCH, Some(1_000));
    check(MAX_GC_BATCH + 1, None);
    check(u32::MAX, None);
}

#[test]
fn the_sooner_next_expiry_of_the_passes_is_kept() {
    let t = |s: i64| DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(s);
    let check = |known: Option<DateTime<Utc>>, next, expected| {
        let tenant = TenantId::new("acme").unwrap();
        let mut engine = ();
        let mut pass = Pass {
            engine: &mut engine,
            tenant: &tenant,
            now: t(0),
            size: 1,
            collected: Collected {
                next_expiry: known,
                ..Collected::default()
            },
        };
        pass.expires(next);
        assert_eq!(
            pass.collected.next_expiry, expected,
            "{known:?} and {next:?}"
        );
    };
    check(None, None, None);
    check(None, Some(t(5)), Some(t(5)));
    check(Some(t(5)), None, Some(t(5)));
    check(Some(t(5)), Some(t(4)), Some(t(4)));
    check(Some(t(4)), Some(t(5)), Some(t(4)));
    check(Some(t(4)), Some(t(4)), Some(t(4)));
}
