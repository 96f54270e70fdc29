//! `Labels`: a validated, key-ordered map of label keys to values, stored compactly.

use std::{collections::BTreeMap, fmt};

use model_ids::text::quote;

use crate::{
    error::SelectorError,
    limits::MAX_LABELS,
    name::{check_key, check_value},
    packed::{Packed, Span, key_hash, word},
};

/// Slots of a [`KeyIndex`].
const SLOTS: usize = 64;

/// Sets with more labels than this get no [`KeyIndex`] (a collision-free window becomes
/// unlikely) and are searched instead.
const INDEX_MAX: usize = 24;

/// A collision-free hash table over the keys of a label set, found at construction:
/// the key of slot `(key_hash(key) >> shift) % SLOTS` is entry `slots[..] - 1`, and no two
/// keys share a slot, so a lookup is one probe and one key comparison. `shift` is the first
/// of the 59 six-bit windows of the hashes in which the keys do not collide (deterministic);
/// when none does, or the set is large, there is no index (`shift` is [`KeyIndex::NONE`]).
#[derive(Clone, Copy)]
pub(crate) struct KeyIndex {
    slots: [u8; SLOTS],
    shift: u8,
}

impl KeyIndex {
    const NONE: u8 = u8::MAX;

    /// The slot position of `hash`: its top bits, reduced into the table.
    #[inline(always)]
    fn position(hash: u64, shift: u8) -> usize {
        // wrapping_shr: a shift of NONE (only on an unindexed set) cannot overflow either.
        (hash.wrapping_shr(u32::from(shift)) as usize) % SLOTS
    }

    /// The slot of `hash`: 0 for no key, else the entry's index plus one.
    #[inline(always)]
    #[allow(
        clippy::indexing_slicing,
        reason = "position() is reduced modulo SLOTS, the table's length; the check compiles away"
    )]
    fn slot(&self, hash: u64) -> u8 {
        self.slots[Self::position(hash, self.shift)]
    }

    /// The slot of `hash`, to fill while building.
    #[allow(
        clippy::indexing_slicing,
        reason = "position() is reduced modulo SLOTS, the table's length"
    )]
    fn slot_mut(&mut self, hash: u64) -> &mut u8 {
        &mut self.slots[Self::position(hash, self.shift)]
    }

    const EMPTY: Self = Self {
        slots: [0; SLOTS],
        shift: Self::NONE,
    };

    /// The index of `entries`, if one is found.
    fn build(entries: &[Entry], arena: &str) -> Self {
        if entries.is_empty() || entries.len() > INDEX_MAX {
            return Self::EMPTY;
        }
        let mut hashes = [0_u64; INDEX_MAX];
        for (h, e) in hashes.iter_mut().zip(entries) {
            *h = key_hash(e.key.word, e.key.bytes(arena));
        }
        let hashes = hashes.get(..entries.len()).unwrap_or(&[]);
        for shift in 0..=(u64::BITS - SLOTS.trailing_zeros()) {
            let mut seen = 0_u64;
            let free = hashes.iter().all(|h| {
                let bit = 1 << ((h >> shift) as usize % SLOTS);
                let free = seen & bit == 0;
                seen |= bit;
                free
            });
            if free {
                let mut index = Self {
                    slots: [0; SLOTS],
                    shift: shift as u8,
                };
                for (i, h) in hashes.iter().enumerate() {
                    *index.slot_mut(*h) = i as u8 + 1;
                }
                return index;
            }
        }
        Self::EMPTY
    }
}

/// One label: key and value in the arena.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) key: Packed,
    pub(crate) value: Packed,
}

/// A set of labels: Kubernetes label keys mapped to values, iterated in key order.
///
/// Keys are qualified names (an optional lowercase DNS-1123 subdomain prefix of at most
/// [`MAX_PREFIX_LEN`](crate::MAX_PREFIX_LEN) bytes and `/`, then a name of at most
/// [`MAX_NAME_LEN`](crate::MAX_NAME_LEN) bytes of `[A-Za-z0-9-_.]` that starts and ends
/// alphanumeric); values are empty or names. A set holds at most [`MAX_LABELS`] labels.
/// Every way in checks this: [`Labels::insert`], [`Labels::from_pairs`], `TryFrom` and
/// deserialization. On the wire it is a JSON object.
///
/// All strings live in one buffer next to a sorted entry table, so a set costs two
/// allocations and lookups compare integers before bytes; a 64-slot hash index of the
/// keys, kept inline and rebuilt on every change, makes a selector's key lookup one probe.
///
/// ```
/// use model_selector::Labels;
///
/// let mut labels = Labels::from_pairs([("zone", "eu"), ("gpu", "h100")])?;
/// labels.insert("tier", "prod")?;
/// assert_eq!(labels.get("gpu"), Some("h100"));
/// assert_eq!(labels.to_string(), "gpu=h100,tier=prod,zone=eu");
/// assert!(labels.insert("Bad Key", "x").is_err());
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Clone)]
pub struct Labels {
    arena: String,
    entries: Vec<Entry>,
    /// Rebuilt after every change.
    index: KeyIndex,
}

