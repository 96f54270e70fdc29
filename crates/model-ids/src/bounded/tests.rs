//! Unit tests for bounded wire collections: each takes exactly its limit, and the entry after
//! it stops the reading with the limit's error before anything further is looked at.

use serde::de;

use super::{BoundedPairs, BoundedVec, Limit};

/// Two entries, with the default error.
enum Two {}

impl Limit for Two {
    const FIELD: &'static str = "two";
    const MAX: usize = 2;
}

/// No entries at all.
enum Zero {}

impl Limit for Zero {
    const FIELD: &'static str = "zero";
    const MAX: usize = 0;
}

/// One entry, with its own error.
enum Own {}

impl Limit for Own {
    const FIELD: &'static str = "own";
    const MAX: usize = 1;

    fn too_many<E: de::Error>() -> E {
        E::custom("own: too many, the limit is 1")
    }
}

const TOO_MANY_TWO: &str = "invalid two: more than 2 entries";

/// Reads `json` as `T`, and compares the value (or the start of the error) with `want`.
fn check<T, U>(json: &str, read: impl Fn(T) -> U, want: Result<U, &str>)
where
    T: for<'de> serde::Deserialize<'de>,
    U: PartialEq + std::fmt::Debug,
{
    match (serde_json::from_str::<T>(json).map(read), want) {
        (Ok(got), Ok(want)) => assert_eq!(got, want, "{json}"),
        (Err(err), Err(want)) => assert!(
            err.to_string().starts_with(want),
            "{json}: got {err}, want {want}"
        ),
        (got, want) => panic!("{json}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn a_list_takes_its_limit_and_stops_at_the_next_element() {
    let vec = |json, want: Result<Vec<u32>, &str>| {
        check(json, BoundedVec::<u32, Two>::into_inner, want);
    };
    vec("[]", Ok(vec![]));
    vec("[7]", Ok(vec![7]));
    vec("[7,8]", Ok(vec![7, 8]));
    vec("[7,8,9]", Err(TOO_MANY_TWO));
    // The element after the limit is skipped unread: its type does not matter...
    vec(r#"[7,8,"x"]"#, Err(TOO_MANY_TWO));
    vec("[7,8,{}]", Err(TOO_MANY_TWO));
    // ...and nothing after it is parsed.
    vec("[7,8,9, this is not json", Err(TOO_MANY_TWO));
    // Within the limit, elements are typed.
    vec(
        r#"[7,"x"]"#,
        Err("invalid type: string \"x\", expected u32"),
    );
    vec(
        "{}",
        Err("invalid type: map, expected a list of at most 2 entries"),
    );
}

#[test]
fn a_zero_limit_takes_only_the_empty_list() {
    check("[]", BoundedVec::<u32, Zero>::into_inner, Ok(vec![]));
    check(
        "[1]",
        BoundedVec::<u32, Zero>::into_inner,
        Err("invalid zero: more than 0 entries"),
    );
}

#[test]
fn an_object_takes_its_limit_in_input_order_and_stops_at_the_next_key() {
    let pairs = |json, want: Result<Vec<(&str, &str)>, &str>| {
        let want = want.map(|w| {
            w.into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect::<Vec<_>>()
        });
        check(json, BoundedPairs::<Two>::into_inner, want);
    };
    pairs("{}", Ok(vec![]));
    pairs(r#"{"b":"1"}"#, Ok(vec![("b", "1")]));
    pairs(r#"{"b":"1","a":"2"}"#, Ok(vec![("b", "1"), ("a", "2")]));
    // A repeated key stays, for the caller's validation to report.
    pairs(r#"{"a":"1","a":"2"}"#, Ok(vec![("a", "1"), ("a", "2")]));
    pairs(r#"{"a":"1","b":"2","c":"3"}"#, Err(TOO_MANY_TWO));
    // The key after the limit stops the reading before its value.
    pairs(r#"{"a":"1","b":"2","c":5}"#, Err(TOO_MANY_TWO));
    pairs(
        r#"{"a":"1","b":"2","c": this is not json"#,
        Err(TOO_MANY_TWO),
    );
    pairs(
        r#"{"a":1}"#,
        Err("invalid type: integer `1`, expected a string"),
    );
    pairs(
        "[]",
        Err("invalid type: sequence, expected an object of at most 2 string entries"),
    );
}

#[test]
fn a_limit_may_give_its_own_error() {
    let own = "own: too many, the limit is 1";
    check("[1]", BoundedVec::<u32, Own>::into_inner, Ok(vec![1]));
    check("[1,2]", BoundedVec::<u32, Own>::into_inner, Err(own));
    check(
        r#"{"a":"","b":""}"#,
        BoundedPairs::<Own>::into_inner,
        Err(own),
    );
}

#[test]
fn default_is_empty() {
    assert!(BoundedVec::<u32, Two>::default().into_inner().is_empty());
    assert!(BoundedPairs::<Two>::default().into_inner().is_empty());
}

#[test]
fn debug_shows_the_entries() {
    let vec: BoundedVec<u32, Two> = serde_json::from_str("[1,2]").unwrap();
    assert_eq!(format!("{vec:?}"), "BoundedVec([1, 2])");
    let pairs: BoundedPairs<Two> = serde_json::from_str(r#"{"a":"b"}"#).unwrap();
    assert_eq!(format!("{pairs:?}"), r#"BoundedPairs([("a", "b")])"#);
}
