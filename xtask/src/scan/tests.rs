//! Scanner tests on small source strings.

use super::{RefKind, scan};

/// Renders every path the scanner finds in `source` (scanned as the crate root) as
/// `line:a::b` for code, `line:use a::b as x` for imports, and `line:use a (no name)` for
/// globs and `as _` imports.
fn found(source: &str) -> Vec<String> {
    scan(source, &[])
        .refs
        .iter()
        .map(|r| {
            let path = r.segments.join("::");
            let prefix = if r.module.is_empty() {
                String::new()
            } else {
                format!("in {}: ", r.module.join("::"))
            };
            match &r.kind {
                RefKind::Code => format!("{prefix}{}:{path}", r.line),
                RefKind::Use(Some(alias)) => format!("{prefix}{}:use {path} as {alias}", r.line),
                RefKind::Use(None) => format!("{prefix}{}:use {path} (no name)", r.line),
            }
        })
        .collect()
}

#[track_caller]
fn check(source: &str, expected: &[&str]) {
    assert_eq!(found(source), expected, "source:\n{source}");
}

#[test]
fn finds_paths_in_use_declarations_and_code() {
    check(
        "use crate::kind::Kind;",
        &["1:use crate::kind::Kind as Kind"],
    );
    check("use super::kind;", &["1:use super::kind as kind"]);
    check("use self::a::B as C;", &["1:use self::a::B as C"]);
    check("use crate::a::B as _;", &["1:use crate::a::B (no name)"]);
    check("use crate::a::*;", &["1:use crate::a (no name)"]);
    check(
        "use serde::Serialize;",
        &["1:use serde::Serialize as Serialize"],
    );
    check("use ::serde::Serialize;", &[]);
    check(
        "fn f() { crate::kind::Kind::new() }",
        &["1:crate::kind::Kind::new"],
    );
    check("let x = super::super::a::B;", &["1:super::super::a::B"]);
    check("let x = crate::a::f::<u8>();", &["1:crate::a::f"]);
    check("let x = $crate::a::B;", &["1:crate::a::B"]);
}

#[test]
fn reads_brace_groups_with_nesting_self_and_renames() {
    check(
        "use crate::{a::X, b::{c::Y, self as bee}, d};",
        &[
            "1:use crate::a::X as X",
            "1:use crate::b::c::Y as Y",
            "1:use crate::b as bee",
            "1:use crate::d as d",
        ],
    );
    check(
        "use crate::{\n    a::X,\n    b::*,\n};",
        &["2:use crate::a::X as X", "3:use crate::b (no name)"],
    );
    check("use crate::a::{self};", &["1:use crate::a as a"]);
    check("use crate::{};", &[]);
}

#[test]
fn ignores_things_that_only_look_like_paths() {
    check("pub(crate) fn f(self) {}", &[]);
    check("fn f(&self) -> Self { Self::new() }", &[]);
    check("pub(in crate::a) fn f() {}", &["1:crate::a"]);
    check("let s = self.inner;", &[]);
    check("let r#crate = 1;", &[]);
}

