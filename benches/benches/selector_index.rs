//! The selector index (docs/performance.md, "Selector index"): which of 100,000 stored
//! selectors from a realistic mix one runner's labels match, all of them and the first in key
//! order, side by side with testing every selector (and, for the first match, with a scan in
//! key order that stops at the first match), plus the cost of replacing one selector.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "fixtures are constants; a broken one should stop the run"
)]

use std::{collections::BTreeMap, hint::black_box};

use benches::{
    Rng,
    nodes::{L16, L32},
};
use criterion::{Criterion, criterion_group, criterion_main};
use model_selector::{LabelSelector, Labels, SelectorIndex};

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

/// The mix of docs/performance.md ("Selector index") with 40 teams, the case the targets
/// are set on; and the same mix with 1,000 teams, whose queue holds about ten times as many
/// distinct selectors.
fn selector_index(c: &mut Criterion) {
    mix(c, "selector-index", 40);
    mix(c, "selector-index-1000-teams", 1000);
}

fn mix(c: &mut Criterion, name: &str, team_count: usize) {
    let mut group = c.benchmark_group(name);
    // The most served team first, the rare one the `rare` runner belongs to last.
    let teams: Vec<String> = ["ml-platform".to_owned()]
        .into_iter()
        .chain((1..team_count - 1).map(|i| format!("team-{i:02}")))
        .chain(["batch-infra".to_owned()])
        .collect();
    let mut rng = Rng(15);
    let mut index = SelectorIndex::new();
    // The peers' queue: every selector in key order.
    let mut scan = BTreeMap::new();
    for seq in 0..QUEUED as u32 {
        let sel: LabelSelector = queued_selector(&mut rng, &teams).parse().unwrap();
        // Queue order: priority class (most at the default), then arrival.
        let key = (3 - skewed(&mut rng, 4) as u8, seq);
        index.insert(key, &sel).unwrap();
        scan.insert(key, sel);
    }
    let distinct: std::collections::BTreeSet<String> =
        scan.values().map(ToString::to_string).collect();
    eprintln!("{name}: {QUEUED} selectors, {} distinct", distinct.len());
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
        assert_eq!(index.first_matching(&labels), want.first().copied());
        eprintln!(
            "{name} {runner}: {} of {QUEUED} match, the first at position {}",
            want.len(),
            want.first().map_or(0, |k| scan.range(..**k).count())
        );
        // All matches: the index, and testing every selector (`every`).
        group.bench_function(format!("{runner}-all/index"), |b| {
            b.iter(|| black_box(&index).matching(black_box(&labels)).count())
        });
        group.bench_function(format!("{runner}-all/every"), |b| {
            b.iter(|| {
                black_box(&scan)
                    .iter()
                    .filter(|(_, s)| s.matches(black_box(&labels)))
                    .count()
            })
        });
        // What an all-matches query pays before its first key: the groups' tests and the
        // matched groups' slot masks gathered (`matching(labels).next()`).
        group.bench_function(format!("{runner}-next/index"), |b| {
            b.iter(|| {
                black_box(&index)
                    .matching(black_box(&labels))
                    .next()
                    .copied()
            })
        });
        // The first match in key order: the index; testing every selector and keeping the
        // smallest matching key (`every`); and a scan in key order that stops at the first
        // match (`scan`), which wins whenever a match sits near the head of the queue.
        group.bench_function(format!("{runner}-first/index"), |b| {
            b.iter(|| {
                black_box(&index)
                    .first_matching(black_box(&labels))
                    .copied()
            })
        });
        group.bench_function(format!("{runner}-first/every"), |b| {
            b.iter(|| {
                black_box(&scan)
                    .iter()
                    .filter(|(_, s)| s.matches(black_box(&labels)))
                    .map(|(k, _)| *k)
                    .min()
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

criterion_group!(benches, selector_index);
criterion_main!(benches);
