//! What the property tests share: keys and values that reach every fast path, strategies for
//! label sets and selectors that keep the plain parts they were built from, and the plain
//! reference matcher every fast path and both indexes are held to.
#![allow(
    dead_code,
    reason = "each test file uses the part of the shared module it needs"
)]

use std::collections::BTreeMap;

use model_selector::{LabelSelector, Labels, SelectorOperator, SelectorRequirement};
use proptest::prelude::*;

/// Few keys, so selectors and label sets often talk about the same ones: short ones, ones
/// of exactly 8 bytes, ones that share their first 8 bytes, and long prefixed keys like real
/// node labels (some sharing long prefixes; one of exactly 32 bytes and one of 33 that
/// starts with it; two of 40 that differ only in their last byte).
pub(crate) const KEYS: [&str; 17] = [
    "zone",
    "gpu",
    "a",
    "tier-class",
    "kubernet",
    "z9_.x",
    "kubernetes.io/arch",
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.present",
    "eks.amazonaws.com/nodegroup",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/regiom",
    "node.kubernetes.io/instance-typex",
];

/// Enough values that lists longer than the hashing threshold occur; some are exactly
/// 8 bytes, some share their first 8 bytes or more (one of exactly 32 bytes and one of 33
/// that starts with it), some are numbers for `Gt` and `Lt`.
pub(crate) const VALUES: [&str; 34] = [
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
    "us-east-1a",
    "us-east-1b",
    "NVIDIA-A100-SXM4-80GB",
    "NVIDIA-A100-SXM4-40GB",
    "NVIDIA-H100-80GB-HBM3",
    "p4d.24xlarge",
    "a-value-of-forty-bytes-for-the-long-path",
    "a-value-of-forty-bytes-for-the-long-patH",
    "a-value-of-exactly-thirty-two-by",
    "a-value-of-exactly-thirty-two-byt",
];

pub(crate) fn key() -> impl Strategy<Value = String> {
    prop::sample::select(&KEYS[..]).prop_map(str::to_owned)
}

pub(crate) fn value() -> impl Strategy<Value = String> {
    prop::sample::select(&VALUES[..]).prop_map(str::to_owned)
}

/// Up to 9 of `KEYS`, and now and then up to 49 other keys, so large sets (which take other
/// lookup paths) are tested too; at most 58 labels, so [`case`]'s `matchLabels` and five
/// expressions stay within `MAX_REQUIREMENTS`.
pub(crate) fn label_set() -> impl Strategy<Value = BTreeMap<String, String>> {
    let fillers = prop_oneof![3 => Just(0_usize), 1 => 0..50_usize];
    (prop::collection::btree_map(key(), value(), 0..10), fillers).prop_map(|(mut set, fillers)| {
        for i in 0..fillers {
            set.insert(format!("example.com/filler-{i}"), format!("v{}", i % 3));
        }
        set
    })
}

pub(crate) fn requirement() -> impl Strategy<Value = SelectorRequirement> {
    requirement_over(
        key(),
        prop_oneof![
            3 => prop::collection::vec(value(), 1..5),
            1 => prop::collection::vec(value(), 1..30),
        ],
        // Small bounds so label values compare both ways, and every i64 so the bound's
        // text (string syntax and JSON) reads back equal at the ends of the range.
        prop_oneof![
            4 => -20_i64..20,
            1 => any::<i64>(),
            1 => Just(i64::MIN),
            1 => Just(i64::MAX)
        ],
    )
}

/// A requirement on a key from `key` with any operator: the values from `values` for
/// `In` and `NotIn`, the bound from `bound` for `Gt` and `Lt`.
pub(crate) fn requirement_over<K: AsRef<str>, V: AsRef<str>>(
    key: impl Strategy<Value = K>,
    values: impl Strategy<Value = Vec<V>>,
    bound: impl Strategy<Value = i64>,
) -> impl Strategy<Value = SelectorRequirement> {
    let op = prop::sample::select(&SelectorOperator::ALL[..]);
    (key, op, values, bound).prop_map(|(k, op, vals, n)| {
        let k = k.as_ref();
        match op {
            SelectorOperator::In | SelectorOperator::NotIn => {
                SelectorRequirement::new(k, op, vals.iter().map(AsRef::as_ref)).unwrap()
            }
            SelectorOperator::Gt => SelectorRequirement::gt(k, n).unwrap(),
            SelectorOperator::Lt => SelectorRequirement::lt(k, n).unwrap(),
            _ => SelectorRequirement::new(k, op, [""; 0]).unwrap(),
        }
    })
}

/// A selector and the plain parts it was built from.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) selector: LabelSelector,
    pub(crate) match_labels: BTreeMap<String, String>,
    pub(crate) reqs: Vec<SelectorRequirement>,
}

impl Case {
    fn new(match_labels: BTreeMap<String, String>, reqs: Vec<SelectorRequirement>) -> Self {
        let selector =
            LabelSelector::from_parts(&Labels::try_from(match_labels.clone()).unwrap(), &reqs)
                .unwrap();
        Self {
            selector,
            match_labels,
            reqs,
        }
    }

    /// Whether `labels` match, by [`reference`].
    pub(crate) fn holds(&self, labels: &BTreeMap<String, String>) -> bool {
        reference(&self.match_labels, &self.reqs, labels)
    }
}

/// A selector of up to `labels` `matchLabels` entries and `reqs` expressions.
pub(crate) fn case_sized(labels: usize, reqs: usize) -> impl Strategy<Value = Case> {
    (
        prop::collection::btree_map(key(), value(), 0..=labels),
        prop::collection::vec(requirement(), 0..=reqs),
    )
        .prop_map(|(match_labels, reqs)| Case::new(match_labels, reqs))
}

/// A selector with `matchLabels` drawn like a label set (large ones too) and up to 5
/// expressions.
pub(crate) fn case() -> impl Strategy<Value = Case> {
    (label_set(), prop::collection::vec(requirement(), 0..6))
        .prop_map(|(match_labels, reqs)| Case::new(match_labels, reqs))
}

/// The semantics, written as plainly as possible.
pub(crate) fn reference(
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
