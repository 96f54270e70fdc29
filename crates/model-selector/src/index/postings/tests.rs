//! Unit tests of a chunk's postings: fingerprints, and every operation against a model of
//! plain sets, through growth, removal (the table's backward shift) and the move between
//! inline positions and bitmaps.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::*;
use crate::index::{CHUNK_CAPACITY, bits::is_zero};

#[test]
fn fingerprints_separate_key_value_boundaries() {
    // The separator keeps `ab=c` and `a=bc` apart, and a key term apart from a pair.
    assert_ne!(fingerprint("ab", Some("c")), fingerprint("a", Some("bc")));
    assert_ne!(fingerprint("a", Some("")), fingerprint("a", None));
    assert_eq!(
        fingerprint("zone", Some("eu")),
        fingerprint("zone", Some("eu"))
    );
}

/// The positions `postings` hold for `probe`, sorted.
fn positions_of(postings: &Postings, probe: &Probe<'_>) -> BTreeSet<u16> {
    match postings.get(probe) {
        None => BTreeSet::new(),
        Some(Found::Few(at)) => at.iter().copied().collect(),
        Some(Found::Many(bits)) => super::positions(bits).collect(),
    }
}

type Model = BTreeMap<(String, Option<String>), BTreeSet<u16>>;

/// `postings` hold exactly `model`: every term's positions, and no other term.
fn check(postings: &Postings, model: &Model) -> Result<(), TestCaseError> {
    let live = model.values().filter(|p| !p.is_empty()).count();
    prop_assert_eq!(postings.len(), live);
    for ((key, value), want) in model {
        let probe = Probe::new(key, value.as_deref());
        prop_assert_eq!(&positions_of(postings, &probe), want, "{} {:?}", key, value);
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Op {
    Add(usize, bool, u16),
    Remove(usize, bool, u16),
    ShiftUp(u16),
    ShiftDown(u16),
}

fn op() -> impl Strategy<Value = Op> {
    let term = (0..40_usize, any::<bool>());
    prop_oneof![
        4 => (term.clone(), 0..12_u16).prop_map(|((k, v), p)| Op::Add(k, v, p)),
        3 => (term, 0..12_u16).prop_map(|((k, v), p)| Op::Remove(k, v, p)),
        1 => (0..12_u16).prop_map(Op::ShiftUp),
        1 => (0..12_u16).prop_map(Op::ShiftDown),
    ]
}

/// Term `k` (a label when `valued`): keys and values of several lengths.
fn term(k: usize, valued: bool) -> (String, Option<String>) {
    let key = format!("key-{}{}", k % 7, "x".repeat(k % 5));
    let value = valued.then(|| format!("v{}", k / 7));
    (key, value)
}

proptest! {
    #[test]
    fn postings_agree_with_a_model(ops in prop::collection::vec(op(), 0..300)) {
        let mut postings = Postings::default();
        let mut model = Model::new();
        for op in ops {
            match op {
                Op::Add(k, v, p) => {
                    let (key, value) = term(k, v);
                    postings.add(&Probe::new(&key, value.as_deref()), usize::from(p));
                    model.entry((key, value)).or_default().insert(p);
                }
                Op::Remove(k, v, p) => {
                    let (key, value) = term(k, v);
                    postings.remove(&Probe::new(&key, value.as_deref()), usize::from(p));
                    if let Some(set) = model.get_mut(&(key, value)) {
                        set.remove(&p);
                    }
                }
                Op::ShiftUp(at) => {
                    postings.shift_up(usize::from(at));
                    for set in model.values_mut() {
                        *set = set.iter().map(|&p| if p >= at { p + 1 } else { p }).collect();
                    }
                }
                Op::ShiftDown(at) => {
                    // The caller clears the position first.
                    for ((key, value), set) in model.iter_mut() {
                        if set.remove(&at) {
                            postings.remove(&Probe::new(key, value.as_deref()), usize::from(at));
                        }
                    }
                    postings.shift_down(usize::from(at));
                    for set in model.values_mut() {
                        *set = set.iter().map(|&p| if p > at { p - 1 } else { p }).collect();
                    }
                }
            }
            check(&postings, &model)?;
        }
        // A copy holds the same.
        check(&postings.clone(), &model)?;
    }
}

#[test]
fn many_terms_grow_the_table_and_all_leave_again() {
    let terms: Vec<(String, Option<String>)> = (0..2000)
        .flat_map(|i| {
            [
                (format!("k{}", i % 64), Some(format!("v{i}"))),
                (format!("k{}", i % 64), None),
            ]
        })
        .collect();
    let mut postings = Postings::default();
    for (i, (key, value)) in terms.iter().enumerate() {
        postings.add(&Probe::new(key, value.as_deref()), i % CHUNK_CAPACITY);
    }
    assert_eq!(postings.len(), 2000 + 64);
    for (i, (key, value)) in terms.iter().enumerate() {
        postings.remove(&Probe::new(key, value.as_deref()), i % CHUNK_CAPACITY);
    }
    assert_eq!(postings.len(), 0);
    assert!(postings.get(&Probe::new("k1", None)).is_none());
    // Removed text is reclaimed along the way.
    assert!(
        postings.text.len() <= 16 * 1024 + 64,
        "{}",
        postings.text.len()
    );
}

#[test]
fn a_posting_moves_to_a_bitmap_past_few_and_back() {
    let mut postings = Postings::default();
    let zone = Probe::new("zone", Some("eu"));
    for pos in [9, 3, 700, 64] {
        postings.add(&zone, pos);
    }
    assert!(matches!(postings.get(&zone), Some(Found::Many(_))));
    assert_eq!(
        positions_of(&postings, &zone),
        BTreeSet::from([3, 9, 64, 700])
    );
    postings.remove(&zone, 700);
    assert!(matches!(postings.get(&zone), Some(Found::Few(_))));
    assert_eq!(positions_of(&postings, &zone), BTreeSet::from([3, 9, 64]));
    // The bitmap is free again, and zeroed for its next term.
    assert_eq!(postings.free.len(), 1);
    assert!(postings.dense.iter().all(is_zero));
}

#[test]
fn a_term_is_twenty_bytes() {
    // What a chunk copy costs per term (plus its text and two table slots).
    assert_eq!(std::mem::size_of::<Term>(), 20);
}
