//! `Labels`: a validated, key-ordered map of label keys to values, stored compactly.

use std::{collections::BTreeMap, fmt};

use model_ids::text::quote;

use crate::{
    error::SelectorError,
    limits::MAX_LABELS,
    name::{check_key, check_value},
    packed::{Head, Packed, Span, fingerprint, key_hash, same_bytes, word},
};

/// The fewest slots a [`KeyIndex`] has: enough for the sets of up to 16
/// labels most runners have.
const MIN_SLOTS: usize = 64;

/// Sets with more labels than this get no [`KeyIndex`] and are searched: a collision-free
/// table for them would cost more bytes than their entries (about `n * n / 4`), and fleets of
/// such runners are many.
const INDEX_MAX: usize = 32;

/// Most slots a [`KeyIndex`] tries (a table of this many bytes), twice what a set of
/// [`INDEX_MAX`] keys usually needs; a set whose hashes collide in every window tried is
/// searched.
const MAX_SLOT_BITS: u32 = 9;

/// A collision-free hash table over the keys of a label set, found at construction: the key
/// of slot `(key_hash(key) >> shift) & (len - 1)` (the table's length is a power of two) is
/// entry `slot - 1`, and no two keys share a slot, so a lookup is one probe and one
/// comparison of the key's [`Head`]. `shift` is the first window of the hashes in which
/// the keys do not collide, in the smallest table that has one (deterministic): 64 slots
/// for small sets, a table of `n * n / 4` slots or more for larger ones (a window is
/// collision-free with odds of about `exp(-2)` there, and 50 or more windows are tried).
/// When none is found there is no index (no slots, and `shift` is [`KeyIndex::NONE`]) and
/// lookups search.
#[derive(Clone)]
pub(crate) struct KeyIndex {
    /// The slots, on the heap like the entries (a table inside the set, where the set is a
    /// local, measured 3 ns slower per lookup on this machine); empty without an index.
    slots: Box<[u8]>,
    shift: u8,
}

impl KeyIndex {
    const NONE: u8 = u8::MAX;

    fn empty() -> Self {
        Self {
            slots: Box::default(),
            shift: Self::NONE,
        }
    }

    /// The slot position of `hash`.
    #[inline(always)]
    fn position(hash: u64, shift: u8, mask: u16) -> usize {
        // wrapping_shr: a shift of NONE (only on an unindexed set) cannot overflow either.
        hash.wrapping_shr(u32::from(shift)) as usize & usize::from(mask)
    }

    /// The index of `entries` (whose strings are in `arena`), if one is found.
    fn build(entries: &[Entry], arena: &str) -> Self {
        let n = entries.len();
        if n == 0 || n > INDEX_MAX {
            return Self::empty();
        }
        let mut hashes = [0_u64; INDEX_MAX];
        for (hash, e) in hashes.iter_mut().zip(entries) {
            *hash = key_hash(&e.key_head, e.key.bytes(arena));
        }
        let hashes = hashes.get(..n).unwrap_or(&[]);
        let first_bits = if n <= 16 {
            MIN_SLOTS.trailing_zeros()
        } else {
            // About n * n / 4 slots, rounded up to a power of two.
            (n * n / 4).next_power_of_two().trailing_zeros().max(7)
        };
        let mut seen = vec![0_u64; 0];
        for bits in first_bits..=MAX_SLOT_BITS {
            let size = 1_usize << bits;
            let mask = (size - 1) as u16;
            seen.clear();
            seen.resize(size.div_ceil(64), 0);
            for shift in 0..=(u64::BITS - bits) {
                seen.fill(0);
                let free = hashes.iter().all(|&hash| {
                    let at = Self::position(hash, shift as u8, mask);
                    match seen.get_mut(at / 64) {
                        Some(word) => {
                            let bit = 1 << (at % 64);
                            let free = *word & bit == 0;
                            *word |= bit;
                            free
                        }
                        None => false,
                    }
                });
                if free {
                    let mut index = Self {
                        slots: vec![0; size].into_boxed_slice(),
                        shift: shift as u8,
                    };
                    let slots = &mut index.slots;
                    for (i, &hash) in hashes.iter().enumerate() {
                        if let Some(slot) = slots.get_mut(Self::position(hash, shift as u8, mask)) {
                            *slot = i as u8 + 1;
                        }
                    }
                    return index;
                }
            }
        }
        Self::empty()
    }
}

/// What [`LabelSelector::matches`](crate::LabelSelector::matches) needs to look keys up in
/// a set with a [`KeyIndex`], read once per call.
pub(crate) struct Lookup<'a> {
    slots: &'a [u8],
    entries: &'a [Entry],
    arena: &'a [u8],
    shift: u32,
}

