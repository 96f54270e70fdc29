//! The runner index: it returns exactly what a linear scan with `matches` returns, in id
//! order, through any sequence of batches; readers never see half a batch; errors leave the
//! index unchanged; and what an entry costs in memory.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use std::{
    collections::BTreeMap,
    sync::atomic::{AtomicBool, Ordering},
};

use model_ids::RunnerId;
use model_selector::{
    Batch, CHUNK_CAPACITY, CHUNK_TERM_CAPACITY, LabelSelector, Labels, MAX_BATCH_OPS, RunnerIndex,
    SelectorError, SelectorRequirement, Snapshot,
};
use proptest::prelude::*;

mod common;

const KEYS: [&str; 6] = [
    "zone",
    "gpu",
    "tier",
    "draining",
    "cores",
    "kubernetes.io/hostname",
];
const VALUES: [&str; 8] = [
    "",
    "eu",
    "us",
    "h100",
    "a100",
    "8",
    "16",
    "a-rather-long-value",
];

/// A small deterministic generator (splitmix64) for fleets bigger than proptest likes to shrink.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let out = model_ids::hash::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

type Model = BTreeMap<String, (Labels, u32)>;

/// Some of `KEYS`, and for one runner in four up to 50 more labels whose values are
/// (nearly) unique, so chunks also fill up by terms before they fill up by entries.
fn random_labels(rng: &mut Rng) -> Labels {
    let mut labels = Labels::new();
    for key in KEYS {
        if rng.below(3) > 0 {
            labels.insert(key, VALUES[rng.below(VALUES.len())]).unwrap();
        }
    }
    if rng.below(4) == 0 {
        for k in 0..rng.below(51) {
            let value = format!("v{}", rng.below(1_000_000));
            labels.insert(format!("unique-{k:02}"), value).unwrap();
        }
    }
    labels
}

fn id(n: usize) -> RunnerId {
    RunnerId::new(format!("r{n:05}")).unwrap()
}

fn requirement() -> impl Strategy<Value = SelectorRequirement> {
    common::requirement_over(
        prop::sample::select(&KEYS[..]),
        prop::collection::vec(prop::sample::select(&VALUES[..]), 1..4),
        0_i64..20,
    )
}

fn selector() -> impl Strategy<Value = LabelSelector> {
    let label = (
        prop::sample::select(&KEYS[..]),
        prop::sample::select(&VALUES[..]),
    );
    (
        prop::collection::btree_map(label.0, label.1, 0..3),
        prop::collection::vec(requirement(), 0..4),
    )
        .prop_map(|(ml, reqs)| {
            LabelSelector::from_parts(&Labels::from_pairs(ml).unwrap(), &reqs).unwrap()
        })
}

