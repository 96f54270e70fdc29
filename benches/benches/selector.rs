//! Selector matching and parsing (docs/performance.md, "Selectors": cases S1 to P on the
//! label set L8), side by side with solti-model and kube-core under `--features compare`.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "fixtures are constants; a broken one should stop the run"
)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use model_selector::{LabelSelector, Labels};

/// L8, the label set of a typical runner.
const L8: [(&str, &str); 8] = [
    ("zone", "eu"),
    ("gpu", "h100"),
    ("tier", "prod"),
    ("ssd", "true"),
    ("arch", "amd64"),
    ("os", "linux"),
    ("team", "infra"),
    ("rack", "r42"),
];

/// The matching cases as `metav1.LabelSelector` JSON, so every implementation gets
/// exactly the same selector.
fn matching_cases() -> Vec<(&'static str, String)> {
    let e32_values: Vec<String> = (0..31)
        .map(|i| format!("\"a{i:03}\""))
        .chain(["\"h100\"".to_owned()])
        .collect();
    vec![
        ("S1", r#"{"matchLabels":{"zone":"eu"}}"#.to_owned()),
        (
            "S3",
            r#"{"matchLabels":{"zone":"eu","tier":"prod","arch":"amd64"}}"#.to_owned(),
        ),
        (
            "S3missLast",
            r#"{"matchLabels":{"zone":"us","tier":"prod","arch":"amd64"}}"#.to_owned(),
        ),
        (
            "E4",
            r#"{"matchExpressions":[
                {"key":"gpu","operator":"In","values":["a100","h100","l4"]},
                {"key":"tier","operator":"NotIn","values":["spot"]},
                {"key":"ssd","operator":"Exists"},
                {"key":"draining","operator":"DoesNotExist"}]}"#
                .to_owned(),
        ),
        (
            "E32",
            format!(
                r#"{{"matchExpressions":[{{"key":"gpu","operator":"In","values":[{}]}}]}}"#,
                e32_values.join(",")
            ),
        ),
        (
            "M",
            r#"{"matchLabels":{"zone":"eu","os":"linux"},"matchExpressions":[
                {"key":"gpu","operator":"In","values":["a100","h100"]},
                {"key":"draining","operator":"DoesNotExist"}]}"#
                .to_owned(),
        ),
    ]
}

const P: &str = "zone=eu,gpu in (a100,h100),!draining,ssd";

fn selector(c: &mut Criterion) {
    let mut group = c.benchmark_group("selector");
    let labels = Labels::from_pairs(L8).unwrap();
    for (name, json) in matching_cases() {
        let sel: LabelSelector = serde_json::from_str(&json).unwrap();
        let expected = !name.contains("miss");
        assert_eq!(sel.matches(&labels), expected, "{name}");
        group.bench_function(format!("{name}/taskmodel"), |b| {
            b.iter(|| black_box(&sel).matches(black_box(&labels)))
        });
        #[cfg(feature = "compare")]
        peers::matching(&mut group, name, &json, expected);
    }
    group.bench_function("P/taskmodel", |b| {
        b.iter(|| black_box(P).parse::<LabelSelector>().unwrap())
    });
    #[cfg(feature = "compare")]
    peers::parsing(&mut group);
    group.finish();
}

#[cfg(feature = "compare")]
mod peers {
    use std::{collections::BTreeMap, hint::black_box};

    use criterion::{BenchmarkGroup, measurement::WallTime};
    use kube_core::SelectorExt as _;

    use super::{L8, P};

    pub(super) fn matching(
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        json: &str,
        expected: bool,
    ) {
        let mut solti_labels = solti_model::Labels::new();
        for (k, v) in L8 {
            solti_labels.insert(k, v);
        }
        let solti: solti_model::LabelSelector = serde_json::from_str(json).unwrap();
        assert_eq!(solti.matches(&solti_labels), expected, "solti {name}");
        group.bench_function(format!("{name}/solti"), |b| {
            b.iter(|| black_box(&solti).matches(black_box(&solti_labels)))
        });

        let kube_labels: BTreeMap<String, String> = L8
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let wire: k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector =
            serde_json::from_str(json).unwrap();
        let kube = kube_core::Selector::try_from(wire).unwrap();
        assert_eq!(kube.matches(&kube_labels), expected, "kube {name}");
        group.bench_function(format!("{name}/kube"), |b| {
            b.iter(|| black_box(&kube).matches(black_box(&kube_labels)))
        });
    }

    pub(super) fn parsing(group: &mut BenchmarkGroup<'_, WallTime>) {
        group.bench_function("P/solti", |b| {
            b.iter(|| black_box(P).parse::<solti_model::LabelSelector>().unwrap())
        });
    }
}

criterion_group!(benches, selector);
criterion_main!(benches);
