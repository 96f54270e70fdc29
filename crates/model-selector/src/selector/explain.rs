//! `explain`: which requirements a label set fails, and why.

use std::fmt;

use super::{LabelSelector, compiled::Kind};
use crate::labels::Labels;

/// One requirement a label set does not satisfy, from [`LabelSelector::explain`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequirementFailure {
    /// Where the requirement is in the selector's canonical wire form:
    /// `matchLabels["zone"]` or `matchExpressions[2]`.
    pub path: String,
    /// The requirement in string syntax, e.g. `gpu in (a100,h100)`.
    pub requirement: String,
    /// The label key it tests.
    pub key: String,
    /// Why it fails.
    pub reason: FailureReason,
}

/// Why a requirement fails.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureReason {
    /// The key is absent, but the requirement needs it.
    KeyMissing,
    /// The key's value is not one of the listed values (`matchLabels`, `In`).
    ValueNotListed {
        /// The label's value.
        value: String,
    },
    /// The key's value is one of the excluded values (`NotIn`).
    ValueExcluded {
        /// The label's value.
        value: String,
    },
    /// The key is present but must not be (`DoesNotExist`).
    KeyPresent {
        /// The label's value.
        value: String,
    },
    /// The key's value is not an integer (`Gt`, `Lt`).
    NotAnInteger {
        /// The label's value.
        value: String,
    },
    /// The key's integer value is not greater than the bound (`Gt`).
    NotGreater {
        /// The label's value.
        value: i64,
        /// The requirement's bound.
        bound: i64,
    },
    /// The key's integer value is not less than the bound (`Lt`).
    NotLess {
        /// The label's value.
        value: i64,
        /// The requirement's bound.
        bound: i64,
    },
}

impl fmt::Display for FailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KeyMissing => f.write_str("key missing"),
            Self::ValueNotListed { value } => write!(f, "value {value:?} is not listed"),
            Self::ValueExcluded { value } => write!(f, "value {value:?} is excluded"),
            Self::KeyPresent { value } => {
                write!(f, "key present (value {value:?}) but must not be")
            }
            Self::NotAnInteger { value } => write!(f, "value {value:?} is not an integer"),
            Self::NotGreater { value, bound } => write!(f, "{value} is not greater than {bound}"),
            Self::NotLess { value, bound } => write!(f, "{value} is not less than {bound}"),
        }
    }
}

impl fmt::Display for RequirementFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.path, self.requirement, self.reason)
    }
}

impl LabelSelector {
    /// Every requirement `labels` fail, in canonical order, each with the reason; empty
    /// exactly when [`LabelSelector::matches`] is true.
    ///
    /// ```
    /// use model_selector::{FailureReason, LabelSelector, Labels};
    ///
    /// let selector: LabelSelector = "zone=eu,gpu in (a100,h100),!draining".parse()?;
    /// let runner = Labels::from_pairs([("zone", "us"), ("draining", "yes")])?;
    /// let failures = selector.explain(&runner);
    /// assert_eq!(failures.len(), 3);
    /// assert_eq!(failures[0].reason, FailureReason::KeyPresent { value: "yes".into() });
    /// assert_eq!(failures[1].reason, FailureReason::KeyMissing);
    /// assert_eq!(failures[2].to_string(), r#"matchLabels["zone"] (zone=eu): value "us" is not listed"#);
    /// # Ok::<(), model_selector::SelectorError>(())
    /// ```
    pub fn explain(&self, labels: &Labels) -> Vec<RequirementFailure> {
        let arena = labels.arena();
        let mut failures = Vec::new();
        let mut expression = 0;
        let own = self.arena();
        for req in self.ordered() {
            let found = labels.find(req.hash, &req.key_head, req.key, own);
            let key = req.key.get(own);
            let path = if req.kind == Kind::Label {
                format!("matchLabels[{key:?}]")
            } else {
                expression += 1;
                format!("matchExpressions[{}]", expression - 1)
            };
            if self.test(req, found, arena) {
                continue;
            }
            let value = found.map(|e| e.value(arena).to_owned());
            let reason = match (req.kind, value) {
                (_, None) => FailureReason::KeyMissing,
                (Kind::Label | Kind::In, Some(value)) => FailureReason::ValueNotListed { value },
                (Kind::NotIn, Some(value)) => FailureReason::ValueExcluded { value },
                (Kind::Gt | Kind::Lt, Some(value)) => match value.parse::<i64>() {
                    Err(_) => FailureReason::NotAnInteger { value },
                    Ok(v) if req.kind == Kind::Gt => FailureReason::NotGreater {
                        value: v,
                        bound: req.bound(),
                    },
                    Ok(v) => FailureReason::NotLess {
                        value: v,
                        bound: req.bound(),
                    },
                },
                (Kind::DoesNotExist | Kind::Exists, Some(value)) => {
                    FailureReason::KeyPresent { value }
                }
            };
            let mut requirement = String::new();
            let _ = self.fmt_req_in(own, req, &mut requirement);
            failures.push(RequirementFailure {
                path,
                requirement,
                key: key.to_owned(),
                reason,
            });
        }
        failures
    }
}
