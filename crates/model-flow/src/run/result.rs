//! `JobResult`: the bounded string map a job may report when it ends.

use std::collections::BTreeMap;

use model_ids::BoundedPairs;
use serde::{Deserialize, Serialize};

use crate::bounded;
use model_ids::text::shorten;

use crate::error::FlowError;
use crate::limits::{MAX_RESULT_ENTRIES, MAX_RESULT_KEY_BYTES, MAX_RESULT_VALUE_BYTES};

/// What a job reports when it ends: up to [`MAX_RESULT_ENTRIES`] string entries, keys of 1
/// to [`MAX_RESULT_KEY_BYTES`] bytes, values of at most [`MAX_RESULT_VALUE_BYTES`], no NUL
/// byte anywhere (databases refuse it). A flow run collects its jobs' results under their
/// names ([`FlowRun::results`](crate::FlowRun::results)).
///
/// On the wire a JSON object of strings, written in key order; a key given twice is an error.
///
/// ```
/// use model_flow::JobResult;
///
/// let result = JobResult::from_pairs([("rows", "120"), ("file", "out.csv")])?;
/// assert_eq!(result.get("rows"), Some("120"));
/// assert_eq!(serde_json::to_string(&result).unwrap(), r#"{"file":"out.csv","rows":"120"}"#);
/// assert!(JobResult::from_pairs([("", "x")]).is_err());
/// # Ok::<(), model_flow::FlowError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "BoundedPairs<bounded::Result>")]
pub struct JobResult(BTreeMap<String, String>);

impl JobResult {
    /// Validates `pairs` into a result; errors name the entry (`result["rows"]`).
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Self, FlowError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut entries = BTreeMap::new();
        for (i, (key, value)) in pairs.into_iter().enumerate() {
            if i >= MAX_RESULT_ENTRIES {
                return Err(FlowError::TooMany {
                    path: "result".into(),
                    len: i + 1,
                    max: MAX_RESULT_ENTRIES,
                });
            }
            let (key, value) = (key.into(), value.into());
            check_key(&key)?;
            check_text(
                &format!("result[{:?}]", shorten(&key)),
                &value,
                MAX_RESULT_VALUE_BYTES,
            )?;
            if entries.contains_key(&key) {
                return Err(FlowError::DuplicateKey {
                    path: "result".into(),
                    key: shorten(&key),
                });
            }
            entries.insert(key, value);
        }
        Ok(Self(entries))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes of its keys and values, as counted against
    /// [`MAX_FLOW_RESULT_BYTES`](crate::MAX_FLOW_RESULT_BYTES).
    pub fn byte_len(&self) -> usize {
        self.0.iter().map(|(k, v)| k.len() + v.len()).sum()
    }
}

impl TryFrom<BoundedPairs<bounded::Result>> for JobResult {
    type Error = FlowError;

    fn try_from(pairs: BoundedPairs<bounded::Result>) -> Result<Self, FlowError> {
        Self::from_pairs(pairs.into_inner())
    }
}

/// A key: not empty, at most [`MAX_RESULT_KEY_BYTES`], no NUL.
fn check_key(key: &str) -> Result<(), FlowError> {
    if key.is_empty() {
        return Err(FlowError::Empty {
            path: "result key".into(),
        });
    }
    check_text(
        &format!("result key {:?}", shorten(key)),
        key,
        MAX_RESULT_KEY_BYTES,
    )
}

/// Text of at most `max` bytes without NUL.
fn check_text(path: &str, text: &str, max: usize) -> Result<(), FlowError> {
    if text.len() > max {
        return Err(FlowError::TooLong {
            path: path.into(),
            len: text.len(),
            max,
        });
    }
    match text.bytes().position(|b| b == 0) {
        Some(index) => Err(FlowError::NulByte {
            path: path.into(),
            index,
        }),
        None => Ok(()),
    }
}
