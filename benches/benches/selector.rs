//! Selector matching and parsing (docs/performance.md, "Selectors"): the matching cases on
//! three label sets (L8, short keys; L16 and L32, real node labels with long prefixed keys),
//! and parsing the string syntax (P, P5), side by side with solti-model and kube-core under
//! `--features compare`; and the selector index at 100,000 stored selectors, side by side
//! with testing every selector.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "fixtures are constants; a broken one should stop the run"
)]

use std::hint::black_box;

use std::collections::BTreeMap;

use benches::Rng;
use criterion::{Criterion, criterion_group, criterion_main};
use model_selector::{LabelSelector, Labels, SelectorIndex};

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

/// L16, a GKE GPU node: the labels the kubelet sets, GKE's, NVIDIA GPU feature discovery's
/// and one of the operator's own.
const L16: &[(&str, &str)] = &[
    ("kubernetes.io/arch", "amd64"),
    ("kubernetes.io/os", "linux"),
    ("kubernetes.io/hostname", "gke-ml-a100-5f2c9e1b-x7kq"),
    ("node.kubernetes.io/instance-type", "a2-highgpu-8g"),
    ("topology.kubernetes.io/region", "us-central1"),
    ("topology.kubernetes.io/zone", "us-central1-a"),
    ("cloud.google.com/gke-nodepool", "a100-pool"),
    ("cloud.google.com/gke-accelerator", "nvidia-tesla-a100"),
    ("cloud.google.com/machine-family", "a2"),
    ("cloud.google.com/gke-os-distribution", "cos"),
    ("cloud.google.com/gke-boot-disk", "pd-balanced"),
    ("cloud.google.com/gke-container-runtime", "containerd"),
    ("cloud.google.com/gke-provisioning", "standard"),
    ("nvidia.com/gpu.present", "true"),
    ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
    ("acme.io/team", "ml-platform"),
];

