//! `Labels`: a validated, key-ordered map of label keys to values, stored compactly.

use std::{collections::BTreeMap, fmt};

use crate::{
    error::SelectorError,
    limits::MAX_LABELS,
    text::{Packed, Span, check_key, check_value, key_bit, quote, word},
};

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
/// allocations and lookups compare integers before bytes.
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
#[derive(Clone, Default)]
pub struct Labels {
    arena: String,
    entries: Vec<Entry>,
    /// A one-word filter of the keys present: the OR of their [`key_bit`]s.
    key_bits: u64,
}

impl Labels {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
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
        self.key_bits |= key_bit(entry.key.word);
        self.entries.insert(at, entry);
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

    pub(crate) fn key_bits(&self) -> u64 {
        self.key_bits
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
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
        self.key_bits |= key_bit(key.word);
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
        Ok(())
    }

    /// Rebuilds the arena so it holds only live strings.
    fn compact(&mut self) {
        let mut arena = String::with_capacity(self.arena.len());
        self.key_bits = 0;
        for entry in &mut self.entries {
            self.key_bits |= key_bit(entry.key.word);
            entry.key = Packed::push(&mut arena, entry.key.get(&self.arena));
            entry.value = Packed::push(&mut arena, entry.value.get(&self.arena));
        }
        self.arena = arena;
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

/// `key=value` pairs in key order, joined by `,` (the empty set prints nothing). This is
/// also the string syntax of a selector that requires exactly these labels, as long as no
/// value is empty.
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
