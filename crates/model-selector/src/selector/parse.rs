//! The string syntax: a hand-written single-pass parser straight into the compiled form.

use std::str::FromStr;

use model_ids::text::quote;

use super::{
    LabelSelector,
    compile::{Compiler, too_many_requirements},
    compiled::Kind,
};
use crate::{
    error::SelectorError,
    limits::{MAX_NAME_LEN, MAX_REQUIREMENTS, MAX_SELECTOR_TEXT_LEN, MAX_VALUES},
    name::{are_alnum, check_key, check_value, is_name_byte, is_name_prefix},
    packed::Span,
};

impl FromStr for LabelSelector {
    type Err = SelectorError;

    /// Parses the string syntax described on [`LabelSelector`].
    ///
    /// # Errors
    ///
    /// [`SelectorError::Syntax`] with the byte position and what was expected, or
    /// [`SelectorError::TooMany`] past [`MAX_REQUIREMENTS`] or [`MAX_VALUES`], or for a text
    /// over [`MAX_SELECTOR_TEXT_LEN`] bytes (before any of it is read).
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        if input.len() > MAX_SELECTOR_TEXT_LEN {
            return Err(SelectorError::TooMany {
                path: String::new(),
                what: "bytes of selector text",
                limit: MAX_SELECTOR_TEXT_LEN,
            });
        }
        Parser {
            input,
            pos: 0,
            out: Compiler::over(input, requirements_hint(input.len())),
        }
        .selector()
    }
}

/// How many requirements to make room for, from the input's length alone (no pass over it):
/// about one for every 16 bytes, at least 4 (512 bytes) and at most 8 (1 KB, still one of
/// the allocator's fast sizes). A longer selector usually has more requirements, and a
/// vector that grows past its first size costs a `realloc` and a copy (some 450
/// instructions, more than the parse of a short requirement).
#[inline]
fn requirements_hint(len: usize) -> usize {
    (len / 16).clamp(4, 8)
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    out: Compiler,
}

fn is_value_byte(b: u8) -> bool {
    is_name_byte(b)
}

/// For a run of name bytes: whether it is a valid name (starts and ends alphanumeric,
/// at most `MAX_NAME_LEN` bytes). Both ends from the byte class table, in one test.
#[inline(always)]
fn is_short_name(bytes: &[u8]) -> bool {
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => bytes.len() <= MAX_NAME_LEN && are_alnum(first, last),
        _ => false,
    }
}

fn is_key_byte(b: u8) -> bool {
    is_value_byte(b) || b == b'/'
}

/// Where the run of name bytes that starts at `at` ends. Byte by byte: the runs are short,
/// and a word-at-a-time scan cost more per run than it saved per byte.
#[inline(always)]
fn name_end(bytes: &[u8], at: usize) -> usize {
    at + name_run(bytes, at).len()
}

/// The run of name bytes that starts at `at` (empty past the end), as a slice of `bytes`, so
/// that [`is_short_name`] reads its ends without testing the bounds again.
#[inline(always)]
fn name_run(bytes: &[u8], at: usize) -> &[u8] {
    let rest = bytes.get(at..).unwrap_or(&[]);
    let n = rest
        .iter()
        .position(|&b| !is_name_byte(b))
        .unwrap_or(rest.len());
    rest.get(..n).unwrap_or(rest)
}

/// Where the run of name bytes and `/` that starts at `at` ends.
fn key_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_key_byte(b)) {
        at += 1;
    }
    at
}

impl<'a> Parser<'a> {
    fn selector(mut self) -> Result<LabelSelector, SelectorError> {
        // The text copied where it stays: the parser is not moved after this.
        self.out.set_text(self.input);
        self.spaces();
        if self.peek().is_none() {
            return Ok(LabelSelector::new());
        }
        loop {
            self.requirement()?;
            self.spaces();
            match self.peek() {
                None => break,
                Some(b',') => {
                    self.pos += 1;
                    self.spaces();
                }
                Some(_) => return Err(self.expected("',' or end of input")),
            }
        }
        // At most MAX_REQUIREMENTS: Parser::requirement counts them.
        Ok(self.out.finish_counted())
    }

