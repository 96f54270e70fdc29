//! `Select`: the entries that match a selector, in runner id order, without collecting them.

use std::{fmt, sync::Arc};

use super::{bits::Bits, chunk::Chunk, plan::Plan, snapshot::RunnerEntry};
use crate::selector::LabelSelector;

/// Iterator over the entries that match a selector, in runner id order, from
/// [`Snapshot::select`](super::Snapshot::select).
pub struct Select<'s, P> {
    pub(super) chunks: std::slice::Iter<'s, Arc<Chunk<P>>>,
    pub(super) current: Option<&'s Chunk<P>>,
    pub(super) bits: Bits,
    pub(super) word: usize,
    pub(super) plan: Plan<'s>,
    pub(super) selector: &'s LabelSelector,
}

impl<P> fmt::Debug for Select<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Select")
            .field("selector", self.selector)
            .finish_non_exhaustive()
    }
}

impl<'s, P> Iterator for Select<'s, P> {
    type Item = RunnerEntry<'s, P>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.next_in_current() {
                return Some(entry);
            }
            let chunk = self.chunks.next()?;
            self.bits = chunk.eval(&self.plan);
            self.word = 0;
            self.current = Some(chunk);
        }
    }

    /// Internal iteration (used by `for_each`, `count`, `max_by_key`, ...): one tight loop
    /// per chunk instead of a resumable state machine.
    fn fold<B, F>(mut self, init: B, mut f: F) -> B
    where
        F: FnMut(B, Self::Item) -> B,
    {
        let mut acc = init;
        // First what a partly consumed iterator still holds.
        while let Some(entry) = self.next_in_current() {
            acc = f(acc, entry);
        }
        for chunk in self.chunks {
            let bits = chunk.eval(&self.plan);
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let pos = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    let (Some(id), Some(labels), Some(payload)) = (
                        chunk.ids.get(pos),
                        chunk.labels.get(pos),
                        chunk.payloads.get(pos),
                    ) else {
                        continue;
                    };
                    if self.plan.verify && !self.selector.matches(labels) {
                        continue;
                    }
                    acc = f(
                        acc,
                        RunnerEntry {
                            id,
                            labels,
                            payload,
                        },
                    );
                }
            }
        }
        acc
    }
}

impl<'s, P> Select<'s, P> {
    /// The next match in the current chunk, without moving to the next chunk.
    fn next_in_current(&mut self) -> Option<RunnerEntry<'s, P>> {
        while let Some(word) = self.bits.get_mut(self.word) {
            if *word == 0 {
                self.word += 1;
                continue;
            }
            let pos = self.word * 64 + word.trailing_zeros() as usize;
            *word &= *word - 1;
            let entry = self.current.and_then(|c| c.entry(pos));
            if let Some(entry) = entry
                && (!self.plan.verify || self.selector.matches(entry.labels))
            {
                return Some(entry);
            }
        }
        None
    }
}
