//! proptest strategies for workload kinds (`ExtensionKind`, `KindName`), shared by the tests
//! of model-task (kinds that read back equal) and model-fleet (kind sets); included with
//! `#[path]` like `wire_examples.rs`, for the same reason.
#![allow(dead_code, reason = "each crate's tests use the parts they need")]

use model_task::spec::{ExtensionKind, KindName};
use proptest::prelude::*;

/// Any valid extension kind: a DNS-like group, a Kubernetes-style version, a kind name.
pub(crate) fn extension_kind() -> impl Strategy<Value = ExtensionKind> {
    (
        "[a-z0-9]([a-z0-9-]{0,4}[a-z0-9])?(\\.[a-z0-9]{1,5}){1,2}",
        "v[0-9]{1,2}((alpha|beta)[0-9])?",
        "[A-Za-z]([A-Za-z0-9-]{0,6}[A-Za-z0-9])?",
    )
        .prop_map(|(group, version, kind)| {
            ExtensionKind::new(&format!("{group}/{version}"), &kind).unwrap()
        })
}

/// A kind name: a built-in, one of a small pool of extensions (so that sets share names and
/// repeat them), or any extension.
pub(crate) fn kind_name() -> impl Strategy<Value = KindName> {
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
