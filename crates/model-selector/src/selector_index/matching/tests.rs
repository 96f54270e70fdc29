//! Unit tests of a query: through inserts and removes that split and join runs, it gives the
//! keys whose selectors match, in key order, and the groups' slot masks cover each stored key
//! once.

use proptest::prelude::*;

use super::*;
use crate::{selector::LabelSelector, selector_index::SelectorIndex};

/// Selectors over a few keys and values: equalities, lists, presence, and nothing to file.
const SELECTORS: [&str; 10] = [
    "zone=a",
    "zone=b",
    "zone=a,gpu=x",
    "gpu in (x,y)",
    "gpu in (y),team=t",
    "gpu",
    "count>2",
    "team notin (t)",
    "!gpu",
    "",
];

fn labels() -> impl Strategy<Value = Labels> {
    (
        prop::option::of(prop::sample::select(vec!["a", "b", "c"])),
        prop::option::of(prop::sample::select(vec!["x", "y"])),
        prop::option::of(prop::sample::select(vec!["t", "u"])),
        prop::option::of(prop::sample::select(vec!["1", "3", "many"])),
    )
        .prop_map(|(zone, gpu, team, count)| {
            let pairs = [
                ("zone", zone),
                ("gpu", gpu),
                ("team", team),
                ("count", count),
            ];
            Labels::from_pairs(pairs.into_iter().filter_map(|(k, v)| Some((k, v?))))
                .unwrap_or_default()
        })
}

proptest! {
    #[test]
    fn matching_is_the_reference_in_key_order(
        stored in prop::collection::vec((any::<bool>(), 0..500_u32, 0..SELECTORS.len()), 0..600),
        labels in labels(),
    ) {
        let mut index = SelectorIndex::new();
        let mut model = std::collections::BTreeMap::new();
        for (insert, key, which) in stored {
            if insert || key % 4 != 0 {
                let selector: LabelSelector = SELECTORS.get(which).copied().unwrap_or_default().parse().unwrap_or_default();
                index.insert(key, &selector).unwrap_or_default();
                model.insert(key, selector);
            } else {
                prop_assert_eq!(index.remove(&key), model.remove(&key));
            }
        }
        let want: Vec<u32> = model
            .iter()
            .filter(|(_, selector)| selector.matches(&labels))
            .map(|(key, _)| *key)
            .collect();
        let got: Vec<u32> = Matching::new(&index.keys, &index.groups, &labels).copied().collect();
        prop_assert_eq!(&got, &want);
        // Key by key (`next`, which a `for` loop calls) as in one loop (`fold`, which
        // `collect` uses).
        let mut by_next = Vec::new();
        for &key in Matching::new(&index.keys, &index.groups, &labels) {
            by_next.push(key);
        }
        prop_assert_eq!(&by_next, &want);
        prop_assert_eq!(index.first_matching(&labels).copied(), want.first().copied());
        // Every key's group holds exactly its place: the slots of all groups in a run are
        // the run's used slots, each once.
        let mut held = std::collections::BTreeMap::<u32, u128>::new();
        for id in 0..1_000_u32 {
            for &(run, slots) in index.groups.get(id).map(|g| &g.spots).into_iter().flatten() {
                let all = held.entry(run).or_default();
                prop_assert_eq!(*all & slots, 0, "a slot held by two groups");
                *all |= slots;
            }
        }
        let total: u32 = held.values().map(|m| m.count_ones()).sum();
        prop_assert_eq!(total as usize, index.len());
    }
}
