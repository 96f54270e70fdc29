//! Kubernetes' own selector tables, as data: the parse, print, match and requirement cases of
//! apimachinery's `pkg/labels/selector_test.go` (`TestSelectorParse`, `TestSetSelectorParser`,
//! `TestToString`, `TestSelectorMatches`, `TestSetMatches`, `TestRequirementSelectorMatching`,
//! `TestRequirementConstructor`, `TestSetSelectorString`, `TestValidatedSelectorFromSet`,
//! `TestDeterministicParse`, and the selectors of `TestMatchesNothing`), each with what
//! Kubernetes does and what this crate does, and why where they differ. The `differences`
//! module has one test per deliberate difference the crate docs list.
//!
//! Not ported, because they test Kubernetes internals this crate does not have: the lexer
//! and parser token tests (`TestLexer`, `TestLexerSequence`, `TestParserLookahead`,
//! `TestParseOperator`), `TestRequiresExactMatch`, `TestAdd`, `TestSafeSort`,
//! `TestRequirementEqual`, and the cases built from a zero `Requirement` (an empty
//! requirement that no public way here can make).
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use model_selector::{
    LabelSelector, Labels, MAX_REQUIREMENTS, SelectorError, SelectorOperator, SelectorRequirement,
};

/// Why `TestToString` and `TestSetSelectorParser` print differently here: one canonical form.
const CANONICAL_NOTIN: &str = "one canonical spelling: a single excluded value prints as kubectl writes it (`x!=a`), where Kubernetes keeps the operator as written";
const CANONICAL_EQUALS: &str =
    "one canonical spelling: `==` prints as `=`, where Kubernetes keeps the operator as written";

/// A string given to the parser: what Kubernetes' `String()` prints after parsing it, and
/// what `to_string` prints here (`None`: refused).
struct ParseCase {
    from: &'static str,
    input: &'static str,
    kubernetes: Option<&'static str>,
    here: Option<&'static str>,
    /// Why the two differ; empty when they agree.
    why: &'static str,
}

const fn same(from: &'static str, input: &'static str, out: Option<&'static str>) -> ParseCase {
    ParseCase {
        from,
        input,
        kubernetes: out,
        here: out,
        why: "",
    }
}

