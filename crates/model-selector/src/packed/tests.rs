//! The byte-level equality helpers against `==`, at every length and every differing byte,
//! and a key lookup whose hash matches a different key (a forced collision).

use super::{Head, Packed, same_bytes};
use crate::Labels;

/// A string of `len` name bytes, `seed` varying them.
fn text(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| b'a' + (i as u8 + seed) % 26).collect()
}

#[test]
fn same_bytes_and_heads_agree_with_eq_at_every_length_and_byte() {
    for len in 0..=70 {
        let a = text(len, 0);
        let head_a = Head::of(&a);
        assert_eq!(head_a.is_long(), len > 32, "len {len}");
        for at in 0..len {
            let mut b = a.clone();
            b[at] = b'0';
            assert!(!same_bytes(&a, &b), "len {len}, byte {at}");
            // A head holds the first 32 bytes: it tells apart a change there, and past
            // them it is equal and marked long, so the caller compares the bytes.
            assert_eq!(
                head_a.same(&Head::of(&b)),
                at >= 32,
                "head: len {len}, byte {at}"
            );
        }
        assert!(same_bytes(&a, &a.clone()), "len {len}");
        assert!(head_a.same(&Head::of(&a.clone())), "head: len {len}");
        // Different lengths are never equal, by the bytes or (up to 32) by the head.
        let longer = text(len + 1, 0);
        assert!(!same_bytes(&a, &longer), "len {len}");
        assert_eq!(head_a.same(&Head::of(&longer)), len > 32, "head: len {len}");
    }
}

/// A string of 32 bytes and one of 33 that starts with it: the head tells them apart (the
/// longer one is marked long), whichever way round.
#[test]
fn heads_at_the_32_byte_boundary() {
    let short = text(32, 1);
    let mut long = short.clone();
    long.push(b'z');
    assert!(!Head::of(&short).is_long());
    assert!(Head::of(&long).is_long());
    assert!(!Head::of(&short).same(&Head::of(&long)));
    assert!(!Head::of(&long).same(&Head::of(&short)));
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
        let hash = super::key_hash(&Head::of(key.as_bytes()), key.as_bytes());
        let packed = Packed::at(&key, 0, len);
        assert!(
            lookup
                .find(hash, &Head::of(key.as_bytes()), packed.span, key.as_bytes())
                .is_some(),
            "len {len}"
        );
        // The other key with the first key's hash: it lands on the first key's slot.
        let other_key = Packed::at(&other, 0, len);
        assert!(
            lookup
                .find(
                    hash,
                    &Head::of(other.as_bytes()),
                    other_key.span,
                    other.as_bytes()
                )
                .is_none(),
            "len {len}"
        );
        // Two keys over 32 bytes that differ past their heads: equal heads, and the bytes
        // tell them apart.
        if len > 33 {
            let late: String = format!("{}x{}", "k".repeat(len - 2), "k");
            let late_key = Packed::at(&late, 0, len);
            assert!(Head::of(late.as_bytes()).same(&Head::of(key.as_bytes())));
            assert!(
                lookup
                    .find(
                        hash,
                        &Head::of(late.as_bytes()),
                        late_key.span,
                        late.as_bytes()
                    )
                    .is_none(),
                "len {len}"
            );
        }
    }
}

/// `key_hash` takes the first 32 bytes' words from the head and reads a partial word as the
/// key's last 8 bytes shifted: the same hash as hashing every 8-byte chunk's own zero-padded
/// little-endian word, at every length; and a head holds those words.
#[test]
fn key_hash_agrees_with_hashing_every_chunk_word() {
    let le = |chunk: &[u8]| {
        let mut word = [0_u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(word)
    };
    let plain = |key: &[u8]| {
        let mut h = le(&key[..key.len().min(8)]) ^ (key.len() as u64);
        if key.len() <= 8 {
            return super::mix(h);
        }
        for chunk in key[8..].chunks(8) {
            h = super::mix(h) ^ le(chunk);
        }
        super::mix(h)
    };
    for len in 0..=80 {
        let key = text(len, 5);
        let head = Head::of(&key);
        assert_eq!(super::key_hash(&head, &key), plain(&key), "len {len}");
        for (i, word) in head.0.iter().enumerate() {
            let chunk = key.get(8 * i..key.len().min(8 * i + 8)).unwrap_or(&[]);
            let long = if i == 3 && len > 32 { 1 << 63 } else { 0 };
            assert_eq!(*word, le(chunk) | long, "len {len}, word {i}");
        }
    }
}
