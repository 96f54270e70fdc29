//! A `KindSet` answers exactly like a plain set of kind names: membership, subsets, union,
//! iteration order, and JSON and text that read back equal.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::collections::BTreeSet;

use model_fleet::KindSet;
use model_task::spec::KindName;
use proptest::prelude::*;

#[path = "../../../tests/support/kind_strategies.rs"]
mod kind_strategies;

use kind_strategies::kind_name;

proptest! {
    #[test]
    fn kind_sets_are_sets_of_names(
        names in proptest::collection::vec(kind_name(), 0..12),
        others in proptest::collection::vec(kind_name(), 0..12),
        probes in proptest::collection::vec(kind_name(), 0..12),
    ) {
        let model: BTreeSet<KindName> = names.iter().cloned().collect();
        let other_model: BTreeSet<KindName> = others.iter().cloned().collect();
        let set = KindSet::from_names(names).unwrap();
        let other = KindSet::from_names(others).unwrap();
        prop_assert_eq!(set.len(), model.len());
        prop_assert_eq!(set.is_empty(), model.is_empty());
        // Iteration: built-in kinds in wire order, then extensions in name order, which is
        // the order of the names themselves.
        prop_assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().cloned().collect::<Vec<_>>());
        for probe in probes.iter().chain(&other_model) {
            prop_assert_eq!(set.contains_kind(probe), model.contains(probe), "{}", probe);
        }
        prop_assert_eq!(set.contains(&other), other_model.is_subset(&model));
        let union = set.union(&other).unwrap();
        let union_model: BTreeSet<KindName> = model.union(&other_model).cloned().collect();
        prop_assert_eq!(union.iter().collect::<Vec<_>>(), union_model.into_iter().collect::<Vec<_>>());
        // Written as JSON and as text, read back equal.
        let json = serde_json::to_string(&set).unwrap();
        prop_assert_eq!(&serde_json::from_str::<KindSet>(&json).unwrap(), &set);
        prop_assert_eq!(&set.to_string().parse::<KindSet>().unwrap(), &set);
    }
}