impl<'a> Lookup<'a> {
    /// The entry of `key` (whose [`key_hash`] is `hash`, whose [`Head`] is `head` and whose
    /// bytes are in `key_arena`): the entry in the key's slot if it has the same head, and
    /// for a key over 32 bytes the same bytes ([`same_bytes`], out of line). The head decides
    /// every key of at most 32 bytes, so the hash only finds the slot: a hash collision (two
    /// keys in one slot cannot happen in a set; a requirement's key landing on another key's
    /// slot can) costs one comparison of heads and never a wrong answer.
    #[inline(always)]
    pub(crate) fn find(
        &self,
        hash: u64,
        head: &Head,
        key: Span,
        key_arena: &[u8],
    ) -> Option<&'a Entry> {
        let entry = self.probe(hash, head)?;
        if head.is_long() && !self.same_long_key(entry, key, key_arena) {
            return None;
        }
        Some(entry)
    }

    /// [`Lookup::find`] for a key of at most 32 bytes, which its head decides: one probe and
    /// one comparison of heads, no call.
    #[inline(always)]
    pub(crate) fn probe(&self, hash: u64, head: &Head) -> Option<&'a Entry> {
        // The table's length is a power of two, and not zero (Labels::lookup): the mask
        // keeps the position inside it, which the compiler sees, so there is no bounds test
        // and no mask to keep beside the length.
        let mask = self.slots.len().wrapping_sub(1);
        let slot = *self.slots.get((hash >> self.shift) as usize & mask)?;
        // Slot 0 (no key) wraps to an index past every entry.
        let entry = self.entries.get(usize::from(slot).wrapping_sub(1))?;
        entry.key_head.same(head).then_some(entry)
    }

    /// Whether the key of `entry` is `key`, both over 32 bytes with the same first 32.
    #[inline(never)]
    fn same_long_key(&self, entry: &Entry, key: Span, key_arena: &[u8]) -> bool {
        same_bytes(entry.key.bytes_in(self.arena), key.bytes_in(key_arena))
    }

    /// The bytes of the set's strings.
    #[inline(always)]
    pub(crate) fn arena(&self) -> &'a [u8] {
        self.arena
    }
}

/// One label: its key and value in the arena, with what a lookup compares instead of their
/// bytes: the [`Head`]s of both and the value's fingerprint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// [`Head`] of the key, which a lookup compares with a requirement's.
    pub(crate) key_head: Head,
    /// [`Head`] of the value, which a one-value requirement compares with its value's.
    pub(crate) value_head: Head,
    /// [`fingerprint`] of the value, which a list of values looks up.
    pub(crate) value_fp: u64,
    pub(crate) key: Packed,
    pub(crate) value: Span,
}

impl Entry {
    fn new(arena: &mut String, key: &str, value: &str) -> Self {
        let key = Packed::push(arena, key);
        let value = Packed::push(arena, value);
        let value_head = Head::of(value.bytes(arena));
        Self {
            key_head: Head::of(key.bytes(arena)),
            value_head,
            value_fp: fingerprint(&value_head, value.bytes(arena)),
            key,
            value: value.span,
        }
    }

    /// The value in `arena`.
    #[inline]
    pub(crate) fn value<'a>(&self, arena: &'a str) -> &'a str {
        self.value.get(arena)
    }

    /// The value's bytes in `arena`.
    #[inline]
    pub(crate) fn value_bytes<'a>(&self, arena: &'a str) -> &'a [u8] {
        self.value_in(arena.as_bytes())
    }

    /// The value's bytes in the arena's bytes.
    #[inline(always)]
    pub(crate) fn value_in<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        self.value.bytes_in(arena)
    }
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
/// All strings live in one buffer next to a sorted entry table, and a collision-free hash
/// index of the keys (a third allocation, for sets of up to 32 labels), rebuilt on every
/// change, makes a selector's key lookup one probe. Each entry keeps the first 32 bytes of
/// its key and value, so a lookup compares words instead of bytes: a set of `n` labels
/// holds about `96 * n` bytes of entries, its strings, and 64 to 512 bytes of index.
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
            index: KeyIndex::empty(),
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
        let entry = Entry::new(&mut self.arena, key, value);
        let at = self.position(key).unwrap_or_else(|at| at);
        self.entries.insert(at, entry);
        self.index = KeyIndex::build(&self.entries, &self.arena);
        Ok(previous)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let at = self.position(key).ok()?;
        let entry = self.entries.remove(at);
        let value = entry.value(&self.arena).to_owned();
        self.compact();
        Some(value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        let at = self.position(key).ok()?;
        self.entries.get(at).map(|e| e.value(&self.arena))
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

    /// The lookup view of the index, when the set has one.
    #[inline(always)]
    pub(crate) fn lookup(&self) -> Option<Lookup<'_>> {
        // Without an index the table is empty (and only then): tested on the table, so that
        // Lookup::probe's mask is known to keep positions inside it.
        if self.index.slots.is_empty() {
            return None;
        }
        Some(Lookup {
            slots: &self.index.slots,
            entries: &self.entries,
            arena: self.arena.as_bytes(),
            shift: u32::from(self.index.shift),
        })
    }

    /// The entry of `key` (whose [`key_hash`] is `hash` and whose [`Head`] is `head`), with
    /// or without an index.
    #[inline(never)]
    pub(crate) fn find(
        &self,
        hash: u64,
        head: &Head,
        key: Span,
        key_arena: &str,
    ) -> Option<&Entry> {
        match self.lookup() {
            Some(lookup) => lookup.find(hash, head, key, key_arena.as_bytes()),
            None => self.search(key, key_arena),
        }
    }

    /// The entry of `key` by binary search, for sets without an index.
    #[inline(never)]
    pub(crate) fn search(&self, key: Span, key_arena: &str) -> Option<&Entry> {
        let key = Packed::at(key_arena, key.start as usize, key.len as usize);
        let at = self
            .entries
            .binary_search_by(|e| e.key.cmp_in(&self.arena, &key, key_arena))
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
        let entry = Entry::new(&mut self.arena, key, value);
        self.entries.push(entry);
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
        self.index = KeyIndex::build(&self.entries, &self.arena);
        Ok(())
    }

    /// Rebuilds the arena so it holds only live strings.
    fn compact(&mut self) {
        let mut arena = String::with_capacity(self.arena.len());
        for entry in &mut self.entries {
            *entry = Entry::new(
                &mut arena,
                entry.key.get(&self.arena),
                entry.value(&self.arena),
            );
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
        Some((e.key.get(self.arena), e.value(self.arena)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl DoubleEndedIterator for LabelsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let e = self.entries.next_back()?;
        Some((e.key.get(self.arena), e.value(self.arena)))
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
