//! Invariants of the compiled form that `matches` relies on.

use super::{
    LabelSelector,
    compiled::{Form, ONE, PAIR},
};
use crate::SelectorError;

/// Selectors of every form: one value, none, lists of two to four short or long values, long
/// lists, lists that deduplication leaves one value, keys and values over 32 bytes, `Gt`
/// and `Lt`.
fn every_form() -> Vec<LabelSelector> {
    let long = "v".repeat(40);
    let key = format!("{}/k", "p".repeat(40));
    let many: Vec<String> = (0..20).map(|i| format!("value-number-{i}")).collect();
    let texts = [
        "a=b".to_owned(),
        "a".to_owned(),
        "!a".to_owned(),
        "a!=b".to_owned(),
        "a in (x,y)".to_owned(),
        "a notin (x,y,z,w)".to_owned(),
        "a in (long-value-one,long-value-two)".to_owned(),
        "a in (long-value-one,long-value-two,long-value-three)".to_owned(),
        "a in (x,long-value)".to_owned(),
        format!("a in ({})", many.join(",")),
        "a in (a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)".to_owned(),
        format!("a={long}"),
        format!("{key}=v"),
        format!("{key} in (x,y)"),
        "a>5,b<3".to_owned(),
        "a=b,a=c".to_owned(),
        // Lists that deduplication leaves with one value.
        "a in (x,x)".to_owned(),
        "a notin (y,y,y,y,y,y)".to_owned(),
    ];
    texts.iter().map(|t| t.parse().unwrap()).collect()
}

/// A requirement whose bit ([`ONE`], [`PAIR`]) is missing would still match right (by the
/// general test), only slower; one whose bit is wrongly set would compare the wrong words.
#[test]
fn one_bit_marks_exactly_form_one() {
    let mut forms = Vec::new();
    for sel in every_form() {
        for req in &sel.reqs {
            assert_eq!(req.mask & ONE != 0, req.form == Form::One, "{sel}: {req:?}");
            assert_eq!(
                req.mask & PAIR != 0,
                req.form == Form::Pair,
                "{sel}: {req:?}"
            );
            forms.push(req.form);
        }
    }
    for form in [Form::Slow, Form::One, Form::Four, Form::Hashed, Form::Pair] {
        assert!(forms.contains(&form), "no {form:?}");
    }
}

/// Values of every length around the words a hashed list's slot compares (8, 16, 24, 32
/// bytes and one past), sharing their prefixes, so that two of them differ only past a word.
/// Over [`MAX_VALUES`](crate::MAX_VALUES) would not parse; these are well under.
fn near_values() -> Vec<String> {
    let base = "abcdefghijklmnopqrstuvwxyz0123456789abcd";
    let mut values: Vec<String> = [1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40]
        .iter()
        .map(|&n| base[..n].to_owned())
        .collect();
    // The same lengths with the last byte changed.
    let changed: Vec<String> = values
        .iter()
        .map(|v| format!("{}Z", &v[..v.len() - 1]))
        .collect();
    values.extend(changed);
    // Values that share their first 8 or 16 bytes, so that whatever listed value a label
    // value's slot holds agrees with it on those words.
    for prefix in ["abcdefgh", "abcdefghijklmnop"] {
        for tail in ["", "1", "12345678", "123456789", "1234567812345678", "x"] {
            values.push(format!("{prefix}{tail}"));
        }
    }
    values.sort();
    values.dedup();
    values
}

/// A hashed list (more than eight values) decides each label value as the plain test does:
/// every listed value matches, every near miss does not, on both `In` and `NotIn`, through
/// a label set with an index and one without.
#[test]
fn hashed_lists_decide_near_values() {
    let values = near_values();
    for skip in 0..4 {
        // Lists of every fourth value left out, so each length is both listed and not.
        let listed: Vec<&String> = values
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 4 != skip)
            .map(|(_, v)| v)
            .collect();
        let (list, in_list, not_in) = in_and_not_in(&listed);
        assert!(
            in_list.reqs.iter().all(|r| r.form == Form::Hashed),
            "{in_list}"
        );
        for value in &values {
            let want = listed.contains(&value);
            let indexed = crate::Labels::from_pairs([("k", value.as_str())]).unwrap();
            let many: Vec<(String, String)> = (0..40)
                .map(|i| (format!("other{i}"), "x".to_owned()))
                .chain([("k".to_owned(), value.clone())])
                .collect();
            let searched =
                crate::Labels::from_pairs(many.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .unwrap();
            for labels in [&indexed, &searched] {
                assert_eq!(in_list.matches(labels), want, "{value} in {list}");
                assert_eq!(not_in.matches(labels), !want, "{value} notin {list}");
            }
        }
    }
}

