//! Unit tests for the 16-byte ids: `ActionId` and `Uid` text both ways, errors at the exact
//! lengths and positions, serde.

use super::{ActionId, Uid};
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

#[test]
fn uid_text_round_trip_table() {
    let check = |value: u128, text: &str| {
        let uid = Uid::from_u128(value);
        assert_eq!(uid.to_string(), text);
        assert_eq!(text.parse::<Uid>().unwrap(), uid);
        assert_eq!(Uid::from_bytes(*uid.as_bytes()), uid);
        assert_eq!(serde_json::to_string(&uid).unwrap(), format!("\"{text}\""));
    };
    check(0, "00000000-0000-0000-0000-000000000000");
    check(u128::MAX, "ffffffff-ffff-ffff-ffff-ffffffffffff");
    check(
        0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        "01234567-89ab-cdef-fedc-ba9876543210",
    );
    assert_eq!(
        format!("{:>38}", Uid::from_u128(1)),
        "  00000000-0000-0000-0000-000000000001"
    );
    assert_eq!(
        format!("{:?}", Uid::from_u128(1)),
        "Uid(00000000-0000-0000-0000-000000000001)"
    );
}

#[test]
fn uid_errors_table() {
    let check = |input: &str, want: &str| {
        let err = input.parse::<Uid>().unwrap_err();
        assert_eq!(err.to_string(), want, "{input:?}");
        assert_eq!(err.id_kind(), IdKind::Uid);
        assert_eq!(IdKind::Uid.validate(input).unwrap_err(), err);
    };
    let good = "01234567-89ab-cdef-fedc-ba9876543210";
    let allowed = "(allowed: 0-9 a-f, and '-' at bytes 8, 13, 18 and 23)";
    check("", r#"invalid uid "": empty"#);
    check(
        &good[..35],
        &format!(
            r#"invalid uid "{}": wrong length (35 bytes, expected 36)"#,
            &good[..35]
        ),
    );
    check(
        &format!("{good}0"),
        &format!(r#"invalid uid "{good}0": wrong length (37 bytes, expected 36)"#),
    );
    // 32 digits without dashes: the action id's layout is not a uid.
    check(
        "0123456789abcdeffedcba9876543210",
        r#"invalid uid "0123456789abcdeffedcba9876543210": wrong length (32 bytes, expected 36)"#,
    );
    // Uppercase is refused: one value, one spelling.
    check(
        "01234567-89AB-cdef-fedc-ba9876543210",
        &format!(
            r#"invalid uid "01234567-89AB-cdef-fedc-ba9876543210": invalid character 'A' at byte 11 {allowed}"#
        ),
    );
    // A digit where a dash belongs, and a dash where a digit belongs, at each boundary.
    for at in [8, 13, 18, 23] {
        let mut text = good.as_bytes().to_vec();
        text[at] = b'0';
        let text = String::from_utf8(text).unwrap();
        check(
            &text,
            &format!(r#"invalid uid "{text}": invalid character '0' at byte {at} {allowed}"#),
        );
    }
    for at in [0, 7, 9, 35] {
        let mut text = good.as_bytes().to_vec();
        text[at] = b'-';
        let text = String::from_utf8(text).unwrap();
        check(
            &text,
            &format!(r#"invalid uid "{text}": invalid character '-' at byte {at} {allowed}"#),
        );
    }
    assert!(IdKind::Uid.validate(good).is_ok());
    assert_eq!(IdKind::Uid.max_len(), 36);
    assert!(serde_json::from_str::<Uid>("12").is_err());
}

#[test]
fn the_two_ids_share_bytes_not_text() {
    let bytes = [0x5a; 16];
    let (action, uid) = (ActionId::from_bytes(bytes), Uid::from_bytes(bytes));
    assert_eq!(action.as_bytes(), uid.as_bytes());
    assert_eq!(action.to_string().len(), 32);
    assert_eq!(uid.to_string().len(), 36);
    assert_eq!(action.to_string(), uid.to_string().replace('-', ""));
}