impl Default for Labels {
    fn default() -> Self {
        Self::new()
    }
}

impl Labels {
    /// An empty set.
    pub fn new() -> Self {
        Self {
            arena: String::new(),
            entries: Vec::new(),
            index: KeyIndex::EMPTY,
        }
    }

    /// Builds a set from key-value pairs, validating each.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`], [`SelectorError::InvalidValue`],
    /// [`SelectorError::DuplicateKey`] or [`SelectorError::TooMany`], with the path `["key"]`.
    pub fn from_pairs<K, V, I>(pairs: I) -> Result<Self, SelectorError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut labels = Self::new();
        for (key, value) in pairs {
            let (key, value) = (key.as_ref(), value.as_ref());
            if labels.entries.len() == MAX_LABELS {
                return Err(too_many());
            }
            validate(key, value)?;
            labels.push(key, value);
        }
        labels.sort_and_check()?;
        Ok(labels)
    }

    /// Same as [`Labels::from_pairs`], under the name `FromIterator` would have if it could fail.
    ///
    /// # Errors
    ///
    /// As [`Labels::from_pairs`].
    pub fn try_from_iter<K, V, I>(pairs: I) -> Result<Self, SelectorError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
        I: IntoIterator<Item = (K, V)>,
    {
        Self::from_pairs(pairs)
    }

    /// Sets `key` to `value`, returning the previous value.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`], [`SelectorError::InvalidValue`], or
    /// [`SelectorError::TooMany`] when a new key would exceed [`MAX_LABELS`]; the set is
    /// unchanged then.
    pub fn insert(
        &mut self,
        key: impl AsRef<str>,
        value: impl AsRef<str>,
    ) -> Result<Option<String>, SelectorError> {
        let (key, value) = (key.as_ref(), value.as_ref());
        validate(key, value)?;
        let previous = self.remove(key);
        if self.entries.len() == MAX_LABELS {
            return Err(too_many());
        }
        let entry = Entry {
            key: Packed::push(&mut self.arena, key),
            value: Packed::push(&mut self.arena, value),
        };
        let at = self.position(key).unwrap_or_else(|at| at);
        self.entries.insert(at, entry);
        self.index = KeyIndex::build(&self.entries, &self.arena);
        Ok(previous)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let at = self.position(key).ok()?;
        let entry = self.entries.remove(at);
        let value = entry.value.get(&self.arena).to_owned();
        self.compact();
        Some(value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        let at = self.position(key).ok()?;
        self.entries.get(at).map(|e| e.value.get(&self.arena))
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The labels in key order.
    pub fn iter(&self) -> LabelsIter<'_> {
        LabelsIter {
            arena: &self.arena,
            entries: self.entries.iter(),
        }
    }

    pub(crate) fn arena(&self) -> &str {
        &self.arena
    }

    /// Whether the set has a [`KeyIndex`], so [`Labels::find_indexed`] works.
    #[inline(always)]
    pub(crate) fn is_indexed(&self) -> bool {
        self.index.shift != KeyIndex::NONE
    }

    /// The entry of the key of `len` (at most 8) bytes whose [`word`] is `word` and whose
    /// [`key_hash`] is `hash`, through the index; only when [`Labels::is_indexed`].
    #[inline(always)]
    pub(crate) fn find_short(&self, hash: u64, word: u64, len: u32) -> Option<&Entry> {
        let slot = self.index.slot(hash);
        // Slot 0 (no key) wraps to an index past every entry.
        let entry = self.entries.get(usize::from(slot).wrapping_sub(1))?;
        // The word holds the whole key: equal words and lengths, equal keys.
        (entry.key.word == word && entry.key.span.len == len).then_some(entry)
    }

    /// The entry of `key` (whose [`key_hash`] is `hash`), through the index; only when
    /// [`Labels::is_indexed`].
    #[inline]
    fn find_indexed(&self, hash: u64, key: &Packed, key_arena: &str) -> Option<&Entry> {
        let slot = self.index.slot(hash);
        // Slot 0 (no key) wraps to an index past every entry.
        let entry = self.entries.get(usize::from(slot).wrapping_sub(1))?;
        if entry.key.word != key.word {
            return None;
        }
        if key.span.len < 8 {
            // The word holds a zero byte, which no key has: equal words, equal keys.
            return Some(entry);
        }
        self.long_key(entry, key, key_arena)
    }

    /// `entry` if its key, which starts with the same 8 bytes, is `key`.
    #[cold]
    #[inline(never)]
    fn long_key<'a>(
        &'a self,
        entry: &'a Entry,
        key: &Packed,
        key_arena: &str,
    ) -> Option<&'a Entry> {
        entry
            .key
            .eq_in(&self.arena, key, key_arena)
            .then_some(entry)
    }

    /// The entry of `key`, whose [`key_hash`] is `hash`.
    #[inline(never)]
    pub(crate) fn find(&self, hash: u64, key: &Packed, key_arena: &str) -> Option<&Entry> {
        if self.is_indexed() {
            self.find_indexed(hash, key, key_arena)
        } else {
            self.search(key, key_arena)
        }
    }

    /// The entry of `key` by binary search, for sets without an index.
    #[inline(never)]
    pub(crate) fn search(&self, key: &Packed, key_arena: &str) -> Option<&Entry> {
        let at = self
            .entries
            .binary_search_by(|e| e.key.cmp_in(&self.arena, key, key_arena))
            .ok()?;
        self.entries.get(at)
    }

    /// Index of `key` among the sorted entries, or where it would go.
    pub(crate) fn position(&self, key: &str) -> Result<usize, usize> {
        let target = Packed {
            word: word(key.as_bytes()),
            span: Span {
                start: 0,
                len: u32::try_from(key.len()).unwrap_or(u32::MAX),
            },
        };
        self.entries
            .binary_search_by(|e| e.key.cmp_in(&self.arena, &target, key))
    }

    fn push(&mut self, key: &str, value: &str) {
        let key = Packed::push(&mut self.arena, key);
        let value = Packed::push(&mut self.arena, value);
        self.entries.push(Entry { key, value });
    }

    fn sort_and_check(&mut self) -> Result<(), SelectorError> {
        let arena = &self.arena;
        self.entries
            .sort_by(|a, b| a.key.cmp_in(arena, &b.key, arena));
        for pair in self.entries.windows(2) {
            if let [a, b] = pair
                && a.key.eq_in(arena, &b.key, arena)
            {
                let key = b.key.get(arena);
                return Err(SelectorError::DuplicateKey {
                    path: format!("[{key:?}]"),
                    key: quote(key),
                });
            }
        }
        self.index = KeyIndex::build(&self.entries, arena);
        Ok(())
    }

    /// Rebuilds the arena so it holds only live strings.
    fn compact(&mut self) {
        let mut arena = String::with_capacity(self.arena.len());
        for entry in &mut self.entries {
            entry.key = Packed::push(&mut arena, entry.key.get(&self.arena));
            entry.value = Packed::push(&mut arena, entry.value.get(&self.arena));
        }
        self.arena = arena;
        self.index = KeyIndex::build(&self.entries, &self.arena);
    }
}

