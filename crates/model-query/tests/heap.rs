//! The evaluation selects a page without sorting or collecting its input.
//!
//! What these tests show, through the public API only:
//! - memory: at most `limit + 2` input items are alive at any moment while the page is
//!   chosen from 50,000, so the input is never collected, let alone sorted;
//! - time: the number of sort-key reads grows with log(limit), not log(n), and stays far
//!   below the comparisons any comparison sort of n items needs (log2(n!)).
//!
//! They count key reads (`created_at` calls), which bounds comparisons from above only
//! in the sense that every comparison reads both keys; they do not time anything.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

mod common;

use std::cell::Cell;

use chrono::{DateTime, Utc};
use model_ids::{Slot, TaskId, TenantId};
use model_query::{Queryable, SortOrder, TaskQuery};
use model_selector::Labels;
use model_task::TaskPhase;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static KEY_READS: Cell<usize> = const { Cell::new(0) };
}

/// A task that counts how many of its kind are alive and how often its key is read.
struct Tracked(common::Row);

impl Tracked {
    fn new(row: common::Row) -> Self {
        LIVE.with(|live| {
            live.set(live.get() + 1);
            PEAK.with(|peak| peak.set(peak.get().max(live.get())));
        });
        Tracked(row)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        LIVE.with(|live| live.set(live.get() - 1));
    }
}

impl Queryable for Tracked {
    fn tenant(&self) -> &TenantId {
        &self.0.tenant
    }
    fn id(&self) -> &TaskId {
        &self.0.id
    }
    fn created_at(&self) -> DateTime<Utc> {
        KEY_READS.with(|n| n.set(n.get() + 1));
        self.0.created_at
    }
    fn updated_at(&self) -> DateTime<Utc> {
        self.0.updated_at
    }
    fn slot(&self) -> &Slot {
        &self.0.slot
    }
    fn phase(&self) -> TaskPhase {
        self.0.phase
    }
    fn labels(&self) -> &Labels {
        &self.0.labels
    }
}

fn reset() {
    LIVE.with(|c| c.set(0));
    PEAK.with(|c| c.set(0));
    KEY_READS.with(|c| c.set(0));
}

/// n tasks created lazily, newest first (the worst case for an ascending page: every
/// task beats the heap's current top and enters it).
fn newest_first(n: u32) -> impl Iterator<Item = Tracked> {
    (0..n)
        .rev()
        .map(|i| Tracked::new(common::row(i, i64::from(i), "a", TaskPhase::Running, "eu")))
}

/// Key reads to evaluate a page of `limit` over `n` tasks, newest first.
fn key_reads(n: u32, limit: u32) -> usize {
    reset();
    let query = TaskQuery::builder(common::tenant())
        .limit(limit)
        .order(SortOrder::Ascending)
        .build()
        .unwrap();
    let page = query.evaluate(newest_first(n));
    assert_eq!(page.items.len(), limit as usize);
    KEY_READS.with(Cell::get)
}

#[test]
fn holds_at_most_limit_plus_two_items_at_once() {
    for limit in [1, 10, 100] {
        reset();
        let query = TaskQuery::builder(common::tenant())
            .limit(limit)
            .build()
            .unwrap();
        let page = query.evaluate(newest_first(50_000));
        assert_eq!(page.items.len(), limit as usize);
        assert_eq!(page.items[0].0.id.as_str(), "t0");
        let peak = PEAK.with(Cell::get);
        assert!(
            peak <= limit as usize + 2,
            "limit {limit}: {peak} items alive at once"
        );
        drop(page);
        assert_eq!(LIVE.with(Cell::get), 0);
    }
}

/// The most key reads per task the worst case (every task enters the heap) may take:
/// one for the creation-time filter, two for the comparison with the heap's top, and a
/// sift-down of ceil(log2(limit + 1)) levels with two comparisons (four reads) each, plus
/// one for the final sort of the page and start-up.
fn worst_case_reads_per_task(limit: u32) -> f64 {
    let levels = f64::from(limit + 1).log2().ceil();
    3.0 + 4.0 * levels + 1.0
}

#[test]
fn key_reads_grow_with_log_limit_not_log_n() {
    let n = 50_000u32;
    for limit in [2, 10, 100, 1000] {
        let per_task = key_reads(n, limit) as f64 / f64::from(n);
        let bound = worst_case_reads_per_task(limit);
        assert!(
            per_task <= bound,
            "limit {limit}: {per_task:.1} reads per task > {bound}"
        );
    }
    // Quadrupling n with a fixed limit quadruples the work (linear in n, no log n factor).
    let ratio = key_reads(4 * n, 10) as f64 / key_reads(n, 10) as f64;
    assert!((3.8..4.2).contains(&ratio), "ratio {ratio:.2}");
    // With a small page, fewer key reads than the comparisons any comparison sort of the
    // n tasks needs (log2(n!), about 708,000 for n = 50,000), each of which reads two keys.
    let sort_lower_bound: f64 = (1..=n).map(|i| f64::from(i).log2()).sum();
    let reads = key_reads(n, 2) as f64;
    assert!(
        reads < sort_lower_bound,
        "{reads} key reads vs {sort_lower_bound:.0} comparisons"
    );
}

#[test]
fn sorted_input_is_one_comparison_per_task() {
    // Oldest first: once the heap is full every task loses to its top at the first
    // comparison and the filters are not even evaluated.
    reset();
    let n = 50_000u32;
    let query = TaskQuery::builder(common::tenant())
        .limit(10)
        .build()
        .unwrap();
    let page =
        query
            .evaluate((0..n).map(|i| {
                Tracked::new(common::row(i, i64::from(i), "a", TaskPhase::Running, "eu"))
            }));
    assert_eq!(page.items.len(), 10);
    let reads = KEY_READS.with(Cell::get);
    assert!(reads < 3 * n as usize, "{reads} key reads for {n} tasks");
}
