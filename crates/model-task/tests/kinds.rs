//! Property tests of extension workloads and kind sets through the public API: every value
//! written reads back equal (JSON and text), the bounded reader and the check of a built value
//! agree, and a `KindSet` answers exactly like a plain set of names.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::collections::BTreeSet;

use model_task::spec::{ExtensionKind, ExtensionSpec, KindName, SubprocessMode};
use model_task::{KindSet, TaskEnv, TaskKind};
use proptest::prelude::*;
use serde_json::{Map, Value};

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

/// Any JSON value, with finite numbers and nesting a few levels deep.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[ -~é✓\\\\\"\n]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z\"]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn spec() -> impl Strategy<Value = ExtensionSpec> {
    proptest::collection::btree_map("[a-zA-Z_]{1,6}", json(), 0..5).prop_map(|m| {
        ExtensionSpec::new(Value::Object(m.into_iter().collect::<Map<_, _>>())).unwrap()
    })
}

proptest! {
    #[test]
    fn extension_kinds_round_trip(kind in extension_kind()) {
        let json = serde_json::to_string(&kind).unwrap();
        prop_assert_eq!(&serde_json::from_str::<ExtensionKind>(&json).unwrap(), &kind);
        prop_assert_eq!(&kind.to_string().parse::<ExtensionKind>().unwrap(), &kind);
        prop_assert_eq!(format!("{}/{}", kind.api_version(), kind.kind()), kind.to_string());
        prop_assert_eq!(format!("{}/{}", kind.group(), kind.version()), kind.api_version());
    }

    #[test]
    fn extension_task_kinds_round_trip(name in extension_kind(), spec in spec()) {
        let kind = TaskKind::extension(name, spec);
        let json = serde_json::to_string(&kind).unwrap();
        let back: TaskKind = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &kind);
        // Written once more, byte for byte the same.
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn the_reader_and_the_value_check_agree(value in json()) {
        let wrapped = Value::Object([("v".to_owned(), value)].into_iter().collect());
        let text = serde_json::to_string(&wrapped).unwrap();
        let read = serde_json::from_str::<ExtensionSpec>(&text);
        let built = ExtensionSpec::new(wrapped);
        prop_assert_eq!(read.is_ok(), built.is_ok());
        if let (Ok(read), Ok(built)) = (read, built) {
            prop_assert_eq!(read, built);
        }
    }

    #[test]
    fn subprocess_kinds_keep_fail_on_non_zero(fail in any::<bool>(), command in "/[a-z]{1,8}") {
        let mode = SubprocessMode::command(command, vec![]).unwrap();
        let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None)
            .unwrap()
            .with_fail_on_non_zero(fail)
            .unwrap();
        let back: TaskKind = serde_json::from_str(&serde_json::to_string(&kind).unwrap()).unwrap();
        prop_assert_eq!(back.fail_on_non_zero(), fail);
        prop_assert_eq!(back, kind);
    }

    #[test]
    fn kind_names_round_trip(name in kind_name()) {
        let json = serde_json::to_string(&name).unwrap();
        prop_assert_eq!(&serde_json::from_str::<KindName>(&json).unwrap(), &name);
        prop_assert_eq!(&name.to_string().parse::<KindName>().unwrap(), &name);
    }

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
