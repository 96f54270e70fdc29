//! Unit tests for `index`: a key holds a name's length exactly, so names of one head and other lengths differ; a name past its full first bucket is found again.

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

#[test]
fn a_name_given_again_is_found_past_a_full_first_bucket() {
    // A thousand names at the table's full load: about one in eight lies past its first
    // bucket, whatever the seed.
    let names: Vec<String> = (0..1000).map(|i| format!("job-{i:06}")).collect();
    let mut index = NameIndex::with_capacity(names.len());
    let keyed = |index: &NameIndex, name: &String| {
        let bytes = name.as_bytes();
        let key = Key::of(bytes);
        (bytes.to_vec(), key, index.home(index.hash(key, bytes)))
    };
    for (i, name) in names.iter().enumerate() {
        let (bytes, key, home) = keyed(&index, name);
        assert_eq!(index.insert(&names, (i, &bytes), key, home), Ok(()));
    }
    let mut past_first = 0;
    for (i, name) in names.iter().enumerate() {
        let (bytes, key, home) = keyed(&index, name);
        let first = index.buckets.get(home).map(|b| b.keys);
        past_first += usize::from(!first.is_some_and(|keys| keys.contains(&key)));
        assert_eq!(
            index.insert(&names, (i + 1000, &bytes), key, home),
            Err(i),
            "{name}"
        );
        assert_eq!(index.get(&names, name), Some(i as u32));
    }
    assert!(past_first > 0);
}
