//! Unit tests of `Runs` against a `BTreeMap`: the same entries in the same order through any
//! inserts and removes, runs never empty nor longer than `RUN`, and room within a small
//! factor of the entries.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

fn check(runs: &Runs<u32, u32>, model: &BTreeMap<u32, u32>) -> Result<(), TestCaseError> {
    prop_assert_eq!(runs.len(), model.len());
    prop_assert_eq!(runs.is_empty(), model.is_empty());
    let got: Vec<(u32, u32)> = runs.iter().map(|(k, v)| (*k, *v)).collect();
    let want: Vec<(u32, u32)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    prop_assert_eq!(got, want);
    prop_assert_eq!(runs.first(), model.keys().next());
    let mut room = 0;
    for (bound, run) in &runs.runs {
        prop_assert!(run.len() > 0 && run.len() <= RUN);
        prop_assert_eq!(run.keys.len(), run.values.len());
        prop_assert!(run.keys.iter().all(|k| k >= bound));
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

proptest! {
    #[test]
    fn agrees_with_a_btreemap(
        ops in prop::collection::vec((any::<bool>(), 0..2_000_u32, any::<u32>()), 0..3_000),
        descending in any::<bool>(),
    ) {
        let mut runs = Runs::default();
        let mut model = BTreeMap::new();
        for (i, (insert, key, value)) in ops.into_iter().enumerate() {
            // Also keys that only go down, as a queue's earliest entries do.
            let key = if descending { 5_000 - key.min(i as u32) } else { key };
            if insert || i % 3 == 0 {
                prop_assert_eq!(runs.insert(key, value), model.insert(key, value));
            } else {
                prop_assert_eq!(runs.remove(&key), model.remove(&key));
            }
            prop_assert_eq!(runs.get(&key), model.get(&key));
        }
        check(&runs, &model)?;
        let keys: Vec<u32> = model.keys().copied().collect();
        for (i, key) in keys.iter().enumerate() {
            prop_assert_eq!(runs.remove(key), model.remove(key));
            if i % 97 == 0 {
                check(&runs, &model)?;
            }
        }
        check(&runs, &model)?;
    }
}

#[test]
fn a_run_splits_past_run_and_joins_a_neighbour_when_short() {
    let mut runs = Runs::default();
    for key in 0..=RUN as u32 {
        assert_eq!(runs.insert(key, key), None);
    }
    assert_eq!(runs.runs.len(), 2);
    assert_eq!(runs.insert(3, 30), Some(3));
    assert_eq!(runs.get(&3), Some(&30));
    for key in 0..RUN as u32 / 2 {
        runs.remove(&key);
    }
    assert_eq!(runs.runs.len(), 1);
    assert_eq!(runs.first(), Some(&(RUN as u32 / 2)));
}
