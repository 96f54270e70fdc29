//! `Text`: the text of a chunk's terms, shared between copies of the chunk.
//!
//! Text only grows between rewrites, so a copy of a chunk shares what its original holds
//! (`base`, never changed) and owns only what was added since (`tail`). A rewrite keeps only
//! the text live terms use, once half of it is dead or the tail has grown past a quarter of
//! the base: rare enough that its cost is spread over the changes that caused it.

use std::sync::Arc;

/// A tail shorter than this is never a reason to rewrite.
const TAIL_MIN: usize = 16 * 1024;

/// Room a copy's tail has for text added after the copy, so the change that made the copy
/// does not grow the tail again.
const SPARE: usize = 4 * 1024;

/// The text of a chunk's terms: strings addressed by their start, each wholly in the shared
/// `base` or the owned `tail`.
#[derive(Debug, Default)]
pub(super) struct Text {
    base: Arc<[u8]>,
    tail: Vec<u8>,
    /// Bytes no term uses any more.
    garbage: usize,
}

impl Clone for Text {
    fn clone(&self) -> Self {
        let mut tail = Vec::with_capacity(self.tail.len() + SPARE);
        tail.extend_from_slice(&self.tail);
        Self {
            base: Arc::clone(&self.base),
            tail,
            garbage: self.garbage,
        }
    }
}

impl Text {
    /// The `len` bytes at `start` (bytes: a term is compared, never cut, so no character
    /// boundary needs checking).
    pub(super) fn get(&self, start: usize, len: usize) -> Option<&[u8]> {
        match start.checked_sub(self.base.len()) {
            None => self.base.get(start..start + len),
            Some(start) => self.tail.get(start..start + len),
        }
    }

    /// Appends `parts` as one string; returns its start.
    pub(super) fn push(&mut self, parts: &[&str]) -> u32 {
        let start = u32::try_from(self.base.len() + self.tail.len()).unwrap_or(u32::MAX);
        for part in parts {
            self.tail.extend_from_slice(part.as_bytes());
        }
        start
    }

    /// Notes that `len` bytes are no longer used; says whether it is time to rewrite.
    pub(super) fn forget(&mut self, len: usize) -> bool {
        self.garbage += len;
        let total = self.base.len() + self.tail.len();
        self.garbage > total / 2 || self.tail.len() > TAIL_MIN.max(self.base.len() / 4)
    }

    /// Rewrites the text with only the strings `live` names (start and length), moving each
    /// start to its new place.
    pub(super) fn rewrite<'a>(&mut self, live: impl Iterator<Item = (&'a mut u32, usize)>) {
        let mut text = Vec::with_capacity(self.base.len() + self.tail.len() - self.garbage);
        for (start, len) in live {
            let old = self.get(*start as usize, len).unwrap_or_default();
            *start = u32::try_from(text.len()).unwrap_or(u32::MAX);
            text.extend_from_slice(old);
        }
        self.base = Arc::from(text);
        self.tail = Vec::new();
        self.garbage = 0;
    }

    /// Moves the tail into the shared base, once a chunk is built, so its copies share it.
    pub(super) fn freeze(&mut self) {
        if !self.tail.is_empty() {
            let mut text = Vec::with_capacity(self.base.len() + self.tail.len());
            text.extend_from_slice(&self.base);
            text.extend_from_slice(&self.tail);
            self.base = Arc::from(text);
            self.tail = Vec::new();
        }
    }

    /// Bytes held, shared or not.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.base.len() + self.tail.len()
    }
}