#[test]
fn ignores_comments_and_literals() {
    check("// use crate::a::B;\n/// crate::a::B\n//! crate::a", &[]);
    check(
        "/* crate::a /* nested */ crate::b */ use crate::c::D;",
        &["1:use crate::c::D as D"],
    );
    check(r#"let s = "crate::a::B \" crate::b::C";"#, &[]);
    check(r##"let s = r#"crate::a::B " crate::b"#;"##, &[]);
    check(r#"let s = b"crate::a"; let t = c"crate::b";"#, &[]);
    check("let c = '\"'; let d = crate::d::D;", &["1:crate::d::D"]);
    check(r"let c = '\''; let d = crate::d::D;", &["1:crate::d::D"]);
    check(
        "fn f<'a>(x: &'a str) -> &'a crate::e::E {}",
        &["1:crate::e::E"],
    );
    check("let b = b'{'; let d = crate::d::D;", &["1:crate::d::D"]);
    // Line numbers count the lines inside comments and strings.
    check(
        "/*\n\n*/ \"\n\"\nuse crate::a::B;",
        &["5:use crate::a::B as B"],
    );
}

#[test]
fn skips_cfg_test_items() {
    check(
        "#[cfg(test)]\nmod tests;\nuse crate::a::B;",
        &["3:use crate::a::B as B"],
    );
    check(
        "#[cfg(test)]\nuse crate::a::B;\nuse crate::c::D;",
        &["3:use crate::c::D as D"],
    );
    check(
        "#[cfg(test)] use crate::{a::B, c::D};\nuse crate::e::F;",
        &["2:use crate::e::F as F"],
    );
    check(
        "#[cfg(test)]\nmod tests {\n    use crate::a::B;\n    fn f() { crate::c::D }\n}\nfn g() { crate::e::F }",
        &["6:crate::e::F"],
    );
    check(
        "#[cfg(test)]\n#[allow(clippy::unwrap_used, reason = \"tests\")]\nmod tests { use super::*; }\nuse crate::a::B;",
        &["4:use crate::a::B as B"],
    );
    check("#[cfg(all(test, feature = \"x\"))] use crate::a::B;", &[]);
    check(
        "fn f() { #[cfg(test)] let x = crate::a::B; crate::c::D }",
        &["1:crate::c::D"],
    );
    check("#![cfg(test)]\nuse crate::a::B;", &[]);
    check(
        "mod inner {\n#![cfg(test)]\nuse crate::a::B;\n}\nuse crate::c::D;",
        &["5:use crate::c::D as D"],
    );
}

#[test]
fn keeps_items_under_other_attributes() {
    check(
        "#[cfg(not(test))] use crate::a::B;",
        &["1:use crate::a::B as B"],
    );
    check(
        "#[cfg(any(test, doc))] use crate::a::B;",
        &["1:use crate::a::B as B"],
    );
    check(
        "#[cfg(feature = \"test\")] use crate::a::B;",
        &["1:use crate::a::B as B"],
    );
    check(
        "#[derive(Debug)] struct S(crate::a::B);",
        &["1:crate::a::B"],
    );
    check(
        "#[doc = \"crate::x\"] use crate::a::B;",
        &["1:use crate::a::B as B"],
    );
}

#[test]
fn finds_paths_inside_attributes() {
    check(
        "#[error(\"at most {}\", crate::base36::MAX)]\nTooLong,",
        &["1:crate::base36::MAX"],
    );
    check(
        "#[error(\n    \"at most {}\",\n    super::limits::MAX\n)]",
        &["3:super::limits::MAX"],
    );
    check(
        "#[cfg_attr(feature = \"schema\", schemars(with = \"crate::wire::Raw\"))]",
        &["1:crate::wire::Raw"],
    );
    // A string counts only when it is a whole crate/self/super path.
    check(
        "#[serde(default = \"crate::x::f\", with = \"self::ts\")]",
        &["1:crate::x::f", "1:self::ts"],
    );
    check("#[serde(rename = \"crate\", alias = \"crate::\")]", &[]);
    check("#[serde(bound = \"T: crate::a::B\")]", &[]);
    check("#[serde(try_from = \"RawTask\")]", &[]);
    check("#[error(\"crate::a::B is not a path here\")]", &[]);
    // Doc attributes are prose.
    check(
        "#[doc = \"crate::a::B\"]\n#![doc = concat!(\"crate::a::B\")]",
        &[],
    );
    check(
        "#[doc(alias = \"crate::a::B\")] #[must_use] fn f() -> crate::c::D {}",
        &["1:crate::c::D"],
    );
}

#[test]
fn finds_paths_inside_macro_invocations() {
    check("let s = format!(\"{}\", crate::a::B);", &["1:crate::a::B"]);
    check(
        "let y = matches!(x, crate::a::B::C | super::d::E);",
        &["1:crate::a::B::C", "1:super::d::E"],
    );
    check("ids! { Job => crate::a::B }", &["1:crate::a::B"]);
    check(
        "macro_rules! m {\n    () => {\n        $crate::a::B\n    };\n}",
        &["3:crate::a::B"],
    );
}

#[test]
fn records_modules_and_the_module_of_each_path() {
    let source = "mod a;\npub mod b {\n    mod c;\n    use super::a::X;\n}\n#[cfg(test)]\nmod tests;\nuse crate::b::Y;";
    let scanned = scan(source, &["root".to_owned()]);
    let paths = |list: &[Vec<String>]| list.iter().map(|p| p.join("::")).collect::<Vec<_>>();
    assert_eq!(paths(&scanned.file_modules), ["root::a", "root::b::c"]);
    assert_eq!(paths(&scanned.inline_modules), ["root::b"]);
    check(
        "mod b {\n    use super::a::X;\n}\nuse crate::b::Y;",
        &["in b: 2:use super::a::X as X", "4:use crate::b::Y as Y"],
    );
}
