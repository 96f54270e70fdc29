//! Table-driven unit tests: validation boundaries, operators, string syntax, explain.

use crate::{
    FailureReason, LabelSelector, Labels, MAX_LABELS, MAX_REQUIREMENTS, MAX_VALUES, SelectorError,
    SelectorOperator, SelectorRequirement,
};

fn labels(pairs: &[(&str, &str)]) -> Labels {
    Labels::from_pairs(pairs.iter().copied()).unwrap()
}

fn sel(s: &str) -> LabelSelector {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

/// Checks a label key: accepted or rejected with `InvalidKey`.
#[track_caller]
fn check_key(key: &str, ok: bool) {
    let got = Labels::from_pairs([(key, "v")]);
    match (ok, got) {
        (true, Ok(l)) => assert_eq!(l.get(key), Some("v")),
        (false, Err(SelectorError::InvalidKey { .. })) => {}
        (want, got) => panic!("key {key:?}: want ok={want}, got {got:?}"),
    }
}

#[track_caller]
fn check_value(value: &str, ok: bool) {
    let got = Labels::from_pairs([("k", value)]);
    match (ok, got) {
        (true, Ok(l)) => assert_eq!(l.get("k"), Some(value)),
        (false, Err(SelectorError::InvalidValue { .. })) => {}
        (want, got) => panic!("value {value:?}: want ok={want}, got {got:?}"),
    }
}

#[test]
fn key_rules() {
    let n63 = format!("a{}", "b".repeat(62));
    let n64 = format!("a{}", "b".repeat(63));
    // 253-byte prefix: dot-separated parts of at most 63 bytes each are not required by
    // the rule here, only the subdomain alphabet and total length.
    let p253 = format!("{}.{}", "a".repeat(126), "b".repeat(126));
    let p254 = format!("{}.{}", "a".repeat(127), "b".repeat(126));
    assert_eq!(
        (n63.len(), n64.len(), p253.len(), p254.len()),
        (63, 64, 253, 254)
    );
    check_key("zone", true);
    check_key("a", true);
    check_key("A_b.c-D9", true);
    check_key(&n63, true);
    check_key(&n64, false);
    check_key(&format!("{p253}/{n63}"), true);
    check_key(&format!("{p254}/zone"), false);
    check_key("example.com/zone", true);
    check_key("Example.com/zone", false); // DNS-1123 subdomains are lowercase
    check_key("example..com/zone", false);
    check_key("-example.com/zone", false);
    check_key("example.com-/zone", false);
    check_key("ex_ample.com/zone", false);
    check_key("/zone", false);
    check_key("example.com/", false);
    check_key("a/b/c", false);
    check_key("", false);
    check_key("-zone", false);
    check_key("zone-", false);
    check_key("zo ne", false);
    check_key("zöne", false);
}

#[test]
fn value_rules() {
    check_value("", true);
    check_value("eu", true);
    check_value("v1.2-rc_3", true);
    check_value(&format!("a{}", "b".repeat(62)), true);
    check_value(&format!("a{}", "b".repeat(63)), false);
    check_value("-eu", false);
    check_value("eu.", false);
    check_value("e u", false);
    check_value("e/u", false);
}

#[test]
fn labels_api() {
    let mut l = labels(&[("zone", "eu"), ("arch", "amd64")]);
    assert_eq!(l.len(), 2);
    assert_eq!(l.insert("zone", "us").unwrap(), Some("eu".to_owned()));
    assert_eq!(l.insert("gpu", "").unwrap(), None);
    assert_eq!(l.get("zone"), Some("us"));
    assert!(l.contains_key("gpu") && !l.contains_key("gp"));
    assert_eq!(l.remove("arch"), Some("amd64".to_owned()));
    assert_eq!(l.remove("arch"), None);
    assert_eq!(l.iter().collect::<Vec<_>>(), [("gpu", ""), ("zone", "us")]);
    assert_eq!(l.to_string(), "gpu=,zone=us");
    assert!(matches!(
        Labels::from_pairs([("a", "1"), ("a", "2")]),
        Err(SelectorError::DuplicateKey { .. })
    ));
    let full: Vec<(String, String)> = (0..MAX_LABELS)
        .map(|i| (format!("k{i}"), String::new()))
        .collect();
    let mut l = Labels::from_pairs(full.clone()).unwrap();
    assert!(matches!(
        l.insert("extra", "x"),
        Err(SelectorError::TooMany { .. })
    ));
    assert_eq!(l.len(), MAX_LABELS);
    assert_eq!(l.insert("k0", "x").unwrap(), Some(String::new()));
    let mut over = full;
    over.push(("extra".into(), String::new()));
    assert!(matches!(
        Labels::from_pairs(over),
        Err(SelectorError::TooMany { .. })
    ));
}

#[test]
fn long_keys_sharing_a_prefix_word() {
    let l = labels(&[
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/hostname", "n1"),
        ("kubernetes", "x"),
        ("kubernetes.io/os", "linux"),
    ]);
    assert_eq!(l.get("kubernetes.io/hostname"), Some("n1"));
    assert_eq!(l.get("kubernetes.io/host"), None);
    assert!(sel("kubernetes.io/os=linux,kubernetes.io/arch=amd64,kubernetes").matches(&l));
    assert!(!sel("kubernetes.io/os=linuxx").matches(&l));
    assert!(sel("kubernetes.io/zone notin (a)").matches(&l));
    let long = "a-value-longer-than-eight";
    let l = labels(&[("k", long)]);
    assert!(sel(&format!("k in (a-value-longer-than-eighT,{long})")).matches(&l));
    assert!(!sel("k=a-value-longer-than-eighx").matches(&l));
}

/// Every way `matches` decides a requirement, at the 32-byte edge of a head: keys and values
/// of 32 bytes and of 33 that start with them, and 40-byte ones that differ only in their last
/// byte, as one value (word compare, or the general test past 32), in a list of 2 to 4
/// (fingerprint, then the listed value's head) and in a hashed list of more than 8.
#[test]
fn heads_at_the_32_byte_edge() {
    let k32 = "node.kubernetes.io/instance-type";
    let k33 = "node.kubernetes.io/instance-typex";
    let v32 = "a-value-of-exactly-thirty-two-by";
    let v33 = "a-value-of-exactly-thirty-two-byt";
    let v40 = "a-value-of-forty-bytes-for-the-long-path";
    let v40b = "a-value-of-forty-bytes-for-the-long-patH";
    let many = |extra: &str| {
        let mut list: Vec<String> = (0..10).map(|i| format!("filler-value-{i}")).collect();
        list.push(extra.to_owned());
        list.join(",")
    };
    for set in [
        &[(k32, v32)][..],
        &[(k32, v32), (k33, v33), ("zone", "eu")][..],
    ] {
        for (selector, expected) in [
            (format!("{k32}={v32}"), true),
            (format!("{k32}={v33}"), false),
            (format!("{k33}={v32}"), false),
            (format!("{k33}={v33}"), set.len() > 1),
            (format!("{k32} in ({v33},{v40})"), false),
            (format!("{k32} in ({v32},{v40})"), true),
            (format!("{k32} notin ({v33},{v40b})"), true),
            (format!("{k32} in ({})", many(v33)), false),
            (format!("{k32} in ({})", many(v32)), true),
            (format!("{k33} in ({})", many(v33)), set.len() > 1),
        ] {
            check_match(&selector, set, expected);
        }
    }
    for (selector, expected) in [
        (format!("k={v40}"), true),
        (format!("k={v40b}"), false),
        (format!("k in ({v40b},{v33})"), false),
        (format!("k in ({v40},{v33})"), true),
        (format!("k in ({})", many(v40b)), false),
        (format!("k in ({})", many(v40)), true),
        (format!("k notin ({})", many(v40b)), true),
    ] {
        check_match(&selector, &[("k", v40), ("zone", "eu")], expected);
    }
}

/// The prefix rules (a DNS-1123 subdomain) as a plain reference: dot-separated parts, each
/// starting and ending with a lowercase letter or digit, with only those and '-' between.
fn reference_prefix(prefix: &str) -> bool {
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    prefix.len() <= crate::MAX_PREFIX_LEN
        && prefix.split('.').all(|part| {
            let b = part.as_bytes();
            b.first().is_some_and(edge)
                && b.last().is_some_and(edge)
                && b.iter().all(|c| edge(c) || *c == b'-')
        })
}

/// Every prefix of up to 4 bytes over letters of both cases, a digit, '-', '.' and '_', in a
/// label key and in a selector's string syntax (whose parser checks prefixes on its own
/// path), against the reference.
#[test]
fn prefixes_agree_with_the_reference() {
    let alphabet = ["a", "Z", "0", "-", ".", "_"];
    let mut prefixes = vec![String::new()];
    for _ in 0..4 {
        let longer: Vec<String> = prefixes
            .iter()
            .filter(|p| p.len() == prefixes.last().map_or(0, String::len))
            .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
            .collect();
        prefixes.extend(longer);
    }
    let long = format!("{}.io", "a".repeat(250));
    prefixes.extend([long.clone(), format!("{long}x"), "example.com".to_owned()]);
    for prefix in &prefixes {
        let key = format!("{prefix}/name");
        let want = reference_prefix(prefix);
        assert_eq!(Labels::from_pairs([(&key, "v")]).is_ok(), want, "{key:?}");
        let parsed = key.parse::<LabelSelector>();
        assert_eq!(parsed.is_ok(), want, "{key:?}: {parsed:?}");
        if let Ok(s) = parsed {
            assert!(s.matches(&labels(&[(&key, "v")])));
        }
    }
    for bad in ["a.io/b/c", "a.io//c", "/c", "a.io/", "a.io/-c", "a.io/c-"] {
        assert!(bad.parse::<LabelSelector>().is_err(), "{bad:?}");
    }
}

/// Label sets of every size up to `MAX_LABELS`, so both lookups run: through the key
/// index (small sets) and by search (sets past `INDEX_MAX`, or without a collision-free
/// window); each also after an `insert` and a `remove`.
#[test]
fn lookups_at_every_set_size() {
    let keys: Vec<String> = (0..MAX_LABELS).map(|i| format!("k{i}")).collect();
    let long: Vec<String> = (0..MAX_LABELS)
        .map(|i| format!("example.com/k{i}"))
        .collect();
    for n in 0..=MAX_LABELS {
        let mut l = Labels::from_pairs(
            keys.iter()
                .zip(&long)
                .take(n)
                .flat_map(|(k, lk)| [(k.as_str(), "v"), (lk.as_str(), "w")])
                .take(n),
        )
        .unwrap();
        let check = |l: &Labels| {
            for (i, (k, lk)) in keys.iter().zip(&long).enumerate() {
                let present = l.get(k).is_some();
                assert_eq!(sel(&format!("{k}=v")).matches(l), present, "{k} in {n}");
                assert_eq!(sel(k).matches(l), present, "{k} in {n}");
                assert_eq!(sel(&format!("!{k}")).matches(l), !present, "{k} in {n}");
                assert_eq!(sel(&format!("{k} notin (v,x)")).matches(l), !present);
                assert!(!sel(&format!("{k}=x")).matches(l));
                let long_present = l.get(lk).is_some();
                assert_eq!(sel(&format!("{lk}=w")).matches(l), long_present, "{lk} {i}");
                assert_eq!(sel(&format!("!{lk}")).matches(l), !long_present);
            }
        };
        check(&l);
        if n < MAX_LABELS {
            l.insert("added", "v").unwrap();
            assert!(sel("added=v").matches(&l));
            check(&l);
        }
        if let Some((k, _)) = l.iter().next() {
            let k = k.to_owned();
            l.remove(&k);
            assert!(!sel(&k).matches(&l));
            check(&l);
        }
    }
}

/// One line per case: selector, labels, expected match.
#[track_caller]
fn check_match(selector: &str, set: &[(&str, &str)], expected: bool) {
    let s = sel(selector);
    let l = labels(set);
    assert_eq!(s.matches(&l), expected, "{selector:?} on {l}");
    assert_eq!(
        s.explain(&l).is_empty(),
        expected,
        "explain {selector:?} on {l}"
    );
}

#[test]
fn operators() {
    let l = &[
        ("zone", "eu"),
        ("cores", "16"),
        ("name", "x"),
        ("empty", ""),
    ];
    check_match("", l, true);
    check_match("", &[], true);
    check_match("zone=eu", l, true);
    check_match("zone==eu", l, true);
    check_match("zone=us", l, false);
    check_match("missing=eu", l, false);
    check_match("zone!=us", l, true);
    check_match("zone!=eu", l, false);
    check_match("missing!=eu", l, true); // absent key matches !=
    check_match("zone in (us,eu)", l, true);
    check_match("zone in (us)", l, false);
    check_match("missing in (eu)", l, false); // In needs the key
    check_match("zone notin (us)", l, true);
    check_match("zone notin (us,eu)", l, false);
    check_match("missing notin (eu)", l, true); // absent key matches NotIn
    check_match("zone", l, true);
    check_match("missing", l, false);
    check_match("!missing", l, true);
    check_match("!zone", l, false);
    check_match("cores>15", l, true);
    check_match("cores>16", l, false);
    check_match("cores<17", l, true);
    check_match("cores<16", l, false);
    check_match("cores>-1", l, true);
    check_match("zone>0", l, false); // not an integer
    check_match("zone<0", l, false);
    check_match("missing>0", l, false);
    check_match("missing<0", l, false);
    check_match("empty>-5", l, false);
    check_match("empty=\"\"", l, true);
    check_match("empty in (\"\",x)", l, true);
    check_match("empty notin (\"\")", l, false);
    check_match("zone=eu,cores>8,!gpu", l, true);
    check_match("zone=eu,cores>16", l, false);
    check_match("zone=eu,zone=us", l, false); // two values for one key
    check_match("zone in (eu,us),zone notin (us)", l, true);
}

#[test]
fn requirement_validation() {
    use SelectorOperator::*;
    let count = |op, n: usize| SelectorRequirement::new("k", op, vec!["1"; n]);
    assert!(count(In, 1).is_ok() && count(NotIn, MAX_VALUES).is_ok());
    assert!(matches!(
        count(In, 0),
        Err(SelectorError::ValueCount { .. })
    ));
    assert!(matches!(
        count(NotIn, 0),
        Err(SelectorError::ValueCount { .. })
    ));
    assert!(matches!(
        count(In, MAX_VALUES + 1),
        Err(SelectorError::TooMany { .. })
    ));
    assert!(count(Exists, 0).is_ok() && count(DoesNotExist, 0).is_ok());
    assert!(matches!(
        count(Exists, 1),
        Err(SelectorError::ValueCount { .. })
    ));
    assert!(matches!(
        count(DoesNotExist, 1),
        Err(SelectorError::ValueCount { .. })
    ));
    assert!(count(Gt, 1).is_ok() && count(Lt, 1).is_ok());
    assert!(matches!(
        count(Gt, 0),
        Err(SelectorError::ValueCount { .. })
    ));
    assert!(matches!(
        count(Lt, 2),
        Err(SelectorError::ValueCount { .. })
    ));
    let err = SelectorRequirement::new("k", Gt, ["1.5"]).unwrap_err();
    assert!(matches!(&err, SelectorError::NotAnInteger { path, .. } if path == "values[0]"));
    let err = SelectorRequirement::new("k", In, ["ok", "not ok"]).unwrap_err();
    assert!(matches!(&err, SelectorError::InvalidValue { path, .. } if path == "values[1]"));
    let err = SelectorRequirement::new("Bad Key", Exists, [""; 0]).unwrap_err();
    assert!(matches!(&err, SelectorError::InvalidKey { path, .. } if path == "key"));
    assert_eq!("NotIn".parse::<SelectorOperator>().unwrap(), NotIn);
    assert!(matches!(
        "notin".parse::<SelectorOperator>(),
        Err(SelectorError::UnknownOperator { .. })
    ));
    for op in SelectorOperator::ALL {
        assert_eq!(op.to_string().parse::<SelectorOperator>().unwrap(), op);
    }
}

#[test]
fn builder_and_limits() {
    let s = LabelSelector::builder()
        .label("zone", "eu")
        .requirement(SelectorRequirement::gt("cores", 4).unwrap())
        .requirement(SelectorRequirement::in_values("gpu", ["h100", "a100", "h100"]).unwrap())
        .build()
        .unwrap();
    assert_eq!(s.to_string(), "cores>4,gpu in (a100,h100),zone=eu");
    assert_eq!(s.len(), 3);
    assert_eq!(s.match_labels().collect::<Vec<_>>(), [("zone", "eu")]);
    let exprs: Vec<_> = s.match_expressions().map(|r| r.to_requirement()).collect();
    assert_eq!(exprs[0], SelectorRequirement::gt("cores", 4).unwrap());
    assert_eq!(exprs[1].values(), ["a100", "h100"]);
    let err = LabelSelector::builder()
        .label("zone", "e u")
        .build()
        .unwrap_err();
    assert_eq!(err.path(), r#"matchLabels["zone"]"#);
    let mut b = LabelSelector::builder();
    for i in 0..=MAX_REQUIREMENTS {
        b = b.requirement(SelectorRequirement::exists(format!("k{i}")).unwrap());
    }
    assert!(matches!(b.build(), Err(SelectorError::TooMany { .. })));
    let many: Vec<String> = (0..=MAX_REQUIREMENTS).map(|i| format!("k{i}")).collect();
    assert!(matches!(
        many.join(",").parse::<LabelSelector>(),
        Err(SelectorError::TooMany { .. })
    ));
    assert!(
        many[..MAX_REQUIREMENTS]
            .join(",")
            .parse::<LabelSelector>()
            .is_ok()
    );
    let values: Vec<String> = (0..=MAX_VALUES).map(|i| format!("v{i}")).collect();
    let too_many = format!("k in ({})", values.join(","));
    assert!(matches!(
        too_many.parse::<LabelSelector>(),
        Err(SelectorError::TooMany { .. })
    ));
    let ok = format!("k in ({})", values[..MAX_VALUES].join(","));
    assert!(ok.parse::<LabelSelector>().is_ok());
    // Values written as nothing count as they are read: MAX_VALUES - 1 commas hold
    // MAX_VALUES empty values (one once they collapse), one more comma is too many.
    let commas = |n: usize| format!("k in ({})", ",".repeat(n));
    assert_eq!(sel(&commas(MAX_VALUES - 1)).to_string(), "k in ()");
    assert!(matches!(
        commas(MAX_VALUES).parse::<LabelSelector>(),
        Err(SelectorError::TooMany { what: "values", .. })
    ));
}

/// One line per malformed string: input, byte position, expected-text fragment.
#[track_caller]
fn check_syntax(input: &str, position: usize, expected: &str) {
    match input.parse::<LabelSelector>() {
        Err(SelectorError::Syntax {
            position: p,
            expected: e,
            ..
        }) => {
            assert_eq!(
                (p, e.contains(expected)),
                (position, true),
                "{input:?}: {e}"
            );
        }
        other => panic!("{input:?}: want a syntax error, got {other:?}"),
    }
}

#[test]
fn parse_errors() {
    check_syntax("k in (", 6, "a value");
    check_syntax("k in (a", 7, "',' or ')'");
    check_syntax("=v", 0, "a label key");
    check_syntax("k===", 3, "a value");
    check_syntax("k=(", 2, "a value");
    check_syntax("k in a,b", 5, "'('");
    check_syntax("k=v,", 4, "a label key");
    check_syntax("k=v,,j", 4, "a label key");
    check_syntax("!k=v", 2, "',' or end of input");
    check_syntax("k != )", 5, "a value");
    check_syntax("k ! v", 3, "'='");
    check_syntax("k>x", 2, "an integer");
    check_syntax("k<", 2, "an integer");
    check_syntax("k on (a)", 2, "an operator");
    check_syntax("Bad.Prefix/k", 0, "a valid label key");
    check_syntax("k=-v", 2, "a valid label value");
    check_syntax("k in (a b)", 8, "',' or ')'");
    check_syntax("k=\"x\"", 2, "only the empty value");
    check_syntax("k=v w", 4, "',' or end of input");
    let err = "k in (a".parse::<LabelSelector>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "selector syntax error at byte 7: expected ',' or ')', found end of input"
    );
}

#[test]
fn display_is_canonical() {
    let cases = [
        ("", ""),
        ("  ", ""),
        ("zone = eu , tier==prod", "tier=prod,zone=eu"),
        ("gpu in (h100, a100, h100)", "gpu in (a100,h100)"),
        // One excluded value prints as kubectl writes it; more keep the list.
        ("gpu notin(l4)", "gpu!=l4"),
        ("gpu!=l4", "gpu!=l4"),
        ("gpu notin (l4,t4)", "gpu notin (l4,t4)"),
        ("zone in (eu)", "zone in (eu)"),
        ("zone=eu,zone=us", "zone=eu,zone in (us)"),
        ("! draining, ssd", "!draining,ssd"),
        ("cores > 007, mem<-2", "cores>7,mem<-2"),
        // The empty value is written as nothing, as Kubernetes writes it; `""` is still read.
        ("k=\"\",j in (\"\", a)", "j in (,a),k="),
        ("k=,j in (,a),i notin ()", "i!=,j in (,a),k="),
        ("b,a,b", "a,b,b"),
        // Lists around the four values a requirement holds itself, duplicates included.
        ("k in (d,c,b,a)", "k in (a,b,c,d)"),
        ("k in (e,d,c,b,a)", "k in (a,b,c,d,e)"),
        ("k in (b,a,b,a,b,a)", "k in (a,b)"),
        ("k notin (d,d,c,c,b,a)", "k notin (a,b,c,d)"),
        (
            "k in (e,d,c,b,a,e),j in (x,y,z,x,y)",
            "j in (x,y,z),k in (a,b,c,d,e)",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(sel(input).to_string(), want, "{input:?}");
        assert_eq!(sel(want).to_string(), want, "fixpoint of {want:?}");
    }
    assert_eq!(sel("a,b"), sel("b,a"));
    assert_eq!(sel("k in (b,a,b,a,b)"), sel("k in (a,b)"));
    for (selector, value, want) in [
        ("k in (b,a,b,a,b)", "a", true),
        ("k in (b,a,b,a,b)", "c", false),
        ("k notin (b,a,b,a,b)", "b", false),
        ("k notin (b,a,b,a,b)", "c", true),
        ("k in (e,d,c,b,a)", "e", true),
        ("k in (e,d,c,b,a)", "f", false),
    ] {
        assert_eq!(
            sel(selector).matches(&labels(&[("k", value)])),
            want,
            "{selector} on {value}"
        );
    }
    assert_ne!(sel("k=v"), sel("k in (v)"));
}

#[test]
fn explain_reasons() {
    let l = labels(&[
        ("zone", "eu"),
        ("cores", "8"),
        ("name", "x"),
        ("draining", "yes"),
    ]);
    let reasons = |s: &str| -> Vec<(String, FailureReason)> {
        sel(s)
            .explain(&l)
            .into_iter()
            .map(|f| (f.path, f.reason))
            .collect()
    };
    let r = |p: &str, reason| vec![(p.to_owned(), reason)];
    assert_eq!(
        reasons("gpu"),
        r("matchExpressions[0]", FailureReason::KeyMissing)
    );
    assert_eq!(
        reasons("zone=us"),
        r(
            r#"matchLabels["zone"]"#,
            FailureReason::ValueNotListed { value: "eu".into() }
        )
    );
    assert_eq!(
        reasons("zone notin (eu)"),
        r(
            "matchExpressions[0]",
            FailureReason::ValueExcluded { value: "eu".into() }
        )
    );
    assert_eq!(
        reasons("!draining"),
        r(
            "matchExpressions[0]",
            FailureReason::KeyPresent {
                value: "yes".into()
            }
        )
    );
    assert_eq!(
        reasons("name>1"),
        r(
            "matchExpressions[0]",
            FailureReason::NotAnInteger { value: "x".into() }
        )
    );
    assert_eq!(
        reasons("cores>8"),
        r(
            "matchExpressions[0]",
            FailureReason::NotGreater { value: 8, bound: 8 }
        )
    );
    assert_eq!(
        reasons("cores<8"),
        r(
            "matchExpressions[0]",
            FailureReason::NotLess { value: 8, bound: 8 }
        )
    );
    let all = reasons("zone=eu,gpu,cores>1,!draining");
    assert_eq!(
        all.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["matchExpressions[1]", "matchExpressions[2]"]
    );
    let failure = &sel("gpu in (a100)").explain(&l)[0];
    assert_eq!(
        failure.to_string(),
        "matchExpressions[0] (gpu in (a100)): key missing"
    );
}

#[test]
fn error_paths_and_messages() {
    let err = Labels::from_pairs([("zone", "e u")]).unwrap_err();
    assert_eq!(err.path(), r#"["zone"]"#);
    assert_eq!(err.clone().prefixed("labels").path(), r#"labels["zone"]"#);
    let msg = err.to_string();
    assert!(
        msg.starts_with(r#"["zone"]: invalid label value "e u""#),
        "{msg}"
    );
    let long = "x".repeat(500);
    let msg = Labels::from_pairs([(long.as_str(), "v")])
        .unwrap_err()
        .to_string();
    assert!(msg.len() < 300, "long input is shortened: {msg}");
}

#[test]
fn public_types_are_send_and_sync() {
    fn check<T: Send + Sync + Clone + std::fmt::Debug>() {}
    check::<Labels>();
    check::<LabelSelector>();
    check::<SelectorRequirement>();
    check::<SelectorOperator>();
    check::<SelectorError>();
    check::<crate::RequirementFailure>();
}
