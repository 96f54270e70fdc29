//! Unit tests for `index`: a key holds a name's length exactly, so names of one head and other lengths differ.

use super::*;

#[test]
fn length_bits_put_bit_k_at_bit_8k_plus_7() {
    for len in 0..=JOB_NAME_MAX_LEN {
        let mut want = 0u64;
        for bit in 0..7 {
            want |= (((len >> bit) & 1) as u64) << (8 * bit + 7);
        }
        assert_eq!(length_bits(len), want, "{len}");
    }
    assert_eq!(length_bits(0), 0);
    assert_eq!(length_bits(127), 0x0080_8080_8080_8080);
}

#[test]
fn keys_differ_with_the_length_and_the_first_bytes() {
    let table: &[(&str, &str, bool)] = &[
        ("aaaaaaaa", "aaaaaaaa", true),
        ("aaaaaaaa", "aaaaaaaaa", false),
        ("aaaaaaa", "aaaaaaaa", false),
        ("abcdefghijklmnop", "abcdefghijklmnop", true),
        ("abcdefghijklmnop", "abcdefghijklmnoq", false),
        ("abcdefghijklmnopq", "abcdefghijklmnopz", true),
        ("abcdefghijklmnopq", "abcdefghijklmnopqr", false),
        ("", "", true),
    ];
    for &(a, b, equal) in table {
        assert_eq!(
            Key::of(a.as_bytes()) == Key::of(b.as_bytes()),
            equal,
            "{a:?} {b:?}"
        );
    }
}
