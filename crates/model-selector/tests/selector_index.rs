//! The selector index: through any sequence of inserts and removes (many keys sharing a
//! selector, added and dropped in any order, some through a twin built in another order) it
//! answers exactly what the plain reference matcher says of every stored selector, in key
//! order, and the first match is the first of those.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use std::collections::BTreeMap;

use model_selector::{LabelSelector, Labels, SelectorIndex};
use proptest::prelude::*;

mod common;
use common::{Case, case_sized, label_set};

/// A small deterministic generator (splitmix64), for long operation sequences.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        let out = model_ids::hash::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        (out % n as u64) as usize
    }
}

/// The index agrees with the model on every label set.
fn check(
    index: &SelectorIndex<u32>,
    model: &BTreeMap<u32, &Case>,
    sets: &[BTreeMap<String, String>],
) {
    assert_eq!(index.len(), model.len());
    let keys: Vec<u32> = index.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
    for set in sets {
        let labels = Labels::try_from(set.clone()).unwrap();
        let want: Vec<u32> = model
            .iter()
            .filter(|(_, case)| case.holds(set))
            .map(|(k, _)| *k)
            .collect();
        let got: Vec<u32> = index.matching(&labels).copied().collect();
        assert_eq!(got, want, "on {labels}");
        assert_eq!(
            index.first_matching(&labels).copied(),
            want.first().copied()
        );
        assert_eq!(
            index.matching(&labels).next().copied(),
            want.first().copied()
        );
        // Early exit with the caller's own test: the first match it accepts.
        let odd = index.matching(&labels).find(|k| *k % 2 == 1).copied();
        assert_eq!(odd, want.iter().copied().find(|k| k % 2 == 1));
    }
    for (k, case) in model.iter().take(8) {
        assert_eq!(index.get(k), Some(&case.selector));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn agrees_with_the_reference(
        pool in prop::collection::vec(case_sized(3, 4), 1..24),
        seed in any::<u64>(),
        ops in 1..3_000_usize,
        space in prop_oneof![Just(16_usize), Just(5_000)],
        sets in prop::collection::vec(label_set(), 1..6),
    ) {
        let mut rng = Rng(seed);
        let mut index = SelectorIndex::new();
        let mut model = BTreeMap::new();
        for step in 0..ops {
            let key = rng.below(space) as u32;
            // Mostly inserts, so the index grows; removals of present and absent keys.
            if rng.below(4) == 0 {
                let removed = index.remove(&key);
                prop_assert_eq!(removed.as_ref(), model.remove(&key).map(|c: &Case| &c.selector));
            } else {
                let case = &pool[rng.below(pool.len())];
                // The selector itself, or an equal one built from its parts in reverse order,
                // which must land in the same group.
                let twin = if rng.below(2) == 0 {
                    case.selector.clone()
                } else {
                    let reqs: Vec<_> = case.reqs.iter().rev().cloned().collect();
                    let labels = Labels::try_from(case.match_labels.clone()).unwrap();
                    LabelSelector::from_parts(&labels, &reqs).unwrap()
                };
                let before = index.insert(key, &twin).unwrap();
                prop_assert_eq!(before.as_ref(), model.insert(key, case).map(|c| &c.selector));
            }
            if step % 997 == 0 {
                check(&index, &model, &sets);
            }
        }
        check(&index, &model, &sets);
        // Emptied in a random order, it answers nothing.
        let mut keys: Vec<u32> = model.keys().copied().collect();
        for i in (1..keys.len()).rev() {
            keys.swap(i, rng.below(i + 1));
        }
        for key in keys {
            prop_assert!(index.remove(&key).is_some());
        }
        prop_assert!(index.is_empty());
        let labels = Labels::try_from(sets[0].clone()).unwrap();
        prop_assert_eq!(index.first_matching(&labels), None);
    }
}

#[test]
fn empty_selectors_match_every_label_set_and_order_is_by_key() {
    let mut index = SelectorIndex::new();
    let any = LabelSelector::new();
    let eu: LabelSelector = "topology.kubernetes.io/zone=eu-west-1a".parse().unwrap();
    index.insert("c", &any).unwrap();
    index.insert("a", &eu).unwrap();
    index
        .insert("b", &"!nvidia.com/gpu.present".parse().unwrap())
        .unwrap();
    let gpu = Labels::from_pairs([("nvidia.com/gpu.present", "true")]).unwrap();
    assert_eq!(index.matching(&gpu).collect::<Vec<_>>(), [&"c"]);
    let eu_labels = Labels::from_pairs([("topology.kubernetes.io/zone", "eu-west-1a")]).unwrap();
    assert_eq!(
        index.matching(&eu_labels).collect::<Vec<_>>(),
        [&"a", &"b", &"c"]
    );
    // Replacing a key's selector replaces what it matches.
    assert_eq!(index.insert("a", &any).unwrap(), Some(eu));
    assert_eq!(index.matching(&gpu).collect::<Vec<_>>(), [&"a", &"c"]);
}

/// Keys sharing a selector come out in key order among the keys of other selectors, through
/// removals of the first, a middle and the last key of a group, and a group emptied and made
/// again.
#[test]
fn keys_sharing_a_selector_keep_key_order() {
    let gpu: LabelSelector = "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
        .parse()
        .unwrap();
    let zone: LabelSelector = "topology.kubernetes.io/zone in (us-east-1a)"
        .parse()
        .unwrap();
    let labels = Labels::from_pairs([
        ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"),
        ("topology.kubernetes.io/zone", "us-east-1a"),
    ])
    .unwrap();
    let mut index = SelectorIndex::new();
    for key in 0..12_u32 {
        let selector = if key % 3 == 0 { &zone } else { &gpu };
        index.insert(key, selector).unwrap();
    }
    let all = |index: &SelectorIndex<u32>| index.matching(&labels).copied().collect::<Vec<_>>();
    assert_eq!(all(&index), (0..12).collect::<Vec<_>>());
    assert_eq!(index.remove(&0), Some(zone.clone()));
    assert_eq!(index.remove(&5), Some(gpu.clone()));
    assert_eq!(index.remove(&11), Some(gpu.clone()));
    assert_eq!(all(&index), [1, 2, 3, 4, 6, 7, 8, 9, 10]);
    assert_eq!(index.first_matching(&labels), Some(&1));
    for key in [3, 6, 9] {
        index.remove(&key);
    }
    assert_eq!(index.first_matching(&labels), Some(&1));
    assert_eq!(all(&index), [1, 2, 4, 7, 8, 10]);
    index.insert(0, &zone).unwrap();
    assert_eq!(index.first_matching(&labels), Some(&0));
    assert_eq!(all(&index), [0, 1, 2, 4, 7, 8, 10]);
    let other = Labels::from_pairs([("topology.kubernetes.io/zone", "us-east-1a")]).unwrap();
    assert_eq!(index.matching(&other).copied().collect::<Vec<_>>(), [0]);
}

/// At `MAX_SELECTORS` a new key is refused and the index is unchanged; replacing a stored
/// key still works.
#[test]
fn bounded_by_max_selectors() {
    use model_selector::{MAX_SELECTORS, SelectorError};

    let any = LabelSelector::new();
    let mut index = SelectorIndex::new();
    for key in 0..MAX_SELECTORS {
        index.insert(key, &any).unwrap();
    }
    let eu: LabelSelector = "zone=eu".parse().unwrap();
    assert!(matches!(
        index.insert(MAX_SELECTORS, &eu),
        Err(SelectorError::TooMany {
            what: "selectors",
            limit: MAX_SELECTORS,
            ..
        })
    ));
    assert_eq!(index.len(), MAX_SELECTORS);
    assert!(!index.contains_key(&MAX_SELECTORS));
    assert_eq!(index.insert(7, &eu).unwrap(), Some(any));
    assert_eq!(index.get(&7), Some(&eu));
}
