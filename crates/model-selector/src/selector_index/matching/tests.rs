//! Unit tests of the two orders a query reads keys in: walking every key and merging the
//! matched groups' keys give the same keys, those whose selectors match, in key order.

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
    fn walk_and_merge_agree(
        stored in prop::collection::vec((0..500_u32, 0..SELECTORS.len()), 0..200),
        labels in labels(),
    ) {
        let mut index = SelectorIndex::new();
        for (key, which) in stored {
            let selector: LabelSelector = SELECTORS.get(which).copied().unwrap_or_default().parse().unwrap_or_default();
            index.insert(key, &selector).unwrap_or_default();
        }
        let want: Vec<u32> = index
            .iter()
            .filter(|(_, selector)| selector.matches(&labels))
            .map(|(key, _)| *key)
            .collect();
        for walk in [true, false] {
            let matched = Matched::find(&index.groups, &labels);
            let got: Vec<u32> = Matching::ordered(&index.keys, &index.groups, &labels, matched, walk)
                .copied()
                .collect();
            prop_assert_eq!(&got, &want, "walk: {}", walk);
        }
        prop_assert_eq!(index.first_matching(&labels).copied(), want.first().copied());
    }
}
