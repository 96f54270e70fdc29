//! The string syntax: a hand-written single-pass parser straight into the compiled form.

use std::str::FromStr;

use crate::{
    error::SelectorError,
    limits::{MAX_NAME_LEN, MAX_REQUIREMENTS, MAX_VALUES},
    selector::{Compiler, Kind, LabelSelector, too_many_requirements},
    text::{check_key, check_value, is_name_byte, quote},
};

impl FromStr for LabelSelector {
    type Err = SelectorError;

    /// Parses the string syntax described on [`LabelSelector`].
    ///
    /// # Errors
    ///
    /// [`SelectorError::Syntax`] with the byte position and what was expected, or
    /// [`SelectorError::TooMany`] past [`MAX_REQUIREMENTS`] or [`MAX_VALUES`].
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        Parser {
            input,
            pos: 0,
            out: Compiler::over(input, 4),
        }
        .selector()
    }
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
/// at most `MAX_NAME_LEN` bytes).
fn is_short_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.len() <= MAX_NAME_LEN
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
}

fn is_key_byte(b: u8) -> bool {
    is_value_byte(b) || b == b'/'
}

impl<'a> Parser<'a> {
    fn selector(mut self) -> Result<LabelSelector, SelectorError> {
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
        Ok(self.out.finish())
    }

    fn requirement(&mut self) -> Result<(), SelectorError> {
        if self.out.len() == MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        if self.peek() == Some(b'!') {
            self.pos += 1;
            self.spaces();
            let (at, key) = self.key()?;
            self.out.begin_at(at, key, Kind::DoesNotExist);
            self.out.end();
            return Ok(());
        }
        let (at, key) = self.key()?;
        self.spaces();
        match self.peek() {
            None | Some(b',') => {
                self.out.begin_at(at, key, Kind::Exists);
            }
            Some(b'=') => {
                self.pos += 1;
                if self.peek() == Some(b'=') {
                    self.pos += 1;
                }
                self.spaces();
                let (value_at, value) = self.value()?;
                let kind = if self.out.has_label(key) {
                    Kind::In
                } else {
                    Kind::Label
                };
                self.out.begin_at(at, key, kind);
                self.out.value_at(value_at, value);
            }
            Some(b'!') => {
                self.pos += 1;
                if self.peek() != Some(b'=') {
                    return Err(self.expected("'=' after '!'"));
                }
                self.pos += 1;
                self.spaces();
                let (value_at, value) = self.value()?;
                self.out.begin_at(at, key, Kind::NotIn);
                self.out.value_at(value_at, value);
            }
            Some(op @ (b'>' | b'<')) => {
                self.pos += 1;
                self.spaces();
                let start = self.pos;
                let number = self.token(|b| is_value_byte(b) || b == b'+');
                if number.parse::<i64>().is_err() {
                    self.pos = start;
                    return Err(self.expected("an integer"));
                }
                let kind = if op == b'>' { Kind::Gt } else { Kind::Lt };
                self.out.begin_at(at, key, kind);
                self.out.value_at(start, number);
            }
            Some(_) => {
                let start = self.pos;
                let kind = match self.token(is_value_byte) {
                    "in" => Kind::In,
                    "notin" => Kind::NotIn,
                    _ => {
                        self.pos = start;
                        return Err(self.expected(
                            "an operator ('=', '==', '!=', 'in', 'notin', '>', '<'), ',' or end of input",
                        ));
                    }
                };
                self.out.begin_at(at, key, kind);
                self.list()?;
            }
        }
        self.out.end();
        Ok(())
    }

    /// `( value [, value]* )`, after `in` or `notin`.
    fn list(&mut self) -> Result<(), SelectorError> {
        self.spaces();
        if self.peek() != Some(b'(') {
            return Err(self.expected("'('"));
        }
        self.pos += 1;
        loop {
            self.spaces();
            if self.out.value_count() == MAX_VALUES {
                return Err(SelectorError::TooMany {
                    path: String::new(),
                    what: "values",
                    limit: MAX_VALUES,
                });
            }
            let (at, value) = self.value()?;
            self.out.value_at(at, value);
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

    fn key(&mut self) -> Result<(usize, &'a str), SelectorError> {
        let start = self.pos;
        let (key, slash) = self.name_token(true);
        if key.is_empty() {
            return Err(self.expected("a label key"));
        }
        // The token has only name bytes (and '/'), so a name without a prefix needs just
        // its length and ends checked; anything else takes the full rules.
        if !slash && is_short_name(key) {
            return Ok((start, key));
        }
        check_key(key).map_err(|reason| SelectorError::Syntax {
            position: start,
            expected: "a valid label key",
            found: format!("{} ({reason})", quote(key)),
        })?;
        Ok((start, key))
    }

    /// A label value, or `""` for the empty value.
    fn value(&mut self) -> Result<(usize, &'a str), SelectorError> {
        let start = self.pos;
        if self.peek() == Some(b'"') {
            if self.input.as_bytes().get(start + 1) == Some(&b'"') {
                self.pos += 2;
                return Ok((start, ""));
            }
            return Err(self.expected("a value (only the empty value is quoted: \"\")"));
        }
        let (value, _) = self.name_token(false);
        if value.is_empty() {
            return Err(self.expected("a value"));
        }
        if is_short_name(value) {
            return Ok((start, value));
        }
        check_value(value).map_err(|reason| SelectorError::Syntax {
            position: start,
            expected: "a valid label value",
            found: format!("{} ({reason})", quote(value)),
        })?;
        Ok((start, value))
    }

    /// A run of name bytes (and `/` when `slash_ok`), and whether it has a `/`.
    fn name_token(&mut self, slash_ok: bool) -> (&'a str, bool) {
        let start = self.pos;
        let bytes = self.input.as_bytes();
        let mut slash = false;
        while let Some(&b) = bytes.get(self.pos) {
            if is_name_byte(b) {
                self.pos += 1;
            } else if b == b'/' && slash_ok {
                slash = true;
                self.pos += 1;
            } else {
                break;
            }
        }
        (self.input.get(start..self.pos).unwrap_or(""), slash)
    }

    fn token(&mut self, accept: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        let bytes = self.input.as_bytes();
        while bytes.get(self.pos).is_some_and(|&b| accept(b)) {
            self.pos += 1;
        }
        self.input.get(start..self.pos).unwrap_or("")
    }

    fn spaces(&mut self) {
        let bytes = self.input.as_bytes();
        while bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

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