/// A label value whose fingerprint equals a listed value's (a collision, forced here) is
/// still told apart by the head in that value's slot, in the loop's test and in the general
/// one, however many leading words the two share.
#[test]
fn hashed_slots_tell_colliding_values_apart() {
    let values = near_values();
    let sel: LabelSelector = format!("k in ({})", values.join(",")).parse().unwrap();
    let req = sel.reqs.first().unwrap();
    assert_eq!(req.form, Form::Hashed);
    for listed in &values {
        let listed_labels = crate::Labels::from_pairs([("k", listed.as_str())]).unwrap();
        let key = crate::packed::Span::new(0, 1);
        let listed_fp = listed_labels.search(key, "k").unwrap().value_fp;
        for value in &values {
            let labels = crate::Labels::from_pairs([("k", value.as_str())]).unwrap();
            let mut entry = *labels.search(key, "k").unwrap();
            entry.value_fp = listed_fp;
            let same = value == listed;
            let same_head = value.len() > 32 && listed.len() > 32 && value[..32] == listed[..32];
            match sel.hashed_by_head(req, &entry) {
                Some(got) => assert_eq!(got, same, "{value} as {listed}"),
                // Undecided only past 32 bytes, with the same first 32.
                None => assert!(same_head, "{value} as {listed}"),
            }
            // The general test compares bytes past equal long heads: every value is listed.
            let arena = labels.arena().as_bytes();
            let got = sel.listed_hashed(req, &entry, arena);
            assert_eq!(got, same || same_head, "{value} as {listed}");
        }
    }
}

/// A list of two values, in either order, equal or not, sharing leading words or not: kept
/// sorted and deduplicated as the canonical form says, a [`Form::Pair`] exactly when both
/// are at most 16 bytes and one is over 8, and matched as the plain test does by the loop,
/// by the general test after a `Gt` (which the loop hands on) and in a searched label set.
#[test]
fn two_value_lists_sort_dedup_and_match() {
    let values = near_values();
    let others: Vec<(String, String)> = (0..40)
        .map(|i| (format!("other{i}"), "x".to_owned()))
        .collect();
    for a in &values {
        for b in &values {
            let sel: LabelSelector = format!("k in ({a},{b})").parse().unwrap();
            let swapped: LabelSelector = format!("k in ({b},{a})").parse().unwrap();
            let after_gt: LabelSelector = format!("a>0,k in ({a},{b})").parse().unwrap();
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let want = if a == b {
                format!("k in ({a})")
            } else {
                format!("k in ({lo},{hi})")
            };
            assert_eq!(sel.to_string(), want);
            assert_eq!(sel, swapped);
            let pair = a != b && a.len().max(b.len()) <= 16 && a.len().max(b.len()) > 8;
            let form = sel.reqs.first().unwrap().form;
            assert_eq!(form == Form::Pair, pair, "{sel}: {form:?}");
            for value in &values {
                let want = value == a || value == b;
                let labels = crate::Labels::from_pairs([("k", value.as_str())]).unwrap();
                assert_eq!(sel.matches(&labels), want, "{value} in {sel}");
                let with_a = crate::Labels::from_pairs([("a", "1"), ("k", value)]).unwrap();
                assert_eq!(after_gt.matches(&with_a), want, "{value} in {after_gt}");
                let searched = crate::Labels::from_pairs(
                    others
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .chain([("k", value.as_str())]),
                )
                .unwrap();
                assert_eq!(sel.matches(&searched), want, "{value} in {sel}, searched");
            }
        }
    }
}

