//! Unit tests for base-36 slugs: exact pairs, every error, and the allocation-free writer.

use super::{BASE36_MAX_LEN, BASE36_U64_MAX, Base36, decode_base36, encode_base36};
use crate::{IdError, IdKind};

#[test]
fn exact_pairs() {
    let table: [(u64, &str); 10] = [
        (0, "0"),
        (1, "1"),
        (9, "9"),
        (10, "a"),
        (35, "z"),
        (36, "10"),
        (1295, "zz"),
        (1296, "100"),
        (12345, "9ix"),
        (u64::MAX, "3w5e11264sgsf"),
    ];
    for (value, slug) in table {
        assert_eq!(encode_base36(value), slug, "encode {value}");
        assert_eq!(Base36(value).to_string(), slug, "Base36 {value}");
        assert_eq!(decode_base36(slug), Ok(value), "decode {slug}");
    }
    assert_eq!(BASE36_U64_MAX, "3w5e11264sgsf");
    assert_eq!(BASE36_MAX_LEN, 13);
}

#[test]
fn decode_is_lenient_on_case_and_leading_zeros() {
    let table: [(&str, u64); 6] = [
        ("9IX", 12345),
        ("9iX", 12345),
        ("Z", 35),
        ("3W5E11264SGSF", u64::MAX),
        ("009ix", 12345),
        ("0000000000000", 0),
    ];
    for (slug, value) in table {
        assert_eq!(decode_base36(slug), Ok(value), "{slug}");
    }
}

#[test]
fn decode_errors() {
    let kind = IdKind::Base36Slug;
    let check =
        |input: &str, want: IdError| assert_eq!(decode_base36(input), Err(want), "{input:?}");
    check("", IdError::Empty { kind });
    let char_err = |input: &str, ch: char, index: usize| IdError::InvalidChar {
        kind,
        input: input.to_owned(),
        ch,
        index,
    };
    check("-1", char_err("-1", '-', 0));
    check("+1", char_err("+1", '+', 0));
    check(" 1", char_err(" 1", ' ', 0));
    check("1 ", char_err("1 ", ' ', 1));
    check("9i_x", char_err("9i_x", '_', 2));
    check("1.5", char_err("1.5", '.', 1));
    check("1/2", char_err("1/2", '/', 1));
    check("é", char_err("é", 'é', 0));
    check("1\u{1F600}", char_err("1\u{1F600}", '\u{1F600}', 1));
    check("zzzzzzzzzzzz!", char_err("zzzzzzzzzzzz!", '!', 12));
    let overflow = |input: &str| IdError::Overflow {
        kind,
        input: input.to_owned(),
    };
    check("3w5e11264sgsg", overflow("3w5e11264sgsg"));
    check("3w5e11264sgt0", overflow("3w5e11264sgt0"));
    check("zzzzzzzzzzzzz", overflow("zzzzzzzzzzzzz"));
    check("4000000000000", overflow("4000000000000"));
    let too_long = |input: &str| IdError::TooLong {
        kind,
        input: input.to_owned(),
        len: input.len(),
        max: 13,
    };
    check("10000000000000", too_long("10000000000000"));
    check("00000000000001", too_long("00000000000001"));
}

#[test]
fn base36_writer_pads_and_parses() {
    assert_eq!(format!("[{:>5}]", Base36(12345)), "[  9ix]");
    assert_eq!(format!("[{:<5}]", Base36(0)), "[0    ]");
    assert_eq!("9ix".parse::<Base36>(), Ok(Base36(12345)));
    assert_eq!(u64::from(Base36::from(7)), 7);
    assert!(matches!("".parse::<Base36>(), Err(IdError::Empty { .. })));
}
