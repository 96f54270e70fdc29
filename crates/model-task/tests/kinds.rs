//! Property tests of extension workloads and kind names through the public API: every value
//! written reads back equal (JSON and text), and the bounded reader and the check of a built
//! value agree (model-fleet's `tests/kind_sets.rs` holds the kind sets).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use model_task::spec::{ExtensionKind, ExtensionSpec, KindName, SubprocessMode};
use model_task::{TaskEnv, TaskKind};
use proptest::prelude::*;
use serde_json::{Map, Value};

#[path = "../../../tests/support/kind_strategies.rs"]
mod kind_strategies;

use kind_strategies::{extension_kind, kind_name};

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
}
