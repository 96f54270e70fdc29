//! Path resolution and cycle search on small inputs.

use std::{collections::BTreeMap, path::PathBuf};

use super::{absolute, find_cycles};
use crate::scan::{RawRef, RefKind};

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Resolves `path` written in module `module` (`::`-separated, empty for the root).
fn resolve(module: &str, path: &str, kind: RefKind) -> Option<String> {
    let r = RawRef {
        module: segments(module),
        line: 1,
        segments: segments(path),
        kind,
    };
    absolute(&r).map(|p| p.join("::"))
}

#[test]
fn absolute_paths() {
    let check = |module, path, expected: Option<&str>| {
        assert_eq!(
            resolve(module, path, RefKind::Code).as_deref(),
            expected,
            "{module}: {path}"
        );
    };
    check("a::b", "crate::c::D", Some("c::D"));
    check("a::b", "self::c::D", Some("a::b::c::D"));
    check("a::b", "super::c::D", Some("a::c::D"));
    check("a::b", "super::super::c", Some("c"));
    check("a::b", "self::super::c", Some("a::c"));
    check("", "super::c", None);
    check("a", "super::super::c", None);
    // Code paths without crate/self/super are not followed; use paths are relative.
    check("a", "std::fmt", None);
    assert_eq!(
        resolve("a", "b::C", RefKind::Use(Some("C".to_owned()))).as_deref(),
        Some("a::b::C")
    );
}

fn cycles(edges: &[(&str, &str)]) -> Vec<String> {
    let map: BTreeMap<(String, String), (PathBuf, usize)> = edges
        .iter()
        .map(|&(a, b)| ((a.to_owned(), b.to_owned()), (PathBuf::new(), 1)))
        .collect();
    find_cycles(&map).iter().map(|c| c.join(" ")).collect()
}

#[test]
fn cycle_search() {
    let check = |edges: &[(&str, &str)], expected: &[&str]| {
        assert_eq!(cycles(edges), expected, "{edges:?}");
    };
    check(&[], &[]);
    check(&[("a", "b"), ("b", "c"), ("a", "c")], &[]);
    check(&[("a", "b"), ("b", "a")], &["a b"]);
    check(&[("c", "a"), ("a", "b"), ("b", "c")], &["a b c"]);
    // One cycle per group, the shortest way back to the group's first node.
    check(&[("a", "b"), ("b", "c"), ("c", "a"), ("b", "a")], &["a b"]);
    check(
        &[("a", "b"), ("b", "a"), ("x", "y"), ("y", "x"), ("b", "x")],
        &["a b", "x y"],
    );
}
