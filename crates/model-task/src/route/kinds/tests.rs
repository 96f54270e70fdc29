//! Unit tests for `kinds`: the lookup when two extensions share a hash or a filter bit,
//! which real names almost never do.

use super::*;

fn ext(text: &str) -> ExtensionKind {
    text.parse().unwrap()
}

/// A set whose extensions carry the given hashes instead of their own.
fn forged(entries: &[(u64, &str)]) -> KindSet {
    let mut entries: Vec<Entry> = entries
        .iter()
        .map(|(hash, text)| Entry {
            hash: *hash,
            kind: ext(text),
        })
        .collect();
    entries.sort_by(|a, b| a.hash.cmp(&b.hash).then_with(|| a.kind.cmp(&b.kind)));
    KindSet {
        mask: entries.iter().fold(0, |m, e| m | extension_bit(e.hash)),
        extensions: Some(entries.into()),
    }
}

#[test]
fn equal_hashes_are_told_apart_by_name() {
    let set = forged(&[
        (7, "a.io/v1/A"),
        (7, "a.io/v1/B"),
        (7, "a.io/v1/C"),
        (9, "a.io/v1/D"),
    ]);
    for (text, want) in [
        ("a.io/v1/A", true),
        ("a.io/v1/B", true),
        ("a.io/v1/C", true),
        ("a.io/v1/E", false),
    ] {
        assert_eq!(set.has_extension(7, &ext(text)), want, "{text}");
    }
    assert!(set.has_extension(9, &ext("a.io/v1/D")));
    assert!(!set.has_extension(9, &ext("a.io/v1/A")));
    assert!(!set.has_extension(8, &ext("a.io/v1/A")));
    assert!(!set.has_extension(u64::MAX, &ext("a.io/v1/A")));
}

#[test]
fn a_shared_filter_bit_falls_back_to_the_list() {
    // Hashes 3 and 3 + 61 set the same bit: the bit passes, the list decides.
    assert_eq!(extension_bit(3), extension_bit(3 + 61));
    let set = forged(&[(3, "a.io/v1/A")]);
    let probe_kind = ext("a.io/v1/B");
    let probe = KindProbe {
        bit: extension_bit(3 + 61),
        extension: Some((3 + 61, &probe_kind)),
    };
    assert!(!probe.matches(&set));
    let same = ext("a.io/v1/A");
    let probe = KindProbe {
        bit: extension_bit(3),
        extension: Some((3, &same)),
    };
    assert!(probe.matches(&set));
}

#[test]
fn filter_bits_stay_above_the_built_in_ones() {
    for hash in [0, 1, 60, 61, 62, u64::MAX] {
        let bit = extension_bit(hash);
        assert_eq!(bit.count_ones(), 1);
        assert_eq!(bit & BUILTIN_MASK, 0, "{hash}");
    }
    // An extension never answers for a built-in kind, nor the reverse.
    let only_extensions: KindSet = "a.io/v1/A,b.io/v1/B".parse().unwrap();
    for builtin in [KindName::Subprocess, KindName::Container, KindName::Wasm] {
        assert!(!only_extensions.contains_kind(&builtin));
    }
    assert!(!KindSet::ALL.contains_kind(&KindName::Extension(ext("a.io/v1/A"))));
}
