//! Unit tests for `ActionId`: hex text both ways, errors at the exact lengths, serde.

use super::ActionId;
use crate::{IdError, IdKind};

#[test]
fn text_round_trip_table() {
    let check = |bytes: [u8; 16], text: &str| {
        let id = ActionId::from_bytes(bytes);
        assert_eq!(id.to_string(), text);
        assert_eq!(text.parse::<ActionId>().unwrap(), id);
        assert_eq!(text.to_uppercase().parse::<ActionId>().unwrap(), id);
    };
    check([0; 16], "00000000000000000000000000000000");
    check([0xff; 16], "ffffffffffffffffffffffffffffffff");
    check(
        [
            0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
            0x32, 0x10,
        ],
        "0123456789abcdeffedcba9876543210",
    );
}

#[test]
fn numbers_are_big_endian() {
    let id = ActionId::from_u128(1);
    assert_eq!(id.to_string(), "00000000000000000000000000000001");
    assert_eq!(id.to_u128(), 1);
    assert!(ActionId::from_u128(1) < ActionId::from_u128(256));
}

#[test]
fn errors_table() {
    let check = |input: &str, want: &str| {
        let err = input.parse::<ActionId>().unwrap_err();
        assert_eq!(err.to_string(), want, "{input:?}");
        assert_eq!(err.id_kind(), IdKind::ActionId);
        assert_eq!(IdKind::ActionId.validate(input).unwrap_err(), err);
    };
    check("", r#"invalid action id "": empty"#);
    check(
        &"a".repeat(31),
        &format!(
            r#"invalid action id "{}": wrong length (31 bytes, expected 32)"#,
            "a".repeat(31)
        ),
    );
    check(
        &"a".repeat(33),
        &format!(
            r#"invalid action id "{}": wrong length (33 bytes, expected 32)"#,
            "a".repeat(33)
        ),
    );
    check(
        &"a".repeat(100),
        &format!(
            r#"invalid action id "{}…": wrong length (100 bytes, expected 32)"#,
            "a".repeat(64)
        ),
    );
    check(
        &format!("{}g", "0".repeat(31)),
        &format!(
            r#"invalid action id "{}g": invalid character 'g' at byte 31 (allowed: 0-9 a-f A-F)"#,
            "0".repeat(31)
        ),
    );
    // A two-byte character at an odd offset is reported at its first byte.
    check(
        &format!("0é{}", "0".repeat(29)),
        &format!(
            r#"invalid action id "0é{}": invalid character 'é' at byte 1 (allowed: 0-9 a-f A-F)"#,
            "0".repeat(29)
        ),
    );
    assert!(IdKind::ActionId.validate(&"0".repeat(32)).is_ok());
    assert_eq!(IdKind::ActionId.max_len(), 32);
}

#[test]
fn serde_is_the_text_form() {
    let id = ActionId::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    let json = serde_json::to_string(&id).unwrap();
    assert_eq!(json, r#""0123456789abcdef0011223344556677""#);
    assert_eq!(serde_json::from_str::<ActionId>(&json).unwrap(), id);
    let err = serde_json::from_str::<ActionId>(r#""xyz""#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(r#"invalid action id "xyz": wrong length"#),
        "{err}"
    );
    assert!(serde_json::from_str::<ActionId>("12").is_err());
    assert!(matches!(
        ActionId::parse("zz"),
        Err(IdError::WrongLength {
            len: 2,
            expected: 32,
            ..
        })
    ));
}

#[test]
fn debug_shows_the_hex() {
    assert_eq!(
        format!("{:?}", ActionId::from_u128(255)),
        "ActionId(000000000000000000000000000000ff)"
    );
}