const PARSE: &[ParseCase] = &[
    // TestSelectorParse: good strings print as themselves without spaces; bad ones fail.
    same("TestSelectorParse", "x=a,y=b,z=c", Some("x=a,y=b,z=c")),
    same("TestSelectorParse", "", Some("")),
    same("TestSelectorParse", "x!=a,y=b", Some("x!=a,y=b")),
    same("TestSelectorParse", "x=", Some("x=")),
    same("TestSelectorParse", "x= ", Some("x=")),
    same("TestSelectorParse", "x=,z= ", Some("x=,z=")),
    same("TestSelectorParse", "x= ,z= ", Some("x=,z=")),
    same("TestSelectorParse", "!x", Some("!x")),
    same("TestSelectorParse", "x>1", Some("x>1")),
    same("TestSelectorParse", "x>1,z<5", Some("x>1,z<5")),
    same("TestSelectorParse", "x=a||y=b", None),
    same("TestSelectorParse", "x==a==b", None),
    same("TestSelectorParse", "!x=a", None),
    same("TestSelectorParse", "x<a", None),
    // TestSetSelectorParser: Kubernetes compares requirement lists; here they are printed.
    same("TestSetSelectorParser", "\rx", Some("x")),
    same(
        "TestSetSelectorParser",
        "this-is-a-dns.domain.com/key-with-dash",
        Some("this-is-a-dns.domain.com/key-with-dash"),
    ),
    same(
        "TestSetSelectorParser",
        "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        Some("this-is-another-dns.domain.com/key-with-dash in (so,what)"),
    ),
    same(
        "TestSetSelectorParser",
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        Some("0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
    ),
    same(
        "TestSetSelectorParser",
        "foo  in\t (abc)",
        Some("foo in (abc)"),
    ),
    ParseCase {
        from: "TestSetSelectorParser",
        input: "x notin\n (abc)",
        kubernetes: Some("x notin (abc)"),
        here: Some("x!=abc"),
        why: CANONICAL_NOTIN,
    },
    same(
        "TestSetSelectorParser",
        "x  notin\t\t\t(abc,def)",
        Some("x notin (abc,def)"),
    ),
    same(
        "TestSetSelectorParser",
        "x in (abc,def)",
        Some("x in (abc,def)"),
    ),
    same("TestSetSelectorParser", "x in (abc,)", Some("x in (,abc)")),
    same(
        "TestSetSelectorParser",
        "x in (abc,abc)",
        Some("x in (abc)"),
    ),
    same("TestSetSelectorParser", "x in ()", Some("x in ()")),
    same("TestSetSelectorParser", "x in (a,,)", Some("x in (,a)")),
    same("TestSetSelectorParser", "x in (a,,,)", Some("x in (,a)")),
    same("TestSetSelectorParser", "x in (a,,,,,,)", Some("x in (,a)")),
    same(
        "TestSetSelectorParser",
        "x in (a,,a,,a,,a,,)",
        Some("x in (,a)"),
    ),
    same(
        "TestSetSelectorParser",
        "x notin (abc,,def),bar,z in (),w",
        Some("bar,w,x notin (,abc,def),z in ()"),
    ),
    same("TestSetSelectorParser", "x,y in (a)", Some("x,y in (a)")),
    same("TestSetSelectorParser", "x=a", Some("x=a")),
    same("TestSetSelectorParser", "x>1", Some("x>1")),
    same("TestSetSelectorParser", "x<7", Some("x<7")),
    same("TestSetSelectorParser", "x=a,y!=b", Some("x=a,y!=b")),
    same(
        "TestSetSelectorParser",
        "x=a,y!=b,z in (h,i,j)",
        Some("x=a,y!=b,z in (h,i,j)"),
    ),
    same("TestSetSelectorParser", "x=a||y=b", None),
    same("TestSetSelectorParser", "x,,y", None),
    same("TestSetSelectorParser", ",x,y", None),
    same("TestSetSelectorParser", "x nott in (y)", None),
    ParseCase {
        from: "TestSetSelectorParser",
        input: "x notin ( )",
        kubernetes: Some("x notin ()"),
        here: Some("x!="),
        why: CANONICAL_NOTIN,
    },
    same(
        "TestSetSelectorParser",
        "x notin (, a)",
        Some("x notin (,a)"),
    ),
    same("TestSetSelectorParser", "a in (xyz),", None),
    same("TestSetSelectorParser", "a in (xyz)b notin ()", None),
    same("TestSetSelectorParser", "a ", Some("a")),
    same(
        "TestSetSelectorParser",
        "a in (x,y,notin, z,in)",
        Some("a in (in,notin,x,y,z)"),
    ),
    same("TestSetSelectorParser", "a in (xyz abc)", None),
    same("TestSetSelectorParser", "a notin(", None),
    same("TestSetSelectorParser", "a (", None),
    same("TestSetSelectorParser", "(", None),
    // TestToString: Kubernetes builds these from requirements; here the same requirements
    // come from the string syntax.
    ParseCase {
        from: "TestToString",
        input: "x in (abc,def),y notin (jkl),z",
        kubernetes: Some("x in (abc,def),y notin (jkl),z"),
        here: Some("x in (abc,def),y!=jkl,z"),
        why: CANONICAL_NOTIN,
    },
    same(
        "TestToString",
        "x notin (abc,def),y!=jkl,!z",
        Some("x notin (abc,def),y!=jkl,!z"),
    ),
    ParseCase {
        from: "TestToString",
        input: "x notin (abc),y in (jkl,mno),z notin ()",
        kubernetes: Some("x notin (abc),y in (jkl,mno),z notin ()"),
        here: Some("x!=abc,y in (jkl,mno),z!="),
        why: CANONICAL_NOTIN,
    },
    ParseCase {
        from: "TestToString",
        input: "x=abc,y==jkl,z!=a,z",
        kubernetes: Some("x=abc,y==jkl,z!=a,z"),
        here: Some("x=abc,y=jkl,z!=a,z"),
        why: CANONICAL_EQUALS,
    },
    same("TestToString", "x>2,y<8,z", Some("x>2,y<8,z")),
    // TestSetSelectorString: a selector from a label set.
    same("TestSetSelectorString", "app=foo", Some("app=foo")),
    same("TestSetSelectorString", "app=foo,a=b", Some("a=b,app=foo")),
    // TestMatchesNothing: these selectors parse (Kubernetes then asks whether they match
    // nothing, which this crate has no call for).
    same("TestMatchesNothing", "a,!a", Some("a,!a")),
    same("TestMatchesNothing", "a=b,a!=b", Some("a=b,a!=b")),
    ParseCase {
        from: "TestMatchesNothing",
        input: "a in (b),a notin (b)",
        kubernetes: Some("a in (b),a notin (b)"),
        here: Some("a in (b),a!=b"),
        why: CANONICAL_NOTIN,
    },
];

#[test]
fn kubernetes_parse_and_print_tables() {
    for case in PARSE {
        let label = format!("{} {:?}", case.from, case.input);
        let got = case.input.parse::<LabelSelector>();
        match (&got, case.here) {
            (Ok(selector), Some(want)) => {
                assert_eq!(selector.to_string(), want, "{label}");
                // What prints reads back to the same selector, and prints the same.
                let again: LabelSelector = want.parse().unwrap();
                assert_eq!(&again, selector, "{label}");
                assert_eq!(again.to_string(), want, "{label}");
            }
            (Err(SelectorError::Syntax { .. }), None) => {}
            (got, want) => panic!("{label}: want {want:?}, got {got:?}"),
        }
        assert_eq!(
            case.here == case.kubernetes,
            case.why.is_empty(),
            "{label}: a difference needs a reason, and only a difference has one"
        );
    }
    let differ = PARSE.iter().filter(|c| !c.why.is_empty()).count();
    assert_eq!(differ, 6, "the crate docs list these differences");
}

#[test]
fn kubernetes_deterministic_parse() {
    // TestDeterministicParse.
    let a: LabelSelector = "x=a,a=x".parse().unwrap();
    let b: LabelSelector = "a=x,x=a".parse().unwrap();
    assert_eq!(a.to_string(), b.to_string());
    assert_eq!(a, b);
}

/// The Go test, a selector, a label set, and whether the selector matches it.
type MatchCase = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    bool,
);

