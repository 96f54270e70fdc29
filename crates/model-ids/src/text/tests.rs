//! Unit tests for the error-message text helpers: where input is cut, counted in characters.

use super::{ERROR_INPUT_MAX_CHARS, quote, shorten};

#[test]
fn shorten_table() {
    let n = ERROR_INPUT_MAX_CHARS;
    assert_eq!(n, 64);
    let check = |input: &str, want: &str| assert_eq!(shorten(input), want, "{input:?}");
    check("", "");
    check("abc", "abc");
    check(&"a".repeat(n - 1), &"a".repeat(n - 1));
    check(&"a".repeat(n), &"a".repeat(n));
    check(&"a".repeat(n + 1), &format!("{}…", "a".repeat(n)));
    check(&"a".repeat(10_000), &format!("{}…", "a".repeat(n)));
    // Cut on a character boundary, counting characters, not bytes.
    check(&"é".repeat(n), &"é".repeat(n));
    check(&"é".repeat(n + 1), &format!("{}…", "é".repeat(n)));
    check(
        &format!("{}\u{1F600}\u{1F600}", "a".repeat(n - 1)),
        &format!("{}\u{1F600}…", "a".repeat(n - 1)),
    );
}

#[test]
fn quote_table() {
    let n = ERROR_INPUT_MAX_CHARS;
    let check = |input: &str, want: &str| assert_eq!(quote(input), want, "{input:?}");
    check("", r#""""#);
    check("eu", r#""eu""#);
    check("a\"b", r#""a\"b""#);
    check("a\u{7}b", r#""a\u{7}b""#);
    check(&"a".repeat(n), &format!("\"{}\"", "a".repeat(n)));
    check(&"a".repeat(n + 1), &format!("\"{}…\"", "a".repeat(n)));
}

proptest::proptest! {
    #[test]
    fn shorten_keeps_a_bounded_prefix(input in "\\PC{0,200}") {
        let short = shorten(&input);
        let body = short.strip_suffix('…').unwrap_or(&short);
        proptest::prop_assert!(input.starts_with(body));
        proptest::prop_assert!(body.chars().count() <= ERROR_INPUT_MAX_CHARS);
        proptest::prop_assert_eq!(short != input, input.chars().count() > ERROR_INPUT_MAX_CHARS);
    }
}
