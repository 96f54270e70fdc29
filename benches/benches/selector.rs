//! Selector matching and parsing (docs/performance.md, "Selectors"): the matching cases on
//! three label sets (L8, short keys; L16 and L32, real node labels with long prefixed keys),
//! and parsing the string syntax (P, P5), side by side with solti-model and kube-core under
//! `--features compare`. The selector index has its own file, `selector_index.rs`.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "fixtures are constants; a broken one should stop the run"
)]

use std::hint::black_box;

use benches::nodes::{L16, L32};
use criterion::{Criterion, criterion_group, criterion_main};
use model_selector::{LabelSelector, Labels};

/// L8, the label set of a typical runner with short keys.
const L8: &[(&str, &str)] = &[
    ("zone", "eu"),
    ("gpu", "h100"),
    ("tier", "prod"),
    ("ssd", "true"),
    ("arch", "amd64"),
    ("os", "linux"),
    ("team", "infra"),
    ("rack", "r42"),
];

/// The matching cases on L8 as `metav1.LabelSelector` JSON, so every implementation gets
/// exactly the same selector.
fn l8_cases() -> Vec<(&'static str, String)> {
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

/// 64 instance types of GPU and general-purpose families, the node's own among them.
fn instance_types(families: &[&str], sizes: &[&str], separator: char) -> String {
    let types: Vec<String> = families
        .iter()
        .flat_map(|f| sizes.iter().map(move |s| format!("\"{f}{separator}{s}\"")))
        .collect();
    assert_eq!(types.len(), 64);
    types.join(",")
}

/// The matching cases on a node label set, as JSON: `zone`, `region`, `product`, `team` and
/// `missing_team` are the set's own values (the last one not the node's), `types` a 64-value
/// list holding the node's instance type.
struct Node {
    zone: &'static str,
    region: &'static str,
    instance_type: &'static str,
    other_type: &'static str,
    product: &'static str,
    types: String,
}

fn node_cases(n: &Node) -> Vec<(&'static str, String)> {
    let Node {
        zone,
        region,
        instance_type,
        other_type,
        product,
        types,
    } = n;
    vec![
        (
            "S1",
            format!(r#"{{"matchLabels":{{"topology.kubernetes.io/zone":"{zone}"}}}}"#),
        ),
        (
            "S3",
            format!(
                r#"{{"matchLabels":{{"topology.kubernetes.io/zone":"{zone}","nvidia.com/gpu.product":"{product}","acme.io/team":"ml-platform"}}}}"#
            ),
        ),
        (
            // The miss is on the key that sorts last, so each implementation checks the
            // other two first whatever order it checks in.
            "S3missLast",
            format!(
                r#"{{"matchLabels":{{"acme.io/team":"ml-platform","nvidia.com/gpu.product":"{product}","topology.kubernetes.io/zone":"{zone}x"}}}}"#
            ),
        ),
        (
            "E4",
            format!(
                r#"{{"matchExpressions":[
                {{"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-A100-SXM4-40GB","NVIDIA-A100-SXM4-80GB","NVIDIA-H100-80GB-HBM3"]}},
                {{"key":"node.kubernetes.io/instance-type","operator":"NotIn","values":["{other_type}"]}},
                {{"key":"nvidia.com/gpu.present","operator":"Exists"}},
                {{"key":"acme.io/draining","operator":"DoesNotExist"}}]}}"#
            ),
        ),
        (
            "M",
            format!(
                r#"{{"matchLabels":{{"kubernetes.io/arch":"amd64","topology.kubernetes.io/region":"{region}"}},"matchExpressions":[
                {{"key":"node.kubernetes.io/instance-type","operator":"In","values":["{instance_type}","{other_type}"]}},
                {{"key":"acme.io/draining","operator":"DoesNotExist"}}]}}"#
            ),
        ),
        (
            "E64",
            format!(
                r#"{{"matchExpressions":[{{"key":"node.kubernetes.io/instance-type","operator":"In","values":[{types}]}}]}}"#
            ),
        ),
    ]
}

