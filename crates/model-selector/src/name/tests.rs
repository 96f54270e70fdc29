//! The one-pass prefix check against the rules written plainly, part by part.

use proptest::prelude::*;

use super::{MAX_PREFIX_LEN, is_name_prefix, is_prefix};

/// DNS-1123 subdomain, as Kubernetes words it: dot-separated parts of lowercase letters,
/// digits and '-', each starting and ending with a letter or digit, at most 253 bytes.
fn reference(prefix: &[u8]) -> bool {
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !prefix.is_empty()
        && prefix.len() <= MAX_PREFIX_LEN
        && prefix.split(|&b| b == b'.').all(|part| {
            part.first().is_some_and(edge)
                && part.last().is_some_and(edge)
                && part.iter().all(|&b| edge(&b) || b == b'-')
        })
}

#[test]
fn is_prefix_table() {
    let long = |n: usize| "a".repeat(n);
    let cases: &[(&str, bool)] = &[
        ("", false),
        ("a", true),
        ("kubernetes.io", true),
        ("topology.kubernetes.io", true),
        ("a-b.c--d.e", true),
        ("0.1.2.3.4.5.6.7.8", true),
        ("a.", false),
        (".a", false),
        ("-a", false),
        ("a-", false),
        ("a..b", false),
        ("a.-b", false),
        ("a-.b", false),
        ("Kubernetes.io", false),
        ("a_b", false),
        ("a/b", false),
        ("a b", false),
        ("é.io", false),
        // A bad pair at and around byte 8.
        ("abcdefg.-b", false),
        ("abcdefgh.-b", false),
        ("abcdefg-.b", false),
        ("abcdefgh-.b", false),
        ("abcdefg..b", false),
        ("abcdefgh..b", false),
        ("abcdefgh.b", true),
        // A bad byte last.
        ("abcdefgH", false),
        ("abcdefghI", false),
    ];
    for &(prefix, valid) in cases {
        assert_eq!(is_prefix(prefix.as_bytes()), valid, "{prefix:?}");
        let name_bytes = prefix.bytes().all(super::is_name_byte);
        if name_bytes {
            assert_eq!(is_name_prefix(prefix.as_bytes()), valid, "name {prefix:?}");
        }
        assert_eq!(reference(prefix.as_bytes()), valid, "reference {prefix:?}");
    }
    assert!(is_prefix(long(MAX_PREFIX_LEN).as_bytes()));
    assert!(!is_prefix(long(MAX_PREFIX_LEN + 1).as_bytes()));
}

proptest! {
    #[test]
    fn is_prefix_agrees_with_the_rules(prefix in "[a-c0.\\-A_/é]{0,40}") {
        prop_assert_eq!(is_prefix(prefix.as_bytes()), reference(prefix.as_bytes()));
    }

    /// Long prefixes: many 8-byte windows, and past the limit. Few bad bytes, so that most
    /// are valid and the rule on dots and dashes decides.
    #[test]
    fn is_prefix_agrees_with_the_rules_on_long_prefixes(prefix in "([a-c0-9]{1,6}[.\\-]){0,60}[a-z]{1,3}|[a-z.\\-]{0,300}") {
        prop_assert_eq!(is_prefix(prefix.as_bytes()), reference(prefix.as_bytes()));
    }

    /// The parser's check, on runs of name bytes (what it is given): uppercase letters and
    /// `_` anywhere, dots and dashes beside each other, short and long.
    #[test]
    fn is_name_prefix_agrees_with_the_rules(prefix in "[a0.\\-]{0,20}|[a0.\\-]{0,10}[Z_][a0.\\-]{0,10}|([a-cY_0-9]{1,6}[.\\-]{1,2}){0,60}[a-zA_]{1,3}") {
        prop_assert_eq!(is_name_prefix(prefix.as_bytes()), reference(prefix.as_bytes()));
    }

    #[test]
    fn is_prefix_agrees_with_the_rules_on_any_bytes(prefix in proptest::collection::vec(any::<u8>(), 0..40)) {
        prop_assert_eq!(is_prefix(&prefix), reference(&prefix));
    }
}
