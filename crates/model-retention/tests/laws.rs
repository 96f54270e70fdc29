//! The laws of `collect`, on random views of owners (forests, with cycles, gone owners and
//! shared uids now and then) under random policies, against the plain reference in
//! `common/reference.rs`: the same deletions for the same reasons, the same releases, an
//! order that keeps priorities and ownership, nothing running, nothing still needed, and
//! foreground owners only after what they own.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests fail loudly"
)]

mod common;

use std::collections::BTreeSet;

use common::reference;
use model_retention::{CascadePolicy, OwnedResource, RetentionPolicy, collect_with};
use proptest::prelude::*;

/// 512 cases in the suite; `PROPTEST_CASES` sets another count.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(512);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// Where each deleted position comes in the order.
fn positions(order: &[usize], len: usize) -> Vec<Option<usize>> {
    let mut at = vec![None; len];
    for (k, &i) in order.iter().enumerate() {
        at[i] = Some(k);
    }
    at
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn collect_agrees_with_the_reference(resources in common::view(40), policy in common::policy()) {
        let now = common::now();
        let collection = collect_with(&policy, now, &resources);
        let expected = reference::collect(&policy, now, &resources);

        // The same set, for the same reasons.
        let got: BTreeSet<(usize, String)> = collection
            .deletions()
            .iter()
            .map(|d| (d.index(), format!("{:?}", d.reason())))
            .collect();
        let want: BTreeSet<(usize, String)> = (0..resources.len())
            .filter_map(|i| expected.reasons[i].map(|r| (i, format!("{r:?}"))))
            .collect();
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(collection.deletions().len(), got.len(), "a resource deleted twice");

        // The same releases, in resource and reference order.
        let releases: Vec<_> = collection
            .releases()
            .iter()
            .map(|r| {
                let position = resources[r.index()]
                    .owner_references()
                    .iter()
                    .position(|o| o == r.owner())
                    .unwrap();
                (r.index(), position, r.reason())
            })
            .collect();
        prop_assert_eq!(releases, expected.releases.clone());
        prop_assert_eq!(collection.next_expiry(), expected.next_expiry);

        let order: Vec<usize> = collection.deletions().iter().map(|d| d.index()).collect();
        let at = positions(&order, resources.len());
        for &d in &order {
            // Nothing running, nothing needed, nothing left alone.
            prop_assert!(!resources[d].lifecycle().is_draft(), "{} is running", resources[d]);
            prop_assert!(!expected.needed[d], "{} is still needed", resources[d]);
            prop_assert!(!expected.stuck[d]);
            // What it owns and deletes now comes before it.
            for e in (0..resources.len()).filter(|&e| expected.owners[e].contains(&d)) {
                if let Some(e_at) = at[e] {
                    prop_assert!(e_at < at[d].unwrap(), "{} before {}, which it owns", resources[d], resources[e]);
                }
            }
        }
        // Priorities: never rising along the order.
        for pair in order.windows(2) {
            prop_assert!(expected.effective[pair[0]] >= expected.effective[pair[1]]);
        }
    }

    #[test]
    fn a_foreground_owner_goes_only_after_what_it_owns(resources in common::view(40), policy in common::policy()) {
        let collection = collect_with(&policy, common::now(), &resources);
        let expected = reference::collect(&policy, common::now(), &resources);
        let deleted: BTreeSet<usize> = collection.deletions().iter().map(|d| d.index()).collect();
        let released: BTreeSet<(usize, String)> = collection
            .releases()
            .iter()
            .map(|r| (r.index(), r.owner().name().to_owned()))
            .collect();
        for d in collection.deletions() {
            let owner = d.resource();
            let cascade = owner.cascade().unwrap_or(policy.rule(owner.kind()).cascade());
            if cascade != CascadePolicy::Foreground {
                continue;
            }
            for e in (0..resources.len()).filter(|&e| expected.owners[e].contains(&d.index())) {
                prop_assert!(
                    deleted.contains(&e) || released.contains(&(e, owner.name().to_owned())),
                    "{} goes while it still owns {}", owner, resources[e]
                );
            }
        }
    }

    #[test]
    fn the_order_of_the_view_does_not_matter(
        resources in common::view(30),
        policy in common::policy(),
        seed in any::<u64>(),
    ) {
        let mut shuffled: Vec<OwnedResource> = resources.clone();
        // A deterministic shuffle from the seed (Fisher-Yates on a splitmix sequence).
        let mut state = seed;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            shuffled.swap(i, (z ^ (z >> 31)) as usize % (i + 1));
        }
        let names = |view: &[OwnedResource], policy: &RetentionPolicy| -> BTreeSet<String> {
            collect_with(policy, common::now(), view).deletions().iter().map(|d| d.resource().to_string()).collect()
        };
        // Shared uids make identities ambiguous whatever the order; the rest must agree.
        prop_assert_eq!(names(&resources, &policy), names(&shuffled, &policy));
    }

    #[test]
    fn what_is_doomed_but_kept_is_running_needed_or_waiting(resources in common::view(40), policy in common::policy()) {
        let expected = reference::collect(&policy, common::now(), &resources);
        let collection = collect_with(&policy, common::now(), &resources);
        let deleted: BTreeSet<usize> = collection.deletions().iter().map(|d| d.index()).collect();
        for i in (0..resources.len()).filter(|&i| expected.doomed[i] && !deleted.contains(&i)) {
            let r = &resources[i];
            let cascade = r.cascade().unwrap_or(policy.rule(r.kind()).cascade());
            prop_assert!(
                r.lifecycle().is_draft() || expected.needed[i] || cascade == CascadePolicy::Foreground,
                "{} is doomed and kept for no reason", r
            );
        }
    }
}

/// The random views reach every rule: each reason to delete and to release, cascades,
/// resources left alone and resources still needed, so the laws above are not vacuous.
#[test]
fn the_random_views_reach_every_rule() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..500 {
        let resources = common::view(40).new_tree(&mut runner).unwrap().current();
        let policy = common::policy().new_tree(&mut runner).unwrap().current();
        let collection = collect_with(&policy, common::now(), &resources);
        let expected = reference::collect(&policy, common::now(), &resources);
        let mut count = |what: String| *seen.entry(what).or_default() += 1;
        collection
            .deletions()
            .iter()
            .for_each(|d| count(format!("delete {:?}", d.reason())));
        collection
            .releases()
            .iter()
            .for_each(|r| count(format!("release {:?}", r.reason())));
        expected
            .stuck
            .iter()
            .filter(|s| **s)
            .for_each(|_| count("stuck".into()));
        expected
            .needed
            .iter()
            .filter(|s| **s)
            .for_each(|_| count("needed".into()));
    }
    for what in [
        "delete Expired",
        "delete HistoryLimit",
        "delete OwnerGone",
        "delete OwnerDeleted",
        "release Orphaned",
        "release Survives",
        "release OwnerGone",
        "stuck",
        "needed",
    ] {
        assert!(
            seen.get(what).copied().unwrap_or(0) >= 20,
            "{what}: {seen:?}"
        );
    }
}
