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
use model_task::spec::{ExtensionKind, KindName};
use proptest::prelude::*;

fn extension_kind() -> impl Strategy<Value = ExtensionKind> {
    (
        "[a-z0-9]([a-z0-9-]{0,4}[a-z0-9])?(\\.[a-z0-9]{1,5}){1,2}",
        "v[0-9]{1,2}((alpha|beta)[0-9])?",
        "[A-Za-z]([A-Za-z0-9-]{0,6}[A-Za-z0-9])?",
    )
        .prop_map(|(group, version, kind)| {
            ExtensionKind::new(&format!("{group}/{version}"), &kind).unwrap()
        })
}

fn kind_name() -> impl Strategy<Value = KindName> {
    prop_oneof![
        Just(KindName::Subprocess),
        Just(KindName::Container),
        Just(KindName::Wasm),
        // A small pool, so that sets share names and repeat them.
        (0..6_usize, 0..3_usize).prop_map(|(k, v)| KindName::Extension(
            ExtensionKind::new(&format!("g{}.example.io/v{v}", k % 3), &format!("K{k}")).unwrap()
        )),
        extension_kind().prop_map(KindName::Extension),
    ]
}

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