/// L32, an EKS GPU node: the kubelet's labels (with the deprecated beta and failure-domain
/// copies many clusters still carry), EKS's, the EBS CSI driver's, NVIDIA GPU feature
/// discovery's and two of the operator's own.
const L32: &[(&str, &str)] = &[
    ("kubernetes.io/arch", "amd64"),
    ("kubernetes.io/os", "linux"),
    ("kubernetes.io/hostname", "ip-10-42-17-203"),
    ("beta.kubernetes.io/arch", "amd64"),
    ("beta.kubernetes.io/os", "linux"),
    ("beta.kubernetes.io/instance-type", "p4d.24xlarge"),
    ("node.kubernetes.io/instance-type", "p4d.24xlarge"),
    ("topology.kubernetes.io/region", "us-east-1"),
    ("topology.kubernetes.io/zone", "us-east-1a"),
    ("failure-domain.beta.kubernetes.io/region", "us-east-1"),
    ("failure-domain.beta.kubernetes.io/zone", "us-east-1a"),
    ("topology.k8s.aws/zone-id", "use1-az1"),
    ("topology.ebs.csi.aws.com/zone", "us-east-1a"),
    ("k8s.io/cloud-provider-aws", "5b8f3c2a9d1e4f60"),
    ("eks.amazonaws.com/nodegroup", "gpu-a100-ondemand"),
    ("eks.amazonaws.com/capacityType", "ON_DEMAND"),
    ("eks.amazonaws.com/nodegroup-image", "ami-0abcdef1234567890"),
    (
        "eks.amazonaws.com/sourceLaunchTemplateId",
        "lt-0123456789abcdef0",
    ),
    ("eks.amazonaws.com/sourceLaunchTemplateVersion", "3"),
    ("nvidia.com/gpu.present", "true"),
    ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"),
    ("nvidia.com/gpu.count", "8"),
    ("nvidia.com/gpu.memory", "81920"),
    ("nvidia.com/gpu.family", "ampere"),
    ("nvidia.com/gpu.machine", "p4d.24xlarge"),
    ("nvidia.com/gpu.compute.major", "8"),
    ("nvidia.com/cuda.driver.major", "535"),
    ("nvidia.com/cuda.runtime.major", "12"),
    ("nvidia.com/mig.capable", "true"),
    ("nvidia.com/gfd.timestamp", "1732233600"),
    ("acme.io/team", "ml-platform"),
    ("acme.io/cost-center", "cc-4711"),
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

/// Zones tasks ask for, the most asked first (GKE, EKS and Azure-style names).
const ZONES: &[&str] = &[
    "us-central1-a",
    "us-east-1b",
    "us-central1-b",
    "europe-west4-a",
    "us-west-2a",
    "us-central1-c",
    "europe-west4-b",
    "us-west-2b",
    "asia-northeast1-a",
    "us-east-1c",
    "us-central1-f",
    "us-east-1a",
];

/// GPU products tasks ask for (NVIDIA GPU feature discovery's `nvidia.com/gpu.product`),
/// the most asked first.
const GPUS: &[&str] = &[
    "NVIDIA-A100-SXM4-40GB",
    "NVIDIA-H100-80GB-HBM3",
    "NVIDIA-L4",
    "Tesla-T4",
    "NVIDIA-A10G",
    "NVIDIA-L40S",
    "NVIDIA-H200",
    "NVIDIA-A100-SXM4-80GB",
];

/// Instance-type families; a type is a family and a size.
const FAMILIES: &[&str] = &[
    "a2-highgpu-",
    "a3-highgpu-",
    "g2-standard-",
    "p4d.",
    "p5.",
    "g5.",
];
const SIZES: &[&str] = &[
    "1g", "2g", "4g", "8g", "24xlarge", "48xlarge", "xlarge", "2xlarge",
];

/// Draws index `i` of `n` with weight `1 / (i + 1)`: demand is skewed towards a few
/// popular zones, GPU types and teams, as in real queues.
fn skewed(rng: &mut Rng, n: usize) -> usize {
    let weights: Vec<f64> = (0..n).map(|i| 1.0 / (i + 1) as f64).collect();
    let total: f64 = weights.iter().sum();
    let mut at = rng.below(1 << 20) as f64 / f64::from(1 << 20) * total;
    for (i, w) in weights.iter().enumerate() {
        if at < *w {
            return i;
        }
        at -= w;
    }
    n - 1
}

/// One queued task's runner selector, from the mix of docs/performance.md ("Selector
/// index"): mostly one or two equalities over zones, GPU types and teams; some `In`,
/// `NotIn`, `Exists`, `Gt` and `DoesNotExist`; a few with nothing to index, empty ones
/// among them.
fn queued_selector(rng: &mut Rng, teams: &[String]) -> String {
    let zone = |rng: &mut Rng| {
        format!(
            "topology.kubernetes.io/zone={}",
            ZONES[skewed(rng, ZONES.len())]
        )
    };
    let gpu = |rng: &mut Rng| format!("nvidia.com/gpu.product={}", GPUS[skewed(rng, GPUS.len())]);
    let team = |rng: &mut Rng| format!("acme.io/team={}", teams[skewed(rng, teams.len())]);
    let family = |rng: &mut Rng| FAMILIES[skewed(rng, FAMILIES.len())];
    let sizes = |rng: &mut Rng, family: &str, n: usize| {
        let first = rng.below(SIZES.len());
        (0..n)
            .map(|i| format!("{family}{}", SIZES[(first + i) % SIZES.len()]))
            .collect::<Vec<_>>()
            .join(",")
    };
    match rng.below(1000) {
        0..330 => match rng.below(3) {
            0 => zone(rng),
            1 => gpu(rng),
            _ => team(rng),
        },
        330..660 => match rng.below(3) {
            0 => format!("{},{}", zone(rng), gpu(rng)),
            1 => format!("{},{}", team(rng), gpu(rng)),
            _ => format!("{},{}", zone(rng), team(rng)),
        },
        660..760 => {
            let a = GPUS[skewed(rng, GPUS.len())];
            let b = GPUS[skewed(rng, GPUS.len())];
            let c = GPUS[rng.below(GPUS.len())];
            let list = format!("nvidia.com/gpu.product in ({a},{b},{c})");
            if rng.below(2) == 0 {
                format!("{list},{}", team(rng))
            } else {
                list
            }
        }
        760..840 => {
            let f = family(rng);
            format!("node.kubernetes.io/instance-type in ({})", sizes(rng, f, 4))
        }
        840..890 => format!("{},!acme.io/draining", team(rng)),
        890..940 => format!("nvidia.com/gpu.present,{}", zone(rng)),
        940..950 => "nvidia.com/gpu.present".to_owned(),
        950..970 => {
            let f = family(rng);
            format!(
                "node.kubernetes.io/instance-type notin ({}),{}",
                sizes(rng, f, 2),
                team(rng)
            )
        }
        970..980 => format!("nvidia.com/gpu.count>3,{}", zone(rng)),
        980..990 => {
            let f = family(rng);
            format!(
                "node.kubernetes.io/instance-type notin ({})",
                sizes(rng, f, 2)
            )
        }
        990..997 => "!acme.io/draining".to_owned(),
        _ => String::new(),
    }
}

/// Stored selectors in the index benchmark.
const QUEUED: usize = 100_000;

fn selector_index(c: &mut Criterion) {
    let mut group = c.benchmark_group("selector-index");
    let teams: Vec<String> = ["ml-platform".to_owned()]
        .into_iter()
        .chain((1..39).map(|i| format!("team-{i:02}")))
        .chain(["batch-infra".to_owned()])
        .collect();
    let mut rng = Rng(15);
    let mut index = SelectorIndex::new();
    // The plain peer: every selector in key order, each tested.
    let mut scan = BTreeMap::new();
    for seq in 0..QUEUED as u32 {
        let sel: LabelSelector = queued_selector(&mut rng, &teams).parse().unwrap();
        // Queue order: priority class (most at the default), then arrival.
        let key = (3 - skewed(&mut rng, 4) as u8, seq);
        index.insert(key, &sel).unwrap();
        scan.insert(key, sel);
    }
    // A GKE A100 node of the most served team in the most asked zone; an EKS A100 node of
    // a team few tasks name, in a zone few ask for; and an Azure CPU node that only the
    // selectors naming no zone, GPU or team (and a few zone-only ones) can use.
    let mut rare: Vec<(&str, &str)> = L32.to_vec();
    for (k, v) in &mut rare {
        if *k == "acme.io/team" {
            *v = "batch-infra";
        }
    }
    let idle: &[(&str, &str)] = &[
        ("kubernetes.io/arch", "arm64"),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/hostname", "aks-arm-31415926-vmss000004"),
        ("node.kubernetes.io/instance-type", "Standard_D8ps_v5"),
        ("topology.kubernetes.io/region", "northeurope"),
        ("topology.kubernetes.io/zone", "northeurope-2"),
        ("kubernetes.azure.com/agentpool", "armpool"),
        ("kubernetes.azure.com/os-sku", "Ubuntu"),
        ("kubernetes.azure.com/mode", "user"),
        ("acme.io/team", "unlisted"),
    ];
    for (runner, pairs) in [("common", L16), ("rare", &rare[..]), ("idle", idle)] {
        let labels = Labels::from_pairs(pairs.iter().copied()).unwrap();
        let want: Vec<&(u8, u32)> = scan
            .iter()
            .filter(|(_, s)| s.matches(&labels))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(index.matching(&labels).collect::<Vec<_>>(), want);
        eprintln!(
            "selector-index {runner}: {} of {QUEUED} match, the first at position {}",
            want.len(),
            want.first().map_or(0, |k| scan.range(..**k).count())
        );
        group.bench_function(format!("{runner}-all/index"), |b| {
            b.iter(|| black_box(&index).matching(black_box(&labels)).count())
        });
        group.bench_function(format!("{runner}-all/scan"), |b| {
            b.iter(|| {
                black_box(&scan)
                    .iter()
                    .filter(|(_, s)| s.matches(black_box(&labels)))
                    .count()
            })
        });
        group.bench_function(format!("{runner}-first/index"), |b| {
            b.iter(|| {
                black_box(&index)
                    .first_matching(black_box(&labels))
                    .copied()
            })
        });
        group.bench_function(format!("{runner}-first/scan"), |b| {
            b.iter(|| {
                black_box(&scan)
                    .iter()
                    .find(|(_, s)| s.matches(black_box(&labels)))
                    .map(|(k, _)| *k)
            })
        });
    }
    // Writes: one selector replaced (removed and stored again) at 100,000.
    let sample: LabelSelector =
        "topology.kubernetes.io/zone=us-central1-a,nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
            .parse()
            .unwrap();
    group.bench_function("replace/index", |b| {
        b.iter(|| index.insert(black_box((0, 7)), black_box(&sample)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, selector, selector_index);
criterion_main!(benches);