    fn requirement(&mut self) -> Result<(), SelectorError> {
        if self.out.len() == MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        let arena = self.input.as_bytes();
        if self.peek() == Some(b'!') {
            self.pos += 1;
            self.spaces();
            let (at, end) = self.key()?;
            let key = Span::in_text(at, end - at);
            self.out.single(arena, key, Kind::DoesNotExist, None);
            return Ok(());
        }
        let (at, end) = self.key()?;
        let key = Span::in_text(at, end - at);
        self.spaces();
        match self.peek() {
            None | Some(b',') => {
                self.out.single(arena, key, Kind::Exists, None);
            }
            Some(b'=') => {
                self.pos += 1;
                if self.peek() == Some(b'=') {
                    self.pos += 1;
                }
                self.spaces();
                let (value_at, value_end) = self.exact_value()?;
                let value = Span::in_text(value_at, value_end - value_at);
                // A second entry on the same key becomes `In` (Compiler::single).
                self.out.single(arena, key, Kind::Label, Some(value));
            }
            Some(b'!') => {
                self.pos += 1;
                if self.peek() != Some(b'=') {
                    return Err(self.expected("'=' after '!'"));
                }
                self.pos += 1;
                self.spaces();
                let (value_at, value_end) = self.exact_value()?;
                let value = Span::in_text(value_at, value_end - value_at);
                self.out.single(arena, key, Kind::NotIn, Some(value));
            }
            Some(op @ (b'>' | b'<')) => self.compare_requirement(key, op)?,
            Some(_) => {
                // `in` or `notin` as a whole run of name bytes, compared where it is (no scan
                // of the run for its end first).
                let rest = arena.get(self.pos..).unwrap_or(&[]);
                let is_word = |word: &[u8]| {
                    rest.starts_with(word)
                        && !rest.get(word.len()).is_some_and(|&b| is_name_byte(b))
                };
                let (kind, len) = if is_word(b"in") {
                    (Kind::In, 2)
                } else if is_word(b"notin") {
                    (Kind::NotIn, 5)
                } else {
                    return Err(self.expected(
                        "an operator ('=', '==', '!=', 'in', 'notin', '>', '<'), ',' or end of input",
                    ));
                };
                self.pos += len;
                self.list_requirement(key, kind)?;
            }
        }
        Ok(())
    }

    /// `k>5` or `k<5` (`op` is the operator) on `key`, the position at the operator. Out of
    /// line: rare, and inline its general build crowded the common path's registers.
    #[inline(never)]
    fn compare_requirement(&mut self, key: Span, op: u8) -> Result<(), SelectorError> {
        let arena = self.input.as_bytes();
        self.pos += 1;
        self.spaces();
        let start = self.pos;
        let number = self.token(|b| is_value_byte(b) || b == b'+');
        if number.parse::<i64>().is_err() {
            self.pos = start;
            return Err(self.expected("an integer"));
        }
        let kind = if op == b'>' { Kind::Gt } else { Kind::Lt };
        self.out
            .begin_at(key.start as usize, key.len as usize, kind);
        self.out.value_at(start, number.len());
        self.out.end_in(arena);
        Ok(())
    }

    /// The list of an `in` or `notin` requirement on `key`, and the requirement stored. Out
    /// of line, so that the loop over requirements keeps its registers.
    #[inline(never)]
    fn list_requirement(&mut self, key: Span, kind: Kind) -> Result<(), SelectorError> {
        let arena = self.input.as_bytes();
        if let Some((a, b)) = self.two_values() {
            self.out.two(arena, key, kind, a, b);
            return Ok(());
        }
        self.out
            .begin_at(key.start as usize, key.len as usize, kind);
        self.list()?;
        self.out.end_in(arena);
        Ok(())
    }

    /// `(a,b)` (spaces allowed before the parenthesis only), two valid values written tight,
    /// the most common list: the two values, or `None` with the position unchanged, for
    /// [`Parser::list`] to read whatever is there.
    #[inline(always)]
    fn two_values(&mut self) -> Option<(Span, Span)> {
        let bytes = self.input.as_bytes();
        let mut open = self.pos;
        while bytes.get(open).is_some_and(u8::is_ascii_whitespace) {
            open += 1;
        }
        if bytes.get(open) != Some(&b'(') {
            return None;
        }
        let a = open + 1;
        let a_end = name_end(bytes, a);
        if bytes.get(a_end) != Some(&b',') || !is_short_name(bytes.get(a..a_end).unwrap_or(&[])) {
            return None;
        }
        let b = a_end + 1;
        let b_end = name_end(bytes, b);
        if bytes.get(b_end) != Some(&b')') || !is_short_name(bytes.get(b..b_end).unwrap_or(&[])) {
            return None;
        }
        self.pos = b_end + 1;
        Some((Span::in_text(a, a_end - a), Span::in_text(b, b_end - b)))
    }

