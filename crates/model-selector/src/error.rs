//! The crate's one error type, carrying a field path relative to the value being validated.

use model_ids::ErrorKind;

use crate::operator::SelectorOperator;

/// Why labels or a selector were rejected.
///
/// `path` is relative to the value being validated (`matchExpressions[1].values[0]`,
/// `matchLabels["zone"]`, or `["zone"]` for a [`Labels`](crate::Labels) set), so a caller can
/// put its own field in front with [`SelectorError::prefixed`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectorError {
    /// A label key is not a Kubernetes qualified name.
    #[error("{}invalid label key {key}: {reason}", at(.path))]
    InvalidKey {
        /// Field path of the key.
        path: String,
        /// The key, quoted and shortened if long.
        key: String,
        /// What rule it breaks.
        reason: &'static str,
    },
    /// A label value is neither empty nor a name.
    #[error("{}invalid label value {value}: {reason}", at(.path))]
    InvalidValue {
        /// Field path of the value.
        path: String,
        /// The value, quoted and shortened if long.
        value: String,
        /// What rule it breaks.
        reason: &'static str,
    },
    /// The same key appears twice in one label set.
    #[error("{}duplicate label key {key}", at(.path))]
    DuplicateKey {
        /// Field path of the second occurrence.
        path: String,
        /// The key, quoted.
        key: String,
    },
    /// A collection is over its limit.
    #[error("{}too many {what}: the limit is {limit}", at(.path))]
    TooMany {
        /// Field path of the collection.
        path: String,
        /// What is counted (`labels`, `requirements`, `values`).
        what: &'static str,
        /// The limit, one of the `MAX_*` constants.
        limit: usize,
    },
    /// A requirement has the wrong number of values for its operator.
    #[error("{}operator {operator} {expected}, got {count}", at(.path))]
    ValueCount {
        /// Field path of the values.
        path: String,
        /// The requirement's operator.
        operator: SelectorOperator,
        /// What the operator needs.
        expected: &'static str,
        /// How many values were given.
        count: usize,
    },
    /// A `Gt` or `Lt` value is not an `i64`.
    #[error("{}operator {operator} needs an integer value, got {value}", at(.path))]
    NotAnInteger {
        /// Field path of the value.
        path: String,
        /// The requirement's operator.
        operator: SelectorOperator,
        /// The value, quoted.
        value: String,
    },
    /// An operator name is not one of `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`.
    #[error(
        "{}unknown operator {found}, expected In, NotIn, Exists, DoesNotExist, Gt or Lt",
        at(.path)
    )]
    UnknownOperator {
        /// Field path of the operator.
        path: String,
        /// The operator given, quoted.
        found: String,
    },
    /// A runner is registered in an index that already holds it.
    #[error("{}runner {:?} is already registered", at(.path), .id.as_ref() as &str)]
    RunnerExists {
        /// Where in the batch or entry list (`[3]`).
        path: String,
        /// The runner.
        id: model_ids::RunnerId,
    },
    /// A runner is updated or removed but the index does not hold it.
    #[error("{}runner {:?} is not registered", at(.path), .id.as_ref() as &str)]
    UnknownRunner {
        /// Where in the batch (`[3]`).
        path: String,
        /// The runner.
        id: model_ids::RunnerId,
    },
    /// The string syntax is malformed.
    #[error("selector syntax error at byte {position}: expected {expected}, found {found}")]
    Syntax {
        /// Byte offset in the input where the problem starts.
        position: usize,
        /// What the parser expected there.
        expected: &'static str,
        /// What it found: a quoted token, or `end of input`.
        found: String,
    },
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// The field path of a `SelectorError` (by reference or by mutable reference, as the
/// error is given), if its variant has one: the one list of the variants that carry a path.
macro_rules! path_of {
    ($error:expr) => {
        match $error {
            SelectorError::InvalidKey { path, .. }
            | SelectorError::InvalidValue { path, .. }
            | SelectorError::DuplicateKey { path, .. }
            | SelectorError::TooMany { path, .. }
            | SelectorError::ValueCount { path, .. }
            | SelectorError::NotAnInteger { path, .. }
            | SelectorError::UnknownOperator { path, .. }
            | SelectorError::RunnerExists { path, .. }
            | SelectorError::UnknownRunner { path, .. } => Some(path),
            SelectorError::Syntax { .. } => None,
        }
    };
}

impl SelectorError {
    /// The category of this error: always [`ErrorKind::Invalid`], an input to fix. A
    /// runner registered twice or not registered is a wrong batch, not a race: a batch
    /// applies as a whole or not at all, so nothing is left to re-read.
    ///
    /// ```
    /// use model_ids::ErrorKind;
    /// use model_selector::LabelSelector;
    ///
    /// let err = "zone in (eu".parse::<LabelSelector>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Invalid);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            SelectorError::InvalidKey { .. }
            | SelectorError::InvalidValue { .. }
            | SelectorError::DuplicateKey { .. }
            | SelectorError::TooMany { .. }
            | SelectorError::ValueCount { .. }
            | SelectorError::NotAnInteger { .. }
            | SelectorError::UnknownOperator { .. }
            | SelectorError::RunnerExists { .. }
            | SelectorError::UnknownRunner { .. }
            | SelectorError::Syntax { .. } => ErrorKind::Invalid,
        }
    }

    /// The field path the error refers to, relative to the validated value (empty for
    /// the whole value and for string-syntax errors, which carry a byte position instead).
    pub fn path(&self) -> &str {
        path_of!(self).map_or("", String::as_str)
    }

    /// Puts `prefix` in front of the field path: `runnerSelector` and `matchLabels["a"]`
    /// give `runnerSelector.matchLabels["a"]`; `matchLabels` and `["a"]` give
    /// `matchLabels["a"]`. String-syntax errors are returned unchanged.
    ///
    /// ```
    /// use model_selector::{Labels, SelectorError};
    ///
    /// let err = Labels::from_pairs([("zone", "EU!")]).unwrap_err().prefixed("labels");
    /// assert_eq!(err.path(), r#"labels["zone"]"#);
    /// ```
    #[must_use]
    pub fn prefixed(mut self, prefix: &str) -> Self {
        if let Some(path) = self.path_mut() {
            let joiner = if path.is_empty() || path.starts_with('[') || prefix.is_empty() {
                ""
            } else {
                "."
            };
            *path = format!("{prefix}{joiner}{path}");
        }
        self
    }

    /// The message without the field path in front, for a caller that shows the path
    /// itself (next to the field, or in a column of its own). String-syntax errors have no
    /// path and give their whole message.
    ///
    /// ```
    /// use model_selector::LabelSelector;
    ///
    /// let err = LabelSelector::builder().label("zone", "EU!").build().unwrap_err();
    /// assert_eq!(err.path(), r#"matchLabels["zone"]"#);
    /// assert!(err.to_string().starts_with(r#"matchLabels["zone"]: invalid label value "EU!""#));
    /// assert!(err.message().starts_with(r#"invalid label value "EU!""#));
    /// ```
    pub fn message(&self) -> String {
        let mut bare = self.clone();
        if let Some(path) = bare.path_mut() {
            path.clear();
        }
        bare.to_string()
    }

    /// The field path, if the variant has one.
    fn path_mut(&mut self) -> Option<&mut String> {
        path_of!(self)
    }
}

#[cfg(test)]
mod tests;