/// A label set's name, its labels and its matching cases.
type Set = (
    &'static str,
    &'static [(&'static str, &'static str)],
    Vec<(&'static str, String)>,
);

/// The label sets and their cases.
fn sets() -> Vec<Set> {
    let gke = Node {
        zone: "us-central1-a",
        region: "us-central1",
        instance_type: "a2-highgpu-8g",
        other_type: "a2-ultragpu-8g",
        product: "NVIDIA-A100-SXM4-40GB",
        types: instance_types(
            &[
                "a2-highgpu",
                "a2-ultragpu",
                "a3-highgpu",
                "a3-megagpu",
                "g2-standard",
                "n1-standard",
                "n2-standard",
                "c3-standard",
            ],
            &["1g", "2g", "4g", "8g", "16", "32", "48", "96"],
            '-',
        ),
    };
    let eks = Node {
        zone: "us-east-1a",
        region: "us-east-1",
        instance_type: "p4d.24xlarge",
        other_type: "p5.48xlarge",
        product: "NVIDIA-A100-SXM4-80GB",
        types: instance_types(
            &["p3", "p4d", "p5", "g4dn", "g5", "g6", "g6e", "trn1"],
            &[
                "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
                "48xlarge",
            ],
            '.',
        ),
    };
    vec![
        ("L8", L8, l8_cases()),
        ("L16", L16, node_cases(&gke)),
        ("L32", L32, node_cases(&eks)),
    ]
}

const P: &str = "zone=eu,gpu in (a100,h100),!draining,ssd";

/// Five requirements with prefixed keys, as a task would write them for an EKS GPU node.
const P5: &str = "topology.kubernetes.io/zone in (us-east-1a,us-east-1b),nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB,eks.amazonaws.com/capacityType!=SPOT,!acme.io/draining,nvidia.com/gpu.present";

fn selector(c: &mut Criterion) {
    let mut group = c.benchmark_group("selector");
    for (set, pairs, cases) in sets() {
        let labels = Labels::from_pairs(pairs.iter().copied()).unwrap();
        assert_eq!(labels.len(), pairs.len());
        for (case, json) in cases {
            let name = format!("{set}-{case}");
            let sel: LabelSelector = serde_json::from_str(&json).unwrap();
            let expected = !case.contains("miss");
            assert_eq!(sel.matches(&labels), expected, "{name}");
            group.bench_function(format!("{name}/taskmodel"), |b| {
                b.iter(|| black_box(&sel).matches(black_box(&labels)))
            });
            #[cfg(feature = "compare")]
            peers::matching(&mut group, &name, pairs, &json, expected);
        }
    }
    for (name, text) in [("P", P), ("P5", P5)] {
        let parsed: LabelSelector = text.parse().unwrap();
        assert_eq!(parsed.len(), if name == "P" { 4 } else { 5 });
        group.bench_function(format!("{name}/taskmodel"), |b| {
            b.iter(|| black_box(text).parse::<LabelSelector>().unwrap())
        });
        #[cfg(feature = "compare")]
        peers::parsing(&mut group, name, text);
    }
    group.finish();
}

#[cfg(feature = "compare")]
mod peers {
    use std::{collections::BTreeMap, hint::black_box};

    use criterion::{BenchmarkGroup, measurement::WallTime};
    use kube_core::SelectorExt as _;

    pub(super) fn matching(
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        pairs: &[(&str, &str)],
        json: &str,
        expected: bool,
    ) {
        let mut solti_labels = solti_model::Labels::new();
        for (k, v) in pairs {
            solti_labels.insert(*k, *v);
        }
        let solti: solti_model::LabelSelector = serde_json::from_str(json).unwrap();
        solti.validate().unwrap();
        assert_eq!(solti.matches(&solti_labels), expected, "solti {name}");
        group.bench_function(format!("{name}/solti"), |b| {
            b.iter(|| black_box(&solti).matches(black_box(&solti_labels)))
        });

        let kube_labels: BTreeMap<String, String> = pairs
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

    pub(super) fn parsing(
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        text: &'static str,
    ) {
        let parsed: solti_model::LabelSelector = text.parse().unwrap();
        assert_eq!(
            parsed.match_expressions.len(),
            if name == "P" { 4 } else { 5 }
        );
        group.bench_function(format!("{name}/solti"), |b| {
            b.iter(|| {
                black_box(text)
                    .parse::<solti_model::LabelSelector>()
                    .unwrap()
            })
        });
    }
}

criterion_group!(benches, selector);
criterion_main!(benches);