/// The index agrees with the model: same entries in the same order, and every selector
/// selects what a linear scan with `matches` selects.
fn check(snapshot: &Snapshot<u32>, model: &Model, selectors: &[LabelSelector]) {
    assert_eq!(snapshot.len(), model.len());
    let got: Vec<(&str, &Labels, u32)> = snapshot
        .iter()
        .map(|e| (e.id().as_ref(), e.labels(), *e.payload()))
        .collect();
    let want: Vec<(&str, &Labels, u32)> = model
        .iter()
        .map(|(id, (labels, p))| (id.as_str(), labels, *p))
        .collect();
    assert_eq!(got, want);
    for sel in selectors {
        let got: Vec<&str> = snapshot.select(sel).map(|e| e.id().as_ref()).collect();
        let want: Vec<&str> = model
            .iter()
            .filter(|(_, (labels, _))| sel.matches(labels))
            .map(|(id, _)| id.as_str())
            .collect();
        assert_eq!(got, want, "selector {sel}");
        assert_eq!(snapshot.count(sel), want.len(), "count {sel}");
        // Internal iteration (fold), from the start and after a partial `next`.
        let mut folded = Vec::new();
        snapshot
            .select(sel)
            .for_each(|e| folded.push(e.id().as_ref()));
        assert_eq!(folded, want, "for_each {sel}");
        let mut it = snapshot.select(sel);
        let first = it.next().map(|e| e.id().as_ref());
        let mut rest: Vec<&str> = first.into_iter().collect();
        it.for_each(|e| rest.push(e.id().as_ref()));
        assert_eq!(rest, want, "next then for_each {sel}");
    }
    for (id, (labels, p)) in model.iter().take(5) {
        let e = snapshot.get(id).unwrap();
        assert_eq!((e.labels(), *e.payload()), (labels, *p));
    }
    assert!(snapshot.get("absent").is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn index_agrees_with_a_linear_scan(
        seed in any::<u64>(),
        initial in 0..(3 * CHUNK_CAPACITY),
        batches in prop::collection::vec(0..800_usize, 1..4),
        selectors in prop::collection::vec(selector(), 1..6),
    ) {
        let mut rng = Rng(seed);
        let mut model = Model::new();
        let space = 4 * CHUNK_CAPACITY;
        while model.len() < initial {
            let n = rng.below(space);
            model.insert(id(n).to_string(), (random_labels(&mut rng), rng.next() as u32));
        }
        let index = RunnerIndex::new();
        index
            .replace_all(model.iter().map(|(k, (l, p))| (RunnerId::new(k).unwrap(), l.clone(), *p)))
            .unwrap();
        check(&index.snapshot(), &model, &selectors);
        for ops in batches {
            let mut batch = Batch::new();
            // Registers and removals cluster on a random stretch of ids, so chunks both
            // split and empty out.
            let base = rng.below(space);
            for _ in 0..ops {
                let n = (base + rng.below(CHUNK_CAPACITY)) % space;
                let key = id(n).to_string();
                match (model.contains_key(&key), rng.below(3)) {
                    (false, _) => {
                        let (labels, p) = (random_labels(&mut rng), rng.next() as u32);
                        batch.register(id(n), labels.clone(), p);
                        model.insert(key, (labels, p));
                    }
                    (true, 0) => {
                        batch.remove(id(n));
                        model.remove(&key);
                    }
                    (true, _) => {
                        let (labels, p) = (random_labels(&mut rng), rng.next() as u32);
                        batch.update(id(n), labels.clone(), p);
                        model.insert(key, (labels, p));
                    }
                }
            }
            index.apply(batch).unwrap();
            check(&index.snapshot(), &model, &selectors);
        }
    }
}

#[test]
fn a_failed_batch_changes_nothing() {
    let index = RunnerIndex::new();
    let labels = Labels::from_pairs([("zone", "eu")]).unwrap();
    let mut batch = Batch::new();
    batch
        .register(id(1), labels.clone(), 1)
        .register(id(2), labels.clone(), 2);
    index.apply(batch).unwrap();

    let mut batch = Batch::new();
    batch.remove(id(1)).register(id(2), labels.clone(), 3);
    let err = index.apply(batch).unwrap_err();
    assert!(
        matches!(&err, SelectorError::RunnerExists { path, id } if path == "[1]" && id.as_ref() == "r00002")
    );
    assert_eq!(
        err.to_string(),
        r#"[1]: runner "r00002" is already registered"#
    );

    let mut batch = Batch::new();
    batch
        .update(id(1), labels.clone(), 9)
        .update(id(7), labels.clone(), 9);
    let err = index.apply(batch).unwrap_err();
    assert!(
        matches!(&err, SelectorError::UnknownRunner { path, id } if path == "[1]" && id.as_ref() == "r00007")
    );

    let mut batch = Batch::new();
    batch.remove(id(1)).remove(id(1));
    assert!(
        matches!(index.apply(batch), Err(SelectorError::UnknownRunner { path, .. }) if path == "[1]")
    );

    let payloads: Vec<u32> = index.snapshot().iter().map(|e| *e.payload()).collect();
    assert_eq!(payloads, [1, 2]);
}

#[test]
fn limits_are_typed_errors() {
    let labels = Labels::new();
    let mut batch = Batch::<()>::new();
    for _ in 0..=MAX_BATCH_OPS {
        batch.remove(id(1));
    }
    assert_eq!(batch.len(), MAX_BATCH_OPS + 1);
    let err = RunnerIndex::new().apply(batch).unwrap_err();
    assert!(matches!(
        err,
        SelectorError::TooMany {
            what: "batch operations",
            limit: MAX_BATCH_OPS,
            ..
        }
    ));

    let err = Snapshot::from_entries([
        (id(3), labels.clone(), ()),
        (id(1), labels.clone(), ()),
        (id(3), labels, ()),
    ])
    .unwrap_err();
    assert!(
        matches!(&err, SelectorError::RunnerExists { path, id } if path == "[2]" && id.as_ref() == "r00003")
    );
}

#[test]
fn readers_never_see_half_a_batch() {
    const GROUPS: usize = 12;
    const GROUP: usize = 100;
    const BATCHES: usize = 150;
    let color =
        |red: bool| Labels::from_pairs([("color", if red { "red" } else { "blue" })]).unwrap();
    // Group g holds runners g, g + GROUPS, g + 2 GROUPS, ...: spread over every chunk.
    let index = RunnerIndex::new();
    index
        .replace_all((0..GROUPS * GROUP).map(|n| (id(n), color(false), n % GROUPS)))
        .unwrap();
    let red: LabelSelector = "color=red".parse().unwrap();
    let all = LabelSelector::new();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut seen = 0;
                while !done.load(Ordering::Acquire) || seen == 0 {
                    let snap = index.load();
                    let count = snap.count(&red);
                    assert_eq!(count % GROUP, 0, "half a batch: {count} red");
                    assert_eq!(snap.len(), GROUPS * GROUP);
                    assert_eq!(snap.count(&all), GROUPS * GROUP);
                    // Within one snapshot, every red runner's group is entirely red.
                    let groups: Vec<usize> = snap.select(&red).map(|e| *e.payload()).collect();
                    assert_eq!(groups.len(), count);
                    for g in 0..GROUPS {
                        let n = groups.iter().filter(|&&x| x == g).count();
                        assert!(n == 0 || n == GROUP, "group {g}: {n} red");
                    }
                    seen += 1;
                }
            });
        }
        s.spawn(|| {
            let mut red_now = [false; GROUPS];
            for k in 0..BATCHES {
                let g = k % GROUPS;
                red_now[g] = !red_now[g];
                let mut batch = Batch::new();
                for n in (g..GROUPS * GROUP).step_by(GROUPS) {
                    if k % 3 == 0 {
                        // Remove and register again: the entry count must not dip either.
                        batch.remove(id(n)).register(id(n), color(red_now[g]), g);
                    } else {
                        batch.update(id(n), color(red_now[g]), g);
                    }
                }
                index.apply(batch).unwrap();
            }
            done.store(true, Ordering::Release);
        });
    });
    let reds = index.snapshot().count(&red);
    assert_eq!(reds, count_red(BATCHES, GROUPS) * GROUP);
}

