//! Text helpers for error messages: how much of an offending input an error quotes.
//!
//! Every taskmodel error that quotes its input shortens it here, so a hostile input of any
//! length costs an error at most [`ERROR_INPUT_MAX_CHARS`] characters, and every layer cuts
//! at the same place.
//!
//! ```
//! use model_ids::text::{ERROR_INPUT_MAX_CHARS, quote, shorten};
//!
//! assert_eq!(shorten("eu-west"), "eu-west");
//! let long = "x".repeat(100);
//! assert_eq!(shorten(&long).chars().count(), ERROR_INPUT_MAX_CHARS + 1);
//! assert!(shorten(&long).ends_with('…'));
//! assert_eq!(quote("a\tb"), r#""a\tb""#);
//! ```

/// How many characters of an offending input an error quotes; longer input is cut there
/// (on a character boundary) and ends with `…`.
///
/// 64 shows any valid label name or value (at most 63 bytes) and any slot (at most 64)
/// whole, so a message cuts only input that is too long anyway.
pub const ERROR_INPUT_MAX_CHARS: usize = 64;

/// The first [`ERROR_INPUT_MAX_CHARS`] characters of `input`, plus `…` if anything was cut.
///
/// The result holds at most `ERROR_INPUT_MAX_CHARS + 1` characters whatever the input.
#[must_use]
pub fn shorten(input: &str) -> String {
    match input.char_indices().nth(ERROR_INPUT_MAX_CHARS) {
        None => input.to_owned(),
        Some((cut, _)) => {
            let mut short = String::with_capacity(cut + '…'.len_utf8());
            short.push_str(input.get(..cut).unwrap_or_default());
            short.push('…');
            short
        }
    }
}

/// [`shorten`]ed `input` in double quotes with Rust string escapes, so control characters
/// and quotes stay visible: `"a\tb"`, `"xxxx…"`.
#[must_use]
pub fn quote(input: &str) -> String {
    format!("{:?}", shorten(input))
}

#[cfg(test)]
mod tests;
