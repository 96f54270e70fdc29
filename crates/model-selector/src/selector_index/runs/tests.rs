//! Unit tests of `Runs` against a `BTreeMap`: the same entries in the same order through any
//! inserts and removes, runs never empty nor longer than `RUN`, room within a small factor of
//! the entries, and every entry's place what the caller was told (at insert and on each
//! move), each slot's rank its entry's position.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

/// Each key's place as the caller learns it: from `insert`, then from the moves.
type Told = BTreeMap<u32, Place>;

fn check(
    runs: &Runs<u32, u32>,
    model: &BTreeMap<u32, u32>,
    told: &Told,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(runs.len(), model.len());
    prop_assert_eq!(runs.is_empty(), model.is_empty());
    let got: Vec<(u32, u32)> = runs.iter().map(|(k, v)| (*k, *v)).collect();
    let want: Vec<(u32, u32)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    prop_assert_eq!(got, want);
    prop_assert_eq!(told.len(), model.len());
    let mut room = 0;
    let mut ids = std::collections::BTreeSet::new();
    for (bound, run) in &runs.runs {
        prop_assert!(run.len() > 0 && run.len() <= RUN);
        prop_assert_eq!(run.keys.len(), run.values.len());
        prop_assert_eq!(run.keys.len(), run.slots.len());
        prop_assert!(run.keys.iter().all(|k| k >= bound));
        prop_assert!(ids.insert(run.id), "run id {} twice", run.id);
        prop_assert_eq!(run.id(), run.id);
        prop_assert!((run.id as usize) < runs.id_bound());
        let mut used = 0_u128;
        for (at, key) in run.keys.iter().enumerate() {
            let place = run.place(at).unwrap_or(Place {
                run: u32::MAX,
                slot: 0,
            });
            prop_assert_eq!(told.get(key), Some(&place), "place of {}", key);
            prop_assert_eq!(run.positions(place.bit()), 1_u128 << at);
            used |= place.bit();
        }
        prop_assert_eq!(used, run.used);
        if let Some(shift) = run.shift {
            prop_assert!(
                run.slots
                    .iter()
                    .enumerate()
                    .all(|(at, &slot)| usize::from(slot) == at + usize::from(shift))
            );
        }
        if run.ordered {
            prop_assert!(run.slots.windows(2).all(|w| w[0] < w[1]), "{:?}", run.slots);
        }
        prop_assert_eq!(used.count_ones() as usize, run.len());
        room += run.keys.capacity().max(run.values.capacity());
    }
    // A short run either gave back its room or sits beside a run it could not join.
    prop_assert!(
        room <= 4 * model.len() + 2 * RUN,
        "room {} for {}",
        room,
        model.len()
    );
    Ok(())
}

fn told(told: &mut Told) -> impl FnMut(&u32, Place, Place) + '_ {
    |&key, from, to| {
        assert_eq!(told.insert(key, to), Some(from), "move of {key}");
    }
}

proptest! {
    #[test]
    fn agrees_with_a_btreemap(
        ops in prop::collection::vec((any::<bool>(), 0..2_000_u32), 0..3_000),
        descending in any::<bool>(),
    ) {
        // Each value is its key, so a move names the key that moved.
        let mut runs = Runs::default();
        let mut model = BTreeMap::new();
        let mut places = Told::new();
        let mut peak = 0;
        for (i, (insert, key)) in ops.into_iter().enumerate() {
            // Also keys that only go down, as a queue's earliest entries do.
            let key = if descending { 5_000 - key.min(i as u32) } else { key };
            if insert || i % 3 == 0 {
                let (old, place) = runs.insert(key, key, &mut told(&mut places));
                prop_assert_eq!(old, model.insert(key, key));
                if let Some(before) = places.insert(key, place) {
                    prop_assert_eq!(before, place, "a replaced entry stays put");
                }
            } else {
                let removed = runs.remove(&key, &mut told(&mut places));
                prop_assert_eq!(removed.map(|(v, _)| v), model.remove(&key));
                prop_assert_eq!(removed.map(|(_, p)| p), places.remove(&key));
            }
            prop_assert_eq!(runs.get(&key), model.get(&key));
            peak = peak.max(runs.runs.len());
        }
        // Run ids are reused: no more of them than the runs there ever were at once, and one
        // for a run being renumbered.
        prop_assert!(runs.id_bound() <= peak + 1, "{} ids for {} runs", runs.id_bound(), peak);
        check(&runs, &model, &places)?;
        let keys: Vec<u32> = model.keys().copied().collect();
        for (i, key) in keys.iter().enumerate() {
            let removed = runs.remove(key, &mut told(&mut places));
            prop_assert_eq!(removed.map(|(v, _)| v), model.remove(key));
            prop_assert_eq!(removed.map(|(_, p)| p), places.remove(key));
            if i % 97 == 0 {
                check(&runs, &model, &places)?;
            }
        }
        check(&runs, &model, &places)?;
    }
}

#[test]
fn a_full_run_splits_before_an_entry_goes_in_and_a_short_one_joins_a_neighbour() {
    let mut runs = Runs::default();
    let mut places = Told::new();
    for key in 0..RUN as u32 {
        let (old, place) = runs.insert(key, key, &mut told(&mut places));
        assert_eq!(old, None);
        places.insert(key, place);
    }
    assert_eq!(runs.runs.len(), 1);
    let (_, place) = runs.insert(RUN as u32, RUN as u32, &mut told(&mut places));
    places.insert(RUN as u32, place);
    assert_eq!(runs.runs.len(), 2);
    // The upper half moved to a run of its own; the lower half kept its places.
    assert_eq!(places[&0], Place { run: 0, slot: 0 });
    assert_eq!(places[&(RUN as u32 / 2)], Place { run: 1, slot: 0 });
    assert_eq!(
        places[&(RUN as u32)],
        Place {
            run: 1,
            slot: RUN as u8 / 2
        }
    );
    assert_eq!(runs.insert(3, 30, &mut told(&mut places)).0, Some(3));
    assert_eq!(runs.get(&3), Some(&30));
    for key in 0..RUN as u32 / 2 {
        runs.remove(&key, &mut |_, _, _| {});
    }
    assert_eq!(runs.runs.len(), 1);
    assert_eq!(
        runs.iter().next(),
        Some((&(RUN as u32 / 2), &(RUN as u32 / 2)))
    );
}