/// How many groups are red after `batches` flips that go round `groups` groups.
fn count_red(batches: usize, groups: usize) -> usize {
    (0..groups)
        .filter(|g| (batches + groups - 1 - g) / groups % 2 == 1)
        .count()
}

/// Bytes allocated per entry for a fleet of 8-label runners like the benchmarks' (zone from
/// 10 values, gpu from 4, rack from 50, ...), measured with a counting allocator. The limit
/// is loose; the measured number is printed for docs/performance.md.
#[test]
fn memory_per_entry() {
    let n = 100_000;
    let mut rng = Rng(7);
    let fleet: Vec<(RunnerId, Labels, ())> = (0..n)
        .map(|i| {
            let labels = Labels::from_pairs([
                ("zone", format!("z{}", rng.below(10))),
                ("gpu", ["a100", "h100", "l4", "t4"][rng.below(4)].to_owned()),
                ("tier", ["prod", "spot"][rng.below(2)].to_owned()),
                ("ssd", "true".to_owned()),
                ("arch", "amd64".to_owned()),
                ("os", "linux".to_owned()),
                ("team", format!("t{}", rng.below(8))),
                ("rack", format!("r{}", rng.below(50))),
            ])
            .unwrap();
            (RunnerId::new(format!("runner-{i:06}")).unwrap(), labels, ())
        })
        .collect();
    // The labels' own heap (their arena and entry table), without the vector holding them.
    let labels_only = allocation_counter::measure(|| {
        let copy: Vec<Labels> = fleet.iter().map(|e| e.1.clone()).collect();
        std::hint::black_box(copy);
    });
    let labels = (labels_only.bytes_max as f64) / n as f64 - std::mem::size_of::<Labels>() as f64;
    let mut snapshot = None;
    let whole = allocation_counter::measure(|| {
        snapshot = Some(Snapshot::from_entries(fleet.clone()).unwrap());
    });
    let per_entry = whole.bytes_current as f64 / n as f64;
    let index = per_entry - labels;
    println!(
        "bytes per entry: {per_entry:.1} in all: labels' heap {labels:.1}, index {index:.1} \
         (id pointer, shared labels box, payload, postings; the id string is shared with the caller)"
    );
    assert!(index < 200.0, "{index} index bytes per entry");
    assert_eq!(snapshot.map(|s| s.len()), Some(n));
}