    /// `( value [, value]* )`, after `in` or `notin`, where a value may be written as
    /// nothing, as Kubernetes reads it: `()` and `( )` hold the empty value, `(a,)` and
    /// `(, a)` hold `a` and the empty value. Out of line: lists other than two tight values
    /// ([`Parser::two_values`]) are rarer, and inline it crowded the common path's registers.
    #[inline(never)]
    fn list(&mut self) -> Result<(), SelectorError> {
        self.spaces();
        if self.peek() != Some(b'(') {
            return Err(self.expected("'('"));
        }
        self.pos += 1;
        // Values written tight (no spaces, no quotes, each valid and followed by ',' or ')'),
        // as generated selectors are: each run scanned once, the position kept in a local.
        // Anything else goes on below from the value where it is, as if read there.
        let bytes = self.input.as_bytes();
        let mut pos = self.pos;
        while self.out.value_count() < MAX_VALUES {
            let end = name_end(bytes, pos);
            if !is_short_name(bytes.get(pos..end).unwrap_or(&[])) {
                break;
            }
            match bytes.get(end) {
                Some(b',') => {
                    self.out.value_at(pos, end - pos);
                    pos = end + 1;
                }
                Some(b')') => {
                    self.out.value_at(pos, end - pos);
                    self.pos = end + 1;
                    return Ok(());
                }
                _ => break,
            }
        }
        self.pos = pos;
        loop {
            self.spaces();
            if self.out.value_count() == MAX_VALUES {
                return Err(SelectorError::TooMany {
                    path: String::new(),
                    what: "values",
                    limit: MAX_VALUES,
                });
            }
            let (at, end) = match self.peek() {
                Some(b',' | b')') => (self.pos, self.pos),
                _ => self.value()?,
            };
            self.out.value_at(at, end - at);
            self.spaces();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.expected("',' or ')'")),
            }
        }
    }

    /// The value after `=`, `==` or `!=`: a value, or nothing (the empty value) when a
    /// comma or the end follows, as Kubernetes reads `x=` and `x=,y=`.
    #[inline(always)]
    fn exact_value(&mut self) -> Result<(usize, usize), SelectorError> {
        match self.peek() {
            None | Some(b',') => Ok((self.pos, self.pos)),
            Some(_) => self.value(),
        }
    }

    /// A label key: its start and end in the input.
    #[inline(always)]
    fn key(&mut self) -> Result<(usize, usize), SelectorError> {
        let bytes = self.input.as_bytes();
        let start = self.pos;
        // A name, or a prefix, '/' and a name: each run is scanned once for its end, then a
        // name's length and ends and a prefix's bytes and dots are checked (one pass over
        // the prefix); anything else takes the full rules (and their reason).
        let run = name_run(bytes, start);
        let mut end = start + run.len();
        let valid = if bytes.get(end) == Some(&b'/') {
            let name = end + 1;
            end = name_end(bytes, name);
            if bytes.get(end) == Some(&b'/') {
                end = key_end(bytes, end);
                false
            } else {
                is_name_prefix(bytes.get(start..name - 1).unwrap_or(&[]))
                    && is_short_name(bytes.get(name..end).unwrap_or(&[]))
            }
        } else {
            is_short_name(run)
        };
        if valid {
            self.pos = end;
            return Ok((start, end));
        }
        if end == start {
            return Err(self.expected("a label key"));
        }
        self.pos = end;
        let key = self.input.get(start..end).unwrap_or("");
        check_key(key).map_err(|reason| SelectorError::Syntax {
            position: start,
            expected: "a valid label key",
            found: format!("{} ({reason})", quote(key)),
        })?;
        Ok((start, end))
    }

    /// A label value, or `""` for the empty value (an older spelling, still read): its start
    /// and end in the input (`""` is the empty value at the quote's position).
    #[inline(always)]
    fn value(&mut self) -> Result<(usize, usize), SelectorError> {
        let bytes = self.input.as_bytes();
        let start = self.pos;
        if bytes.get(start) == Some(&b'"') {
            if bytes.get(start + 1) == Some(&b'"') {
                self.pos += 2;
                return Ok((start, start));
            }
            return Err(self.expected("a value (only the empty value is quoted: \"\")"));
        }
        let token = name_run(bytes, start);
        let end = start + token.len();
        if token.is_empty() {
            return Err(self.expected("a value"));
        }
        self.pos = end;
        if is_short_name(token) {
            return Ok((start, end));
        }
        let value = self.input.get(start..end).unwrap_or("");
        check_value(value).map_err(|reason| SelectorError::Syntax {
            position: start,
            expected: "a valid label value",
            found: format!("{} ({reason})", quote(value)),
        })?;
        Ok((start, end))
    }

    fn token(&mut self, accept: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        let bytes = self.input.as_bytes();
        while bytes.get(self.pos).is_some_and(|&b| accept(b)) {
            self.pos += 1;
        }
        self.input.get(start..self.pos).unwrap_or("")
    }

    #[inline]
    fn spaces(&mut self) {
        let bytes = self.input.as_bytes();
        while bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.input.as_bytes().get(self.pos).copied()
    }

    /// A syntax error at the current position, quoting what is there.
    fn expected(&self, expected: &'static str) -> SelectorError {
        let rest = self.input.get(self.pos..).unwrap_or("");
        let run = rest.bytes().take_while(|&b| is_key_byte(b)).count();
        let found = match rest.chars().next() {
            None => "end of input".to_owned(),
            Some(_) if run > 0 => quote(&rest[..run]),
            Some(c) => format!("{c:?}"),
        };
        SelectorError::Syntax {
            position: self.pos,
            expected,
            found,
        }
    }
}