/// A list read by the tight loop reads as the same list with a space after `(` (which the
/// general loop reads from its first value): the same selector, or the same error one byte
/// further on.
#[test]
fn tight_lists_read_as_spaced_ones() {
    let long = "v".repeat(64);
    let values = |n: usize| {
        (0..n)
            .map(|i| format!("v{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let lists = [
        "a,b".to_owned(),
        "b,a,b".to_owned(),
        "a,b,".to_owned(),
        ",a".to_owned(),
        "a,,b".to_owned(),
        "a, b".to_owned(),
        "a ,b".to_owned(),
        "a,b ".to_owned(),
        "a,\"\"".to_owned(),
        "a,\"x\"".to_owned(),
        "a,-b".to_owned(),
        "a,b-".to_owned(),
        "a,b c".to_owned(),
        "a,b".to_owned() + ")x",
        "a,b".to_owned() + "))",
        format!("a,{long}"),
        format!("a,{}", &long[..63]),
        "a,b/c".to_owned(),
        "a,b=c".to_owned(),
        values(128),
        values(129),
        values(200),
    ];
    for list in &lists {
        for close in [")", ""] {
            let tight = format!("k in ({list}{close}");
            let spaced = format!("k in ( {list}{close}");
            let (a, b) = (
                tight.parse::<LabelSelector>(),
                spaced.parse::<LabelSelector>(),
            );
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{tight}"),
                (
                    Err(crate::SelectorError::Syntax {
                        position: p,
                        expected: e,
                        found: f,
                    }),
                    Err(crate::SelectorError::Syntax {
                        position: q,
                        expected: g,
                        found: h,
                    }),
                ) => assert_eq!((p + 1, e, f), (q, g, h), "{tight}"),
                (a, b) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{tight}"),
            }
        }
    }
}

/// Short lists of long values and hashed lists keep their heads in one vector, each from
/// its own offset: in selectors that hold both, in either order and with a short list on
/// each side of a hashed one, every requirement still decides every value by its own list.
#[test]
fn short_and_hashed_lists_share_heads() {
    let values = near_values();
    let long: Vec<&String> = values.iter().filter(|v| v.len() > 8).collect();
    let short_a = &long[..3];
    let short_c = &long[3..5];
    let hashed: Vec<&String> = long.iter().skip(5).step_by(2).copied().collect();
    assert!(hashed.len() > 8);
    let list = |vs: &[&String]| vs.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(",");
    let parts = [
        ("a", short_a.to_vec(), format!("a in ({})", list(short_a))),
        ("b", hashed.clone(), format!("b in ({})", list(&hashed))),
        (
            "c",
            short_c.to_vec(),
            format!("c notin ({})", list(short_c)),
        ),
    ];
    for order in [[0, 1, 2], [1, 0, 2], [2, 1, 0], [1, 2, 0]] {
        let text = order.map(|i| parts[i].2.as_str()).join(",");
        let sel: LabelSelector = text.parse().unwrap();
        let forms: Vec<Form> = sel.reqs.iter().map(|r| r.form).collect();
        assert!(
            forms.contains(&Form::Hashed) && forms.contains(&Form::Four),
            "{forms:?}"
        );
        for (key, listed, _) in &parts {
            let notin = *key == "c";
            for value in &values {
                // The other two requirements hold: `a` and `b` on a value of each list,
                // `c` absent.
                let mut pairs = vec![(*key, value.as_str())];
                for (other, other_listed, _) in &parts {
                    if other != key && *other != "c" {
                        pairs.push((*other, other_listed[0].as_str()));
                    }
                }
                let labels = crate::Labels::from_pairs(pairs).unwrap();
                let want = listed.contains(&value) != notin;
                assert_eq!(sel.matches(&labels), want, "{key}={value} in {text}");
            }
        }
    }
}

/// A list of three or four values over 8 bytes (a [`Form::Four`] whose fingerprints are
/// hashes) decides every near value as the plain test does: by the heads in the loop, and
/// by fingerprints and bytes in the general test after a `Gt`, with values around 8, 16, 24
/// and 32 bytes that share prefixes, and over 32 bytes with the same first 32 (which the
/// heads leave to the general test).
#[test]
fn four_long_values_decide_near_values() {
    let values = near_values();
    let long: Vec<&String> = values.iter().filter(|v| v.len() > 16).collect();
    for n in [3, 4] {
        for listed in long.windows(n) {
            let (list, in_list, not_in) = in_and_not_in(listed);
            let after_gt: LabelSelector = format!("a>0,k in ({list})").parse().unwrap();
            let form = in_list.reqs.first().unwrap().form;
            assert!(
                matches!(form, Form::Four | Form::Slow),
                "{in_list}: {form:?}"
            );
            for value in &values {
                let want = listed.contains(&value);
                let labels = crate::Labels::from_pairs([("k", value.as_str())]).unwrap();
                assert_eq!(in_list.matches(&labels), want, "{value} in {list}");
                assert_eq!(not_in.matches(&labels), !want, "{value} notin {list}");
                let with_a = crate::Labels::from_pairs([("a", "1"), ("k", value)]).unwrap();
                assert_eq!(
                    after_gt.matches(&with_a),
                    want,
                    "{value} in {list}, general"
                );
            }
        }
    }
}

/// `listed` joined with commas, and the selectors `k in (...)` and `k notin (...)` of it.
fn in_and_not_in(listed: &[&String]) -> (String, LabelSelector, LabelSelector) {
    let list = listed
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let in_list = format!("k in ({list})").parse().unwrap();
    let not_in = format!("k notin ({list})").parse().unwrap();
    (list, in_list, not_in)
}

/// Parsed text of up to [`INLINE`](super::text::INLINE) bytes is kept in the selector, longer
/// text in a `String`: selectors on both sides of the boundary read back the same strings,
/// print, clone, compare and match alike.
#[test]
fn inline_and_heap_text_read_alike() {
    use crate::Labels;
    let inline = super::text::INLINE;
    for len in inline - 3..=inline + 3 {
        // "k=" and a value making the text `len` bytes, then the same in a list.
        let value = "v".repeat(len - 2);
        for text in [format!("k={value}"), format!("k in (a,{})", &value[7..])] {
            assert_eq!(text.len(), len);
            let sel: LabelSelector = text.parse().unwrap();
            let listed = value
                .get(if text.contains('(') { 7.. } else { 0.. })
                .unwrap();
            let built = LabelSelector::from_parts(
                &Labels::new(),
                &[crate::SelectorRequirement::new(
                    "k",
                    crate::SelectorOperator::In,
                    vec!["a".to_owned(), listed.to_owned()],
                )
                .unwrap()],
            )
            .unwrap();
            if text.contains('(') {
                assert_eq!(sel, built, "{text}");
                assert_eq!(sel.to_string(), text);
            } else {
                assert_eq!(sel.match_labels().collect::<Vec<_>>(), [("k", listed)]);
                assert_eq!(sel.to_string(), text);
            }
            let copy = sel.clone();
            assert_eq!(copy, sel);
            assert_eq!(copy.to_string(), text);
            let labels = Labels::from_pairs([("k", listed)]).unwrap();
            assert!(sel.matches(&labels) && copy.matches(&labels), "{text}");
        }
    }
}

/// Serialization writes `matchLabels` and `matchExpressions` only when there are some, for
/// text kept in the selector and in a `String` alike.
#[test]
fn json_has_the_parts_there_are() {
    let long = format!("x{}", "y".repeat(super::text::INLINE));
    let cases = [
        (String::new(), "{}".to_owned()),
        ("a=b".to_owned(), r#"{"matchLabels":{"a":"b"}}"#.to_owned()),
        (
            "!a".to_owned(),
            r#"{"matchExpressions":[{"key":"a","operator":"DoesNotExist"}]}"#.to_owned(),
        ),
        (
            "!c,a=b".to_owned(),
            r#"{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"c","operator":"DoesNotExist"}]}"#
                .to_owned(),
        ),
        (
            format!("{long}=v,k in (b,a)"),
            format!(
                r#"{{"matchLabels":{{"{long}":"v"}},"matchExpressions":[{{"key":"k","operator":"In","values":["a","b"]}}]}}"#
            ),
        ),
    ];
    for (text, json) in cases {
        let sel: LabelSelector = text.parse().unwrap();
        assert_eq!(serde_json::to_string(&sel).unwrap(), json, "{text}");
    }
}

/// The largest selector the limits allow: 64 `notin` requirements, each on a key of
/// `MAX_KEY_LEN` bytes with 128 values of `MAX_VALUE_LEN`.
fn largest_selector_text() -> String {
    let prefix = format!(
        "{}.{}.{}.{}",
        "a".repeat(63),
        "b".repeat(63),
        "c".repeat(63),
        "d".repeat(61)
    );
    let values: Vec<String> = (0..crate::MAX_VALUES)
        .map(|j| format!("v{j:03}{}", "y".repeat(crate::MAX_VALUE_LEN - 4)))
        .collect();
    let values = values.join(",");
    (0..crate::MAX_REQUIREMENTS)
        .map(|i| {
            let name = format!("k{i:02}{}", "x".repeat(crate::MAX_NAME_LEN - 3));
            format!("{prefix}/{name} notin ({values})")
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn every_selector_text_fits_the_text_limit_and_one_byte_more_is_refused() {
    let text = largest_selector_text();
    let largest: LabelSelector = text.parse().unwrap();
    let canonical = largest.to_string();
    assert!(
        canonical.len() <= crate::MAX_SELECTOR_TEXT_LEN,
        "{}",
        canonical.len()
    );
    // Padded with spaces to the limit it still parses, to the same selector.
    let padded = format!(
        "{canonical}{}",
        " ".repeat(crate::MAX_SELECTOR_TEXT_LEN - canonical.len())
    );
    assert_eq!(padded.parse::<LabelSelector>().unwrap(), largest);
    let over = format!("{padded} ");
    let error = over.parse::<LabelSelector>().unwrap_err();
    assert!(
        matches!(
            error,
            SelectorError::TooMany { what: "bytes of selector text", limit, .. }
                if limit == crate::MAX_SELECTOR_TEXT_LEN
        ),
        "{error}"
    );
}

/// A second `k=v` becomes `k in (v)` only on the same key: keys of at most 8 bytes are
/// compared by their first word and the second (zero), so a longer key that starts with the
/// same 8 bytes, or a requirement of another kind on the key, leaves it a `matchLabels` entry.
#[test]
fn a_second_equality_is_in_only_on_the_same_key() {
    for (text, printed, labels) in [
        ("abcdefgh=1,abcdefgh=2", "abcdefgh=1,abcdefgh in (2)", 1),
        ("abcdefghij=1,abcdefgh=2", "abcdefgh=2,abcdefghij=1", 2),
        ("abcdefgh=1,abcdefghij=2", "abcdefgh=1,abcdefghij=2", 2),
        ("abcdefgh!=1,abcdefgh=2", "abcdefgh=2,abcdefgh!=1", 1),
        ("abcdefgh,abcdefgh=2", "abcdefgh=2,abcdefgh", 1),
    ] {
        let sel: LabelSelector = text.parse().unwrap();
        assert_eq!(sel.to_string(), printed, "{text}");
        assert_eq!(sel.match_labels().count(), labels, "{text}");
    }
}

/// Empty values and values of up to 8 bytes written where more text follows (their first
/// word is read from the text and cleared past them) match exactly themselves.
#[test]
fn short_values_amid_text_match_exactly() {
    let sel: LabelSelector = "x=,y!=,z=a,w in (ab,abcdefgh),v=abcdefgh,u"
        .parse()
        .unwrap();
    let base = [
        ("x", ""),
        ("y", "b"),
        ("z", "a"),
        ("w", "ab"),
        ("v", "abcdefgh"),
        ("u", "1"),
    ];
    let labels = |changed: Option<(&str, &str)>| {
        let pairs = base.map(|(k, v)| match changed {
            Some((ck, cv)) if ck == k => (k, cv),
            _ => (k, v),
        });
        crate::Labels::from_pairs(pairs).unwrap()
    };
    assert!(sel.matches(&labels(None)));
    for changed in [
        ("x", "a"),
        ("y", ""),
        ("z", "ab"),
        ("w", "a"),
        ("v", "abcdefg"),
    ] {
        assert!(!sel.matches(&labels(Some(changed))), "{changed:?}");
    }
    assert!(sel.matches(&labels(Some(("w", "abcdefgh")))));
}

/// `in` and `notin` are operators only as whole words: a longer run of name bytes that
/// starts with one is refused at its start, quoted whole; a parenthesis may follow at once.
#[test]
fn list_operators_are_whole_words() {
    for (text, printed) in [
        ("x in(a)", "x in (a)"),
        ("x notin(a,b)", "x notin (a,b)"),
        ("x in (a),y", "x in (a),y"),
    ] {
        let sel: LabelSelector = text.parse().unwrap();
        assert_eq!(sel.to_string(), printed, "{text}");
    }
    for (text, word) in [
        ("x inn (a)", "inn"),
        ("x in_ (a)", "in_"),
        ("x in.x (a)", "in.x"),
        ("x notin1 (a)", "notin1"),
        ("x notinx(a)", "notinx"),
        ("x i (a)", "i"),
        ("x note (a)", "note"),
        ("x IN (a)", "IN"),
    ] {
        match text.parse::<LabelSelector>() {
            Err(SelectorError::Syntax {
                position: 2, found, ..
            }) => assert_eq!(found, format!("\"{word}\""), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}