fn too_many() -> SelectorError {
    SelectorError::TooMany {
        path: String::new(),
        what: "labels",
        limit: MAX_LABELS,
    }
}

fn validate(key: &str, value: &str) -> Result<(), SelectorError> {
    check_key(key).map_err(|reason| SelectorError::InvalidKey {
        path: format!("[{}]", quote(key)),
        key: quote(key),
        reason,
    })?;
    check_value(value).map_err(|reason| SelectorError::InvalidValue {
        path: format!("[{}]", quote(key)),
        value: quote(value),
        reason,
    })
}

/// Iterator over `(key, value)` in key order, from [`Labels::iter`].
#[derive(Clone, Debug)]
pub struct LabelsIter<'a> {
    arena: &'a str,
    entries: std::slice::Iter<'a, Entry>,
}

impl<'a> Iterator for LabelsIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let e = self.entries.next()?;
        Some((e.key.get(self.arena), e.value.get(self.arena)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl DoubleEndedIterator for LabelsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let e = self.entries.next_back()?;
        Some((e.key.get(self.arena), e.value.get(self.arena)))
    }
}

impl ExactSizeIterator for LabelsIter<'_> {}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a str, &'a str);
    type IntoIter = LabelsIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Labels {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Labels {}

impl std::hash::Hash for Labels {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for (k, v) in self {
            k.hash(state);
            v.hash(state);
        }
    }
}

impl TryFrom<BTreeMap<String, String>> for Labels {
    type Error = SelectorError;

    fn try_from(map: BTreeMap<String, String>) -> Result<Self, Self::Error> {
        Self::from_pairs(map)
    }
}

impl From<&Labels> for BTreeMap<String, String> {
    fn from(labels: &Labels) -> Self {
        labels
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `key=value` pairs in key order, joined by `,` (the empty set prints nothing; an empty
/// value prints as nothing, `key=`). This is also the string syntax of a selector that
/// requires exactly these labels.
impl fmt::Display for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}
