//! `RetentionError`, the one error type of this crate: a value that breaks a rule, or an
//! ownership graph that cannot be right (a missing owner, a stale uid, a cycle).

use std::fmt;

use model_ids::ErrorKind;
use model_ids::text::{quote, shorten};

use model_ids::Uid;

/// Why a resource view, a retention rule or an ownership graph is refused.
///
/// Validation errors name the field path (`ownerReferences[1]`, `rules.task.cleanupPriority`)
/// and quote the input, shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters. Graph errors
/// (from [`check`](crate::check)) name the resources by kind and quoted name.
///
/// ```
/// use model_retention::{RetentionError, RetentionRule};
///
/// let err = RetentionRule::builder(101).build().unwrap_err();
/// assert_eq!(err.to_string(), "invalid cleanupPriority: 101 is larger than the maximum 100");
/// assert!(matches!(err, RetentionError::Invalid { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetentionError {
    /// A field breaks a rule: too long, too large, empty, or a character it may not hold.
    #[error("invalid {path}{}: {reason}", input_suffix(.input.as_deref()))]
    Invalid {
        /// The field path (`name`, `rules.task.history.succeeded`).
        path: String,
        /// The offending input, shortened, when quoting it helps.
        input: Option<String>,
        /// What is wrong with it.
        reason: InvalidReason,
    },

    /// An owner reference names the resource itself (Kubernetes refuses it too).
    #[error("invalid ownerReferences[{index}]: {resource} cannot own itself")]
    SelfOwner {
        /// The resource, as `kind "name"`.
        resource: String,
        /// The position of the reference.
        index: usize,
    },

    /// A second owner reference marked `controller`; a resource has one controller at most.
    #[error(
        "invalid ownerReferences[{index}]: a second controller (ownerReferences[{first}] is the controller)"
    )]
    SecondController {
        /// The position of the first controller.
        first: usize,
        /// The position of the second.
        index: usize,
    },

    /// An owner reference names no resource of the view (in the resource's tenant).
    #[error("{resource}: owner {owner} not found")]
    MissingOwner {
        /// The resource holding the reference, as `kind "name"`.
        resource: String,
        /// The owner it names, as `kind "name"`.
        owner: String,
    },

    /// The named owner exists with another uid: the owner the reference meant was deleted
    /// and a new one was created under its name.
    #[error("{resource}: owner {owner} has uid {actual}, the reference names uid {expected}")]
    OwnerUidMismatch {
        /// The resource holding the reference, as `kind "name"`.
        resource: String,
        /// The owner it names, as `kind "name"`.
        owner: String,
        /// The uid in the reference.
        expected: Uid,
        /// The uid of the resource with that name.
        actual: Uid,
    },

    /// Owner references that go round: each resource listed owns the next, and the last
    /// owns the first.
    #[error("owner references form a cycle: {cycle}")]
    OwnerCycle {
        /// The resources on the cycle, each as `kind "name"`, joined by ` -> `, the first
        /// repeated at the end (at most 8 shown).
        cycle: String,
    },

    /// Two resources of the view share an identity: the same uid, or the same kind and
    /// name in one tenant.
    #[error("{resource} and {other} are both {what}")]
    Duplicate {
        /// The later resource, as `kind "name"`.
        resource: String,
        /// The earlier one.
        other: String,
        /// What they share (`uid 0190…`, `named so in tenant "acme"`).
        what: String,
    },
}

/// Why a field is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidReason {
    /// The text is empty.
    Empty,
    /// The text is longer than the limit, in bytes.
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The number is larger than the limit.
    TooLarge {
        /// The number.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// The text holds a character the field does not allow.
    InvalidChar {
        /// The first such character.
        ch: char,
        /// Its byte offset.
        index: usize,
    },
    /// A map names a key twice.
    Duplicate,
    /// A field that must be there is not.
    Missing {
        /// Why it must be there.
        rule: &'static str,
    },
    /// Fields that do not fit together.
    Inconsistent {
        /// The rule they break.
        rule: &'static str,
    },
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("must not be empty"),
            Self::TooLong { len, max } => write!(f, "{len} bytes long, at most {max} allowed"),
            Self::TooLarge { value, max } => write!(f, "{value} is larger than the maximum {max}"),
            Self::InvalidChar { ch, index } => write!(
                f,
                "invalid character {ch:?} at byte {index} (allowed: A-Z a-z 0-9 . _ - /)"
            ),
            Self::Duplicate => f.write_str("named twice"),
            Self::Missing { rule } => write!(f, "missing: {rule}"),
            Self::Inconsistent { rule } => f.write_str(rule),
        }
    }
}

/// ` "input"` when there is an input to quote.
fn input_suffix(input: Option<&str>) -> String {
    input
        .map(|input| format!(" {}", quote(input)))
        .unwrap_or_default()
}

impl RetentionError {
    /// A field error without a quoted input.
    pub(crate) fn invalid(path: impl Into<String>, reason: InvalidReason) -> Self {
        Self::Invalid {
            path: path.into(),
            input: None,
            reason,
        }
    }

    /// A field error quoting `input`.
    pub(crate) fn invalid_input(
        path: impl Into<String>,
        input: &str,
        reason: InvalidReason,
    ) -> Self {
        Self::Invalid {
            path: path.into(),
            input: Some(shorten(input)),
            reason,
        }
    }

    /// The same error with `prefix` in front of its field path (`rules.task` + `ttlAfterFinishedMs`).
    pub(crate) fn at(self, prefix: &str) -> Self {
        match self {
            Self::Invalid {
                path,
                input,
                reason,
            } => Self::Invalid {
                path: join(prefix, &path),
                input,
                reason,
            },
            other => other,
        }
    }

    /// The category of this error: a field or a graph the caller must fix is
    /// [`ErrorKind::Invalid`]; an owner recreated under its name is [`ErrorKind::Gone`] (the
    /// reference names something that no longer holds); two resources with one identity are
    /// [`ErrorKind::Conflict`].
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid { .. }
            | Self::SelfOwner { .. }
            | Self::SecondController { .. }
            | Self::MissingOwner { .. }
            | Self::OwnerCycle { .. } => ErrorKind::Invalid,
            Self::OwnerUidMismatch { .. } => ErrorKind::Gone,
            Self::Duplicate { .. } => ErrorKind::Conflict,
        }
    }
}

/// `prefix.path`, or either alone when the other is empty.
fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}.{path}"),
    }
}

#[cfg(test)]
mod tests;
