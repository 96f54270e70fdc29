//! Property tests: matching agrees with a plain reference implementation, and the string
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]
//! syntax and serde forms round-trip.

use std::collections::BTreeMap;

use model_selector::{LabelSelector, Labels, SelectorOperator, SelectorRequirement};
use proptest::prelude::*;

/// Few keys, so selectors and label sets often talk about the same ones; some share
/// their first 8 bytes.
const KEYS: [&str; 8] = [
    "zone",
    "gpu",
    "a",
    "tier-class",
    "kubernetes.io/arch",
    "kubernetes.io/hostname",
    "kubernet",
    "z9_.x",
];
/// Enough values that lists longer than the hashing threshold occur; some are exactly
/// 8 bytes, some share their first 8 bytes.
const VALUES: [&str; 24] = [
    "",
    "eu",
    "us",
    "8",
    "16",
    "03",
    "h100",
    "a-rather-long-value",
    "a-rather-long-valuf",
    "a-rather",
    "a-rathe",
    "a100",
    "l4",
    "v1",
    "v2",
    "v3",
    "v4",
    "v5",
    "v6",
    "v7",
    "v8",
    "v9",
    "ten-bytes0",
    "twelve-bytes",
];

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(&KEYS[..]).prop_map(str::to_owned)
}

fn value() -> impl Strategy<Value = String> {
    prop::sample::select(&VALUES[..]).prop_map(str::to_owned)
}

/// Up to 8 of `KEYS`, and now and then many other keys, so large sets (which are searched
/// rather than indexed) are tested too.
fn label_set() -> impl Strategy<Value = BTreeMap<String, String>> {
    let fillers = prop_oneof![3 => Just(0_usize), 1 => 0..50_usize];
    (prop::collection::btree_map(key(), value(), 0..8), fillers).prop_map(|(mut set, fillers)| {
        for i in 0..fillers {
            set.insert(format!("filler-{i}"), "v1".to_owned());
        }
        set
    })
}

fn requirement() -> impl Strategy<Value = SelectorRequirement> {
    let op = prop::sample::select(&SelectorOperator::ALL[..]);
    (
        key(),
        op,
        prop::collection::vec(value(), 1..20),
        // Small bounds so label values compare both ways, and every i64 so the bound's
        // text (string syntax and JSON) reads back equal at the ends of the range.
        prop_oneof![
            4 => -20_i64..20,
            1 => any::<i64>(),
            1 => Just(i64::MIN),
            1 => Just(i64::MAX)
        ],
    )
        .prop_map(|(k, op, vals, n)| match op {
            SelectorOperator::In | SelectorOperator::NotIn => {
                SelectorRequirement::new(k, op, vals).unwrap()
            }
            SelectorOperator::Gt => SelectorRequirement::gt(k, n).unwrap(),
            SelectorOperator::Lt => SelectorRequirement::lt(k, n).unwrap(),
            _ => SelectorRequirement::new(k, op, [""; 0]).unwrap(),
        })
}

/// A selector and the plain parts it was built from.
fn selector() -> impl Strategy<
    Value = (
        LabelSelector,
        BTreeMap<String, String>,
        Vec<SelectorRequirement>,
    ),
> {
    (label_set(), prop::collection::vec(requirement(), 0..6)).prop_map(|(labels, reqs)| {
        let sel =
            LabelSelector::from_parts(&Labels::try_from(labels.clone()).unwrap(), &reqs).unwrap();
        (sel, labels, reqs)
    })
}

/// The semantics, written as plainly as possible.
fn reference(
    match_labels: &BTreeMap<String, String>,
    reqs: &[SelectorRequirement],
    labels: &BTreeMap<String, String>,
) -> bool {
    let int = |v: &String| v.parse::<i64>().ok();
    match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
        && reqs.iter().all(|r| {
            let got = labels.get(r.key());
            let listed = got.is_some_and(|v| r.values().contains(v));
            match r.operator() {
                SelectorOperator::In => listed,
                SelectorOperator::NotIn => !listed,
                SelectorOperator::Exists => got.is_some(),
                SelectorOperator::DoesNotExist => got.is_none(),
                SelectorOperator::Gt => got
                    .and_then(int)
                    .is_some_and(|v| v > r.values()[0].parse::<i64>().unwrap()),
                SelectorOperator::Lt => got
                    .and_then(int)
                    .is_some_and(|v| v < r.values()[0].parse::<i64>().unwrap()),
                _ => unreachable!("no other operators"),
            }
        })
}

proptest! {
    #[test]
    fn matches_agrees_with_reference((sel, ml, reqs) in selector(), sets in prop::collection::vec(label_set(), 1..6)) {
        for set in sets {
            let labels = Labels::try_from(set.clone()).unwrap();
            let want = reference(&ml, &reqs, &set);
            prop_assert_eq!(sel.matches(&labels), want, "{} on {}", sel, labels);
            prop_assert_eq!(sel.explain(&labels).is_empty(), want);
        }
    }

    #[test]
    fn string_syntax_round_trips((sel, _, _) in selector(), sets in prop::collection::vec(label_set(), 1..6)) {
        let shown = sel.to_string();
        let parsed: LabelSelector = shown.parse().unwrap();
        prop_assert_eq!(&parsed, &sel);
        prop_assert_eq!(parsed.to_string(), shown);
        for set in sets {
            let labels = Labels::try_from(set).unwrap();
            prop_assert_eq!(parsed.matches(&labels), sel.matches(&labels));
        }
    }

    #[test]
    fn serde_round_trips((sel, _, _) in selector(), set in label_set()) {
        let json = serde_json::to_string(&sel).unwrap();
        let back: LabelSelector = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &sel);
        let labels = Labels::try_from(set.clone()).unwrap();
        let json = serde_json::to_string(&labels).unwrap();
        prop_assert_eq!(&json, &serde_json::to_string(&set).unwrap());
        let back: Labels = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, labels);
    }

    #[test]
    fn labels_behave_like_a_btreemap(ops in prop::collection::vec((key(), prop::option::of(value())), 0..40)) {
        let mut labels = Labels::new();
        let mut model = BTreeMap::new();
        for (k, v) in ops {
            match v {
                Some(v) => prop_assert_eq!(labels.insert(&k, &v).unwrap(), model.insert(k, v)),
                None => prop_assert_eq!(labels.remove(&k), model.remove(&k)),
            }
            let pairs: Vec<(&str, &str)> = labels.iter().collect();
            let want: Vec<(&str, &str)> = model.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            prop_assert_eq!(pairs, want);
        }
        for k in KEYS {
            prop_assert_eq!(labels.get(k), model.get(k).map(String::as_str));
        }
    }
}