/// 64 labels whose values are unique to runner `n` and `generation` (the first, `zone`,
/// from ten values).
fn unique_labels(n: usize, generation: u32) -> Labels {
    let mut pairs = vec![("zone".to_owned(), format!("z{}", n % 10))];
    for k in 1..64 {
        pairs.push((
            format!("label-{k:02}"),
            format!("r{n:06}-g{generation}-{k:02}"),
        ));
    }
    Labels::from_pairs(pairs).unwrap()
}

/// One change to a fleet whose label values are unique to each runner allocates a bounded
/// copy of one chunk (its terms are bounded by `CHUNK_TERM_CAPACITY`), not a copy that grows
/// with the terms of up to `CHUNK_CAPACITY` runners.
#[test]
fn one_change_copies_a_bounded_chunk() {
    let n = 3_000;
    let mut built = None;
    let whole = allocation_counter::measure(|| {
        built =
            Some(Snapshot::from_entries((0..n).map(|i| (id(i), unique_labels(i, 0), ()))).unwrap());
    });
    let snapshot = built.unwrap();
    println!(
        "64 unique labels: {:.0} bytes per entry in all (labels included)",
        whole.bytes_current as f64 / n as f64
    );
    let zone: LabelSelector = "zone=z3".parse().unwrap();
    assert_eq!(snapshot.count(&zone), n / 10);
    // A runner's labels alone: what a change must at least bring in.
    let labels_bytes = allocation_counter::measure(|| {
        std::hint::black_box(unique_labels(1, 1));
    })
    .bytes_total;
    // A chunk holds at most CHUNK_TERM_CAPACITY terms, each a 20-byte entry and two 2-byte
    // table slots (their text is shared with the original chunk, but for a tail of at most
    // 16 KiB); its entries add an id, a labels box and a payload each; 64 keys take bitmaps.
    // Twice that, for the vectors' spare room.
    let bound = 2 * (CHUNK_TERM_CAPACITY * (20 + 4) + CHUNK_CAPACITY * 16 + 64 * 128 + 16 * 1024);
    for (name, batch) in [
        ("update", {
            let mut b = Batch::new();
            b.update(id(1234), unique_labels(1234, 1), ());
            b
        }),
        ("register", {
            let mut b = Batch::new();
            b.register(
                RunnerId::new("r01234-new").unwrap(),
                unique_labels(1234, 2),
                (),
            );
            b
        }),
        ("remove", {
            let mut b = Batch::new();
            b.remove(id(1234));
            b
        }),
    ] {
        let mut next = None;
        let cost = allocation_counter::measure(|| {
            next = Some(snapshot.with_batch(batch).unwrap());
        });
        let copied = cost.bytes_total.saturating_sub(labels_bytes) as usize;
        println!("{name}: {copied} bytes allocated");
        assert!(copied < bound, "{name}: {copied} bytes, bound {bound}");
        let next = next.unwrap();
        let scan = next.iter().filter(|e| zone.matches(e.labels())).count();
        assert_eq!(next.count(&zone), scan, "{name}");
    }
}
