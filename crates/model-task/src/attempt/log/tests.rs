//! Unit tests for `log`: key order, the cursor's dedupe rule and the wire forms.

use super::*;

#[test]
fn keys_order_by_attempt_then_sequence() {
    #[track_caller]
    fn check(a: (u32, u64), b: (u32, u64), want: std::cmp::Ordering) {
        assert_eq!(LogKey::new(a.0, a.1).cmp(&LogKey::new(b.0, b.1)), want);
    }
    use std::cmp::Ordering::{Equal, Greater, Less};
    check((1, 0), (1, 0), Equal);
    check((1, 0), (1, 1), Less);
    check((1, u64::MAX), (2, 0), Less);
    check((3, 0), (2, u64::MAX), Greater);
}

#[test]
fn the_cursor_accepts_each_key_once_and_nothing_older() {
    let mut cursor = LogCursor::new();
    #[track_caller]
    fn check(cursor: &mut LogCursor, key: (u32, u64), want: bool) {
        let key = LogKey::new(key.0, key.1);
        assert_eq!(cursor.is_new(key), want, "is_new {key:?}");
        assert_eq!(cursor.accept(key), want, "accept {key:?}");
        assert!(!cursor.accept(key), "{key:?} again");
    }
    check(&mut cursor, (1, 0), true);
    check(&mut cursor, (1, 1), true);
    check(&mut cursor, (1, 1), false);
    check(&mut cursor, (1, 0), false);
    // A gap is fine: sequence numbers only need to increase.
    check(&mut cursor, (1, 5), true);
    check(&mut cursor, (1, 4), false);
    check(&mut cursor, (2, 0), true);
    // The earlier attempt is over.
    check(&mut cursor, (1, 6), false);
    check(&mut cursor, (2, u64::MAX), true);
    check(&mut cursor, (3, 0), true);
    assert_eq!(cursor.last(), Some(LogKey::new(3, 0)));
}

#[test]
fn a_resumed_cursor_continues_after_its_key() {
    let mut cursor = LogCursor::after(LogKey::new(2, 10));
    assert!(!cursor.accept(LogKey::new(2, 10)));
    assert!(cursor.accept(LogKey::new(2, 11)));
    assert_eq!(LogCursor::new().last(), None);
    assert_eq!(LogCursor::default(), LogCursor::new());
}

#[test]
fn wire_forms() {
    let key = LogKey::new(2, 17);
    let json = serde_json::to_string(&key).unwrap();
    assert_eq!(json, r#"{"attempt":2,"sequence":17}"#);
    assert_eq!(serde_json::from_str::<LogKey>(&json).unwrap(), key);
    assert!(serde_json::from_str::<LogKey>(r#"{"attempt":2,"sequence":1,"x":0}"#).is_err());
    let cursor = LogCursor::after(key);
    let json = serde_json::to_string(&cursor).unwrap();
    assert_eq!(json, r#"{"attempt":2,"sequence":17}"#);
    assert_eq!(serde_json::from_str::<LogCursor>(&json).unwrap(), cursor);
    assert_eq!(serde_json::to_string(&LogCursor::new()).unwrap(), "null");
}
