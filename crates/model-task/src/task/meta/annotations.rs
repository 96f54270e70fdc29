//! `Annotations`: free-form metadata of a task, kept apart from labels because nothing
//! selects on them.

use std::collections::BTreeMap;

use model_ids::{BoundedPairs, Limit, text::quote};
use model_selector::{SelectorError, SelectorOperator, SelectorRequirement};
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, TaskError};

/// Most entries in one [`Annotations`] map.
pub const MAX_ANNOTATIONS: usize = 64;

/// Most bytes of all annotation keys and values together (Kubernetes' limit, 256 KiB).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// The bound of an annotation map read from the wire.
pub(crate) enum AnnotationsLimit {}

impl Limit for AnnotationsLimit {
    const FIELD: &'static str = "annotations";
    const MAX: usize = MAX_ANNOTATIONS;
}

/// The wire form of [`Annotations`]: at most [`MAX_ANNOTATIONS`] pairs, unchecked.
pub(crate) type AnnotationsRaw = BoundedPairs<AnnotationsLimit>;

/// Free-form metadata: descriptions, links, tool state. Unlike labels, nothing selects on
/// annotations, so their values are any text.
///
/// Keys follow the label key rule (a Kubernetes qualified name: an optional DNS-1123
/// subdomain prefix and `/`, then a name of at most 63 bytes); values are any UTF-8 text.
/// At most [`MAX_ANNOTATIONS`] entries and [`MAX_ANNOTATIONS_BYTES`] of keys and values
/// together. Iterated in key order; a JSON object on the wire.
///
/// ```
/// use model_task::task::Annotations;
///
/// let notes = Annotations::from_pairs([("example.com/owner", "team infra, see the runbook")])?;
/// assert_eq!(notes.get("example.com/owner"), Some("team infra, see the runbook"));
/// let err = Annotations::from_pairs([("bad key", "x")]).unwrap_err();
/// assert_eq!(err.path(), Some(r#"["bad key"]"#));
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "AnnotationsRaw")]
pub struct Annotations(BTreeMap<String, String>);

impl Annotations {
    /// No annotations.
    pub const fn new() -> Self {
        Self(BTreeMap::new())
    }

    /// Annotations from key-value pairs. Errors name the entry (`["key"]`, relative to the
    /// map): a key that is not a qualified name, a key given twice, more than
    /// [`MAX_ANNOTATIONS`] entries, or more than [`MAX_ANNOTATIONS_BYTES`] in all.
    pub fn from_pairs<K, V, I>(pairs: I) -> Result<Self, TaskError>
    where
        K: Into<String>,
        V: Into<String>,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut map = BTreeMap::new();
        let mut bytes = 0usize;
        for (key, value) in pairs {
            let (key, value) = (key.into(), value.into());
            if map.len() == MAX_ANNOTATIONS {
                return Err(TaskError::invalid(
                    "",
                    InvalidReason::TooMany {
                        len: MAX_ANNOTATIONS + 1,
                        max: MAX_ANNOTATIONS,
                    },
                ));
            }
            check_key(&key)?;
            bytes = bytes.saturating_add(key.len()).saturating_add(value.len());
            if bytes > MAX_ANNOTATIONS_BYTES {
                return Err(TaskError::invalid(
                    "",
                    InvalidReason::TooLong {
                        len: bytes,
                        max: MAX_ANNOTATIONS_BYTES,
                    },
                ));
            }
            let path = entry_path(&key);
            if map.insert(key, value).is_some() {
                return Err(TaskError::invalid(
                    path,
                    InvalidReason::Inconsistent {
                        rule: "the key is given twice",
                    },
                ));
            }
        }
        Ok(Self(map))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl TryFrom<AnnotationsRaw> for Annotations {
    type Error = TaskError;

    fn try_from(raw: AnnotationsRaw) -> Result<Self, TaskError> {
        Self::from_pairs(raw.into_inner())
    }
}

/// `["key"]`, the path of one entry, with the key quoted and shortened.
fn entry_path(key: &str) -> String {
    format!("[{}]", quote(key))
}

/// Checks `key` with the label key rule, which model-selector owns.
fn check_key(key: &str) -> Result<(), TaskError> {
    match SelectorRequirement::new(key, SelectorOperator::Exists, Vec::<String>::new()) {
        Ok(_) => Ok(()),
        Err(SelectorError::InvalidKey { reason, .. }) => Err(TaskError::invalid(
            entry_path(key),
            InvalidReason::NotQualifiedName { rule: reason },
        )),
        Err(other) => Err(TaskError::Selector(other.prefixed(&entry_path(key)))),
    }
}

#[cfg(test)]
mod tests;
