//! The input bound: exactly MAX_INPUT_BYTES is read, one byte more is refused unread.

use std::io::{self, Read};

use super::{MAX_INPUT_BYTES, read_from};

/// `len` bytes of spaces, valid UTF-8, produced without holding them twice.
fn spaces(len: u64) -> impl Read {
    io::repeat(b' ').take(len)
}

#[test]
fn input_at_the_limit_is_read_and_one_byte_more_is_refused() {
    let at = read_from("at".into(), spaces(MAX_INPUT_BYTES), 0).unwrap();
    assert_eq!(at.text.map(|text| text.len() as u64), Ok(MAX_INPUT_BYTES));

    let over = read_from("over".into(), spaces(MAX_INPUT_BYTES + 1), 0).unwrap();
    assert_eq!(
        over.text,
        Err(format!("larger than {MAX_INPUT_BYTES} bytes"))
    );
}

#[test]
fn an_endless_input_is_cut_at_the_limit() {
    // io::repeat never ends: reading stops after MAX_INPUT_BYTES + 1 bytes.
    let endless = read_from("endless".into(), io::repeat(b' '), 0).unwrap();
    assert!(endless.text.is_err());
}

#[test]
fn bytes_that_are_not_utf8_are_refused_with_their_offset() {
    let input = read_from("bin".into(), &b"{\"a\":\xff}"[..], 0).unwrap();
    assert_eq!(
        input.text,
        Err("not UTF-8: invalid byte at offset 5".to_owned())
    );
}
