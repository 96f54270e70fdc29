//! `Text`: a selector's arena, kept in the selector itself when it is short.

use std::ops::Deref;

use crate::packed::Span;

/// Most bytes a selector keeps without an allocation: a selector parsed from a string of at
/// most this many bytes owns its text in place (one `malloc` and `free` fewer, some 150
/// instructions of a short parse). 46 makes [`Text`] 48 bytes, twice a `String`.
pub(super) const INLINE: usize = 46;

/// The arena of a [`LabelSelector`](super::LabelSelector): the strings its spans point
/// into. Short parsed text in place, anything else in a `String`. Keys and values are
/// ASCII, so the text is always valid UTF-8; [`Deref`] checks it anyway (no `unsafe`),
/// which only the views, printing and the general test pay, never matching's loop.
#[derive(Clone)]
pub(super) enum Text {
    Heap(String),
    Inline { len: u8, bytes: [u8; INLINE] },
}

impl Default for Text {
    fn default() -> Self {
        Self::Heap(String::new())
    }
}

impl Text {
    /// A copy of `input`, in place when it fits.
    #[cfg(test)]
    pub(super) fn copy_of(input: &str) -> Self {
        let mut text = Self::for_input(input);
        text.set(input);
        text
    }

    /// A copy of `input` in a `String` when it is over [`INLINE`] bytes, else empty text
    /// kept in place, which [`Text::set`] fills.
    #[inline(always)]
    pub(super) fn for_input(input: &str) -> Self {
        if input.len() <= INLINE {
            Self::Inline {
                len: 0,
                bytes: [0; INLINE],
            }
        } else {
            Self::Heap(input.to_owned())
        }
    }

    /// Replaces the text with a copy of `input`, where the text is: in place when it is
    /// kept in place and `input` fits. The parser calls it once its compiler is where it
    /// stays, so the bytes are not copied in and then moved (reads of bytes just written,
    /// at other offsets and widths than the writes, wait for the writes).
    #[inline(always)]
    pub(super) fn set(&mut self, input: &str) {
        let n = input.len();
        match self {
            Self::Inline { len, bytes } => match bytes.get_mut(..n) {
                Some(dst) => {
                    dst.copy_from_slice(input.as_bytes());
                    *len = n as u8;
                }
                None => *self = Self::Heap(input.to_owned()),
            },
            Self::Heap(s) => input.clone_into(s),
        }
    }

    /// The text's bytes, without the UTF-8 check of [`Deref`].
    #[inline(always)]
    pub(super) fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Heap(s) => s.as_bytes(),
            Self::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or(&[]),
        }
    }

    /// Appends `s` and returns where it went (in a `String` from then on).
    pub(super) fn push(&mut self, s: &str) -> Span {
        if let Self::Heap(arena) = self {
            return Span::push(arena, s);
        }
        let mut arena = String::from(&**self);
        let span = Span::push(&mut arena, s);
        *self = Self::Heap(arena);
        span
    }
}

impl Deref for Text {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        match self {
            Self::Heap(s) => s,
            Self::Inline { .. } => std::str::from_utf8(self.as_bytes()).unwrap_or(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{INLINE, Text};

    /// Appending to text kept in place moves it to a `String` and keeps what was there.
    #[test]
    fn push_moves_inline_text_to_the_heap() {
        let mut text = Text::copy_of("zone=eu");
        assert!(matches!(text, Text::Inline { len: 7, .. }));
        let span = text.push("gpu");
        assert!(matches!(text, Text::Heap(_)));
        assert_eq!(&*text, "zone=eugpu");
        assert_eq!(span.get(&text), "gpu");
        let long = "x".repeat(INLINE + 1);
        assert!(matches!(Text::copy_of(&long), Text::Heap(s) if s == long));
        let full = "y".repeat(INLINE);
        assert_eq!(Text::copy_of(&full).as_bytes(), full.as_bytes());
    }
}
