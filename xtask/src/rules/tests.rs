//! Doc line parsing.

use std::collections::BTreeSet;

use super::DocLine;

#[test]
fn doc_line_parsing() {
    let check = |text: &str, expected: Option<(u64, &[&str], Option<&[&str]>)>| {
        let expected = expected.map(|(layer, depends, used_by)| DocLine {
            layer,
            depends: depends.iter().copied().collect::<BTreeSet<_>>(),
            used_by: used_by.map(|u| u.iter().copied().collect()),
        });
        assert_eq!(DocLine::parse(text), expected, "{text}");
    };
    check("Layer 0. Depends on: nothing.", Some((0, &[], None)));
    check("Layer 2. Depends on: a, b.", Some((2, &["a", "b"], None)));
    check("Layer 2. Depends on: b,a.", Some((2, &["a", "b"], None)));
    check(
        "Layer 1. Depends on: a. Used by: c, d.",
        Some((1, &["a"], Some(&["c", "d"]))),
    );
    check(
        "Layer 1. Depends on: a. Used by: nothing.",
        Some((1, &["a"], Some(&[]))),
    );
    check(
        "Layer 1. Depends on: a. More text.",
        Some((1, &["a"], None)),
    );
    check("Layer 1. Depends on: a", None);
    check("Layer 1. Depends on: .", None);
    check("Layer 1. Depends on: a, .", None);
    check("Layer one. Depends on: a.", None);
    check("Layer 1. Uses: a.", None);
    check("Layer 1. Depends on: a. Used by: b", None);
}