/// Whether each selector matches each label set (the same in Kubernetes and here for every
/// case).
const MATCH: &[MatchCase] = &[
    ("TestSelectorMatches", "", &[("x", "y")], true),
    ("TestSelectorMatches", "x=y", &[("x", "y")], true),
    (
        "TestSelectorMatches",
        "x=y,z=w",
        &[("x", "y"), ("z", "w")],
        true,
    ),
    (
        "TestSelectorMatches",
        "x!=y,z!=w",
        &[("x", "z"), ("z", "a")],
        true,
    ),
    ("TestSelectorMatches", "notin=in", &[("notin", "in")], true),
    ("TestSelectorMatches", "x", &[("x", "z")], true),
    ("TestSelectorMatches", "!x", &[("y", "z")], true),
    ("TestSelectorMatches", "x>1", &[("x", "2")], true),
    ("TestSelectorMatches", "x<1", &[("x", "0")], true),
    ("TestSelectorMatches", "x=z", &[], false),
    ("TestSelectorMatches", "x=y", &[("x", "z")], false),
    (
        "TestSelectorMatches",
        "x=y,z=w",
        &[("x", "w"), ("z", "w")],
        false,
    ),
    (
        "TestSelectorMatches",
        "x!=y,z!=w",
        &[("x", "z"), ("z", "w")],
        false,
    ),
    ("TestSelectorMatches", "x", &[("y", "z")], false),
    ("TestSelectorMatches", "!x", &[("x", "z")], false),
    ("TestSelectorMatches", "x>1", &[("x", "0")], false),
    ("TestSelectorMatches", "x<1", &[("x", "2")], false),
    (
        "TestSelectorMatches",
        "foo=bar",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSelectorMatches",
        "baz=blah",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSelectorMatches",
        "foo=bar,baz=blah",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSelectorMatches",
        "foo=blah",
        &[("foo", "bar"), ("baz", "blah")],
        false,
    ),
    (
        "TestSelectorMatches",
        "baz=bar",
        &[("foo", "bar"), ("baz", "blah")],
        false,
    ),
    (
        "TestSelectorMatches",
        "foo=bar,foobar=bar,baz=blah",
        &[("foo", "bar"), ("baz", "blah")],
        false,
    ),
    // TestSetMatches: selectors from label sets (`matchLabels`).
    (
        "TestSetMatches",
        "",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSetMatches",
        "foo=bar",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSetMatches",
        "baz=blah",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    (
        "TestSetMatches",
        "foo=bar,baz=blah",
        &[("foo", "bar"), ("baz", "blah")],
        true,
    ),
    // TestRequirementSelectorMatching, its requirements written in the string syntax.
    (
        "TestRequirementSelectorMatching",
        "x in (foo),y notin (alpha)",
        &[("x", "foo"), ("y", "baz")],
        true,
    ),
    (
        "TestRequirementSelectorMatching",
        "x in (foo),y in (alpha)",
        &[("x", "foo"), ("y", "baz")],
        false,
    ),
    (
        "TestRequirementSelectorMatching",
        "x notin (),y",
        &[("y", "")],
        true,
    ),
    (
        "TestRequirementSelectorMatching",
        "!x,y",
        &[("y", "")],
        true,
    ),
    (
        "TestRequirementSelectorMatching",
        "x notin (),!y",
        &[("y", "")],
        false,
    ),
    (
        "TestRequirementSelectorMatching",
        "x in ()",
        &[("y", "baz")],
        false,
    ),
    (
        "TestRequirementSelectorMatching",
        "z>1",
        &[("z", "2")],
        true,
    ),
    (
        "TestRequirementSelectorMatching",
        "z>1",
        &[("z", "v2")],
        false,
    ),
];

#[test]
fn kubernetes_match_tables() {
    for &(from, selector, labels, want) in MATCH {
        let parsed: LabelSelector = selector.parse().unwrap();
        let labels = Labels::from_pairs(labels.iter().copied()).unwrap();
        assert_eq!(
            parsed.matches(&labels),
            want,
            "{from} {selector:?} on {labels}"
        );
        assert_eq!(
            parsed.explain(&labels).is_empty(),
            want,
            "{from} {selector:?}"
        );
    }
}

/// `TestRequirementConstructor` (and `TestValidatedSelectorFromSet`): a key, an operator, its
/// values, and whether Kubernetes and this crate accept them (the same for every case). `=` is Kubernetes' `Equals`,
/// which the API here has only as a `matchLabels` entry (one value per key).
const REQUIREMENTS: &[(&str, &str, &[&str], bool)] = &[
    ("x1", "In", &[], false),
    ("x2", "NotIn", &[], false),
    ("x3", "In", &["foo"], true),
    ("x4", "NotIn", &["foo"], true),
    ("x6", "Exists", &[], true),
    ("x7", "DoesNotExist", &[], true),
    ("x8", "Exists", &["foo"], false),
    ("x9", "In", &["bar"], true),
    ("x11", "Gt", &["1"], true),
    ("x12", "Lt", &["6"], true),
    ("x13", "Gt", &[], false),
    ("x14", "Gt", &["bar"], false),
    ("x15", "Lt", &["bar"], false),
    ("1foo", "In", &["bar"], true),
    ("1234", "In", &["bar"], true),
    // 254 bytes: over the 63 of a name (Kubernetes' test says the 253 of a DNS name).
    (LONG_KEY, "Exists", &[], false),
    ("x16", "=", &[LONG_KEY], false),
    ("x17", "=", &["a b"], false),
    ("x18", "unsupportedOp", &[], false),
    // TestValidatedSelectorFromSet: a 64-byte value.
    (
        "Key",
        "=",
        &["axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui"],
        false,
    ),
    ("key", "=", &["val"], true),
];

const LONG_KEY: &str = "<254 times a>";

#[test]
fn kubernetes_requirement_tables() {
    let long = "a".repeat(254);
    let expand = |s: &'static str| if s == LONG_KEY { long.as_str() } else { s };
    for &(key, operator, values, want) in REQUIREMENTS {
        let key = expand(key);
        let values: Vec<&str> = values.iter().map(|v| expand(v)).collect();
        let got = match operator {
            "=" => LabelSelector::builder()
                .label(key, values.first().copied().unwrap_or_default())
                .build()
                .map(|_| ()),
            _ => operator
                .parse::<SelectorOperator>()
                .and_then(|op| SelectorRequirement::new(key, op, values.iter().copied()))
                .map(|_| ()),
        };
        assert_eq!(got.is_ok(), want, "{key} {operator} {values:?}: {got:?}");
    }
}

/// One test per difference from Kubernetes that the crate docs list.
mod differences {
    use super::*;

    fn sel(s: &str) -> LabelSelector {
        s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        Labels::from_pairs(pairs.iter().copied()).unwrap()
    }

    /// `Gt` and `Lt` are read in JSON `matchExpressions`, where Kubernetes'
    /// `metav1.LabelSelector` has only `In`, `NotIn`, `Exists` and `DoesNotExist`.
    #[test]
    fn gt_and_lt_in_json_are_an_extension() {
        let json = r#"{"matchExpressions":[{"key":"cores","operator":"Gt","values":["8"]}]}"#;
        let s: LabelSelector = serde_json::from_str(json).unwrap();
        assert_eq!(s.to_string(), "cores>8");
        assert!(s.matches(&labels(&[("cores", "16")])));
        assert_eq!(serde_json::to_string(&s).unwrap(), json);
    }

    /// A negative bound reads as Kubernetes reads it; no label value is negative (a value
    /// starts with a letter or digit), so `x>-1` holds for every integer value and `x<0`
    /// for none. A `+` sign is read and not printed.
    #[test]
    fn negative_and_signed_bounds() {
        let s = sel("cores>-1");
        assert_eq!(s.to_string(), "cores>-1");
        for value in ["0", "7", "9223372036854775807"] {
            assert!(s.matches(&labels(&[("cores", value)])), "{value}");
        }
        assert!(!s.matches(&labels(&[("cores", "many")])));
        assert!(!sel("cores<0").matches(&labels(&[("cores", "0")])));
        assert!(Labels::from_pairs([("cores", "-1")]).is_err());
        assert_eq!(sel("cores>+5").to_string(), "cores>5");
        assert_eq!(
            sel("cores > -9223372036854775808").to_string(),
            "cores>-9223372036854775808"
        );
        assert!(
            "cores>-9223372036854775809"
                .parse::<LabelSelector>()
                .is_err()
        );
    }

    /// A form feed separates tokens here (Rust's ASCII whitespace); Kubernetes reads only
    /// space, tab, CR and LF as whitespace, so there it is part of a key or value and
    /// makes it invalid. A vertical tab is refused by both.
    #[test]
    fn form_feed_is_whitespace() {
        assert_eq!(sel("zone\x0c=\x0ceu,\x0cgpu").to_string(), "gpu,zone=eu");
        assert_eq!(sel("\r\n\tzone = eu").to_string(), "zone=eu");
        assert!("zone\x0b=eu".parse::<LabelSelector>().is_err());
    }

    /// `""` is read as the empty value (the spelling this crate printed before it wrote
    /// the empty value as nothing); Kubernetes refuses it (two quotes are not a value).
    #[test]
    fn quoted_empty_value_is_read() {
        assert_eq!(sel(r#"k="""#), sel("k="));
        assert_eq!(sel(r#"k in ("",a)"#), sel("k in (,a)"));
        assert_eq!(sel(r#"k!="""#).to_string(), "k!=");
    }

    /// One canonical spelling: `==` prints as `=`, one excluded value as `x!=a`, a bound
    /// without `+` or leading zeros, requirements by key, then `matchLabels`, `In`, `NotIn`,
    /// `Exists`, `DoesNotExist`, `Gt`, `Lt`, then values. Kubernetes keeps operators as
    /// written and sorts by key only. The meaning is the same.
    #[test]
    fn one_canonical_spelling() {
        assert_eq!(sel("y==jkl").to_string(), "y=jkl");
        assert_eq!(sel("x notin (a)").to_string(), "x!=a");
        assert_eq!(sel("x notin (a)"), sel("x!=a"));
        assert_eq!(sel("n>007").to_string(), "n>7");
        assert_eq!(
            sel("z,!z,z!=a,z in (b),z=c").to_string(),
            "z=c,z in (b),z!=a,z,!z"
        );
    }

    /// A second `k=v` on a key already in `matchLabels` becomes `k in (v)`, since
    /// `matchLabels` holds one value per key; Kubernetes keeps two `=` requirements. Both
    /// match the same labels.
    #[test]
    fn a_second_equality_on_a_key_is_in() {
        let s = sel("x=a,x=b");
        assert_eq!(s.to_string(), "x=a,x in (b)");
        assert!(!s.matches(&labels(&[("x", "a")])));
        assert_eq!(s.match_labels().count(), 1);
    }

    /// At most [`MAX_REQUIREMENTS`] requirements and `MAX_VALUES` values per list; the
    /// Kubernetes parser has no such bound.
    #[test]
    fn bounded() {
        let many: Vec<String> = (0..=MAX_REQUIREMENTS).map(|i| format!("k{i}")).collect();
        let err = many.join(",").parse::<LabelSelector>().unwrap_err();
        assert!(matches!(
            err,
            SelectorError::TooMany {
                what: "requirements",
                ..
            }
        ));
    }

    /// Unknown JSON fields are refused; Kubernetes' decoder drops them (or warns).
    #[test]
    fn unknown_json_fields_are_refused() {
        let err =
            serde_json::from_str::<LabelSelector>(r#"{"matchLabels":{},"extra":1}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
    }
}
