//! Doc line parsing.

use super::DocLine;

fn line<'a>(layer: u64, depends: &[&'a str], used_by: Option<&[&'a str]>) -> Option<DocLine<'a>> {
    Some(DocLine {
        layer,
        depends: depends.iter().copied().collect(),
        used_by: used_by.map(|names| names.iter().copied().collect()),
    })
}

#[test]
fn doc_line_parsing() {
    let check = |text: &str, expected: Option<DocLine<'_>>| {
        assert_eq!(DocLine::parse(text), expected, "{text}");
    };
    check("Layer 0. Depends on: nothing.", line(0, &[], None));
    check("Layer 2. Depends on: a, b.", line(2, &["a", "b"], None));
    check("Layer 2. Depends on: b,a.", line(2, &["a", "b"], None));
    check(
        "Layer 1. Depends on: a. Used by: c, d.",
        line(1, &["a"], Some(&["c", "d"])),
    );
    check(
        "Layer 1. Depends on: a. Used by: nothing.",
        line(1, &["a"], Some(&[])),
    );
    check("Layer 1. Depends on: a. More text.", line(1, &["a"], None));
    check("Layer 1. Depends on: a", None);
    check("Layer 1. Depends on: .", None);
    check("Layer 1. Depends on: a, .", None);
    check("Layer one. Depends on: a.", None);
    check("Layer 1. Uses: a.", None);
    check("Layer 1. Depends on: a. Used by: b", None);
}
