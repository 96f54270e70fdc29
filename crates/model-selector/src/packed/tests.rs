//! The byte-level equality helpers against `==`, at every length and every differing byte,
//! and a key lookup whose hash matches a different key (a forced collision).

use super::{Ends, Packed, Span, same_bytes};
use crate::Labels;

/// A string of `len` name bytes, `seed` varying them.
fn text(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| b'a' + (i as u8 + seed) % 26).collect()
}

fn span_of(arena: &[u8], len: usize) -> Span {
    Span {
        start: u32::try_from(arena.len() - len).unwrap(),
        len: u32::try_from(len).unwrap(),
    }
}

#[test]
fn same_bytes_and_ends_agree_with_eq_at_every_length_and_byte() {
    for len in 0..=70 {
        let a = text(len, 0);
        // Other bytes before the string in its arena, so spans do not start at zero.
        let mut arena_a = b"xyz".to_vec();
        arena_a.extend_from_slice(&a);
        let ends_a = Ends::of(&arena_a, span_of(&arena_a, len));
        for at in 0..len {
            let mut b = a.clone();
            b[at] = b'0';
            let mut arena_b = b"12345".to_vec();
            arena_b.extend_from_slice(&b);
            let span_b = span_of(&arena_b, len);
            assert!(!same_bytes(&a, &b), "len {len}, byte {at}");
            if (9..=32).contains(&len) {
                assert!(!ends_a.same(&arena_b, span_b), "ends: len {len}, byte {at}");
            }
        }
        let mut arena_b = b"12345".to_vec();
        arena_b.extend_from_slice(&a);
        assert!(same_bytes(&a, &a.clone()), "len {len}");
        if (9..=32).contains(&len) {
            assert!(
                ends_a.same(&arena_b, span_of(&arena_b, len)),
                "ends: len {len}"
            );
        }
        // Different lengths are never equal.
        assert!(!same_bytes(&a, &text(len + 1, 0)), "len {len}");
    }
}

/// A span outside the arena (which no caller passes) is equal to nothing, and does not
/// panic.
#[test]
fn ends_outside_the_arena() {
    let arena = text(40, 3);
    let ends = Ends::of(&arena, Span { start: 0, len: 20 });
    assert!(!ends.same(&arena, Span { start: 30, len: 20 }));
    assert!(!ends.same(
        &arena,
        Span {
            start: u32::MAX,
            len: 20
        }
    ));
    assert_eq!(
        Ends::of(&arena, Span { start: 35, len: 20 }),
        Ends::default()
    );
}

/// A lookup is not fooled by a hash: given the hash of a key in the set but another key of
/// the same length (a forced collision), it compares the bytes and finds nothing, for keys
/// of every length that takes the byte compare.
#[test]
fn a_forced_hash_collision_is_told_apart_by_the_bytes() {
    for len in [9, 12, 15, 16, 17, 24, 27, 32, 33, 40, 63] {
        let key: String = "k".repeat(len);
        let other: String = format!("{}x", "k".repeat(len - 1));
        let labels = Labels::from_pairs([(key.as_str(), "v"), ("zone", "eu")]).unwrap();
        let lookup = labels.lookup().unwrap();
        let entry = lookup
            .find(
                super::key_hash(super::word(key.as_bytes()), key.as_bytes()),
                &Packed::at(&key, 0, len),
                &Ends::of(
                    key.as_bytes(),
                    Span {
                        start: 0,
                        len: len as u32,
                    },
                ),
                key.as_bytes(),
            )
            .unwrap();
        let forged = entry.key_hash;
        let other_key = Packed::at(&other, 0, len);
        let other_ends = Ends::of(other.as_bytes(), other_key.span);
        assert!(
            lookup
                .find(forged, &other_key, &other_ends, other.as_bytes())
                .is_none(),
            "len {len}"
        );
    }
}

/// `key_hash` reads a key's last, partial chunk as its last 8 bytes shifted: the same hash as
/// hashing that chunk's own zero-padded word, at every length.
#[test]
fn key_hash_agrees_with_hashing_every_chunk_word() {
    let plain = |key: &[u8]| {
        let mut h = super::word(key) ^ (key.len() as u64);
        if key.len() <= 8 {
            return super::mix(h);
        }
        for chunk in key[8..].chunks(8) {
            h = super::mix(h) ^ super::word(chunk);
        }
        super::mix(h)
    };
    for len in 0..=80 {
        let key = text(len, 5);
        assert_eq!(
            super::key_hash(super::word(&key), &key),
            plain(&key),
            "len {len}"
        );
    }
}
