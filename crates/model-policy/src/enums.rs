//! The named policies without data (`JitterPolicy`, `AdmissionPolicy`), made by one macro,
//! and the lenient spelling rule `RestartPolicy` shares with them.
//!
//! One macro keeps them in lockstep: the same derives, the same wire form (a camelCase
//! string), the same `FromStr` leniency and the same errors.

use std::fmt;
use std::str::FromStr;

use crate::error::PolicyError;

/// Defines a policy enum and its `ALL`, `as_str`, `Display`, `FromStr` and serde impls.
///
/// Each variant lists its wire form and its lowercase words; `FromStr` accepts the words joined
/// by nothing (camelCase, PascalCase, any case), by `-` or by `_`, compared ASCII-case-insensitively.
macro_rules! policy_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident expecting $expecting:literal, unknown $unknown:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $wire:literal [$($word:literal),+]
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[non_exhaustive]
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant,
            )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The wire form: the camelCase string this value serializes to and `Display` prints.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)+
                }
            }

            /// The lowercase words of the name, for the lenient `FromStr`.
            const fn words(self) -> &'static [&'static str] {
                match self {
                    $(Self::$variant => &[$($word),+],)+
                }
            }

            /// The variant whose wire form is exactly `input`.
            fn from_wire(input: &str) -> Option<Self> {
                match input {
                    $($wire => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = PolicyError;

            /// Parses the wire form in any case, or its kebab-case or snake_case spelling.
            fn from_str(input: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|value| spelled_as(input, value.words()))
                    .ok_or_else(|| PolicyError::$unknown(input))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        /// Accepts exactly the wire form; anything else is the same error `FromStr` gives.
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct WireVisitor;

                impl serde::de::Visitor<'_> for WireVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }

                    fn visit_str<E: serde::de::Error>(self, input: &str) -> Result<$name, E> {
                        $name::from_wire(input).ok_or_else(|| E::custom(PolicyError::$unknown(input)))
                    }
                }

                deserializer.deserialize_str(WireVisitor)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn schema_id() -> std::borrow::Cow<'static, str> {
                concat!(module_path!(), "::", stringify!($name)).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": $expecting,
                    "type": "string",
                    "enum": [$($wire),+],
                })
            }
        }
    };
}

policy_enum! {
    /// How randomness spreads the delay before a retry (see [`BackoffPolicy`](crate::BackoffPolicy)).
    ///
    /// `exp(n)` below is the capped exponential delay for retry `n`,
    /// [`BackoffPolicy::base_delay_ms`](crate::BackoffPolicy::base_delay_ms).
    /// On the wire: `"none"`, `"full"`, `"equal"`, `"decorrelated"`.
    ///
    /// ```
    /// use model_policy::JitterPolicy;
    ///
    /// assert_eq!("DECORRELATED".parse(), Ok(JitterPolicy::Decorrelated));
    /// assert_eq!(JitterPolicy::default(), JitterPolicy::Full);
    /// ```
    pub enum JitterPolicy
        expecting "a jitter policy: one of none, full, equal, decorrelated",
        unknown unknown_jitter
    {
        /// No randomness: the delay is `exp(n)`.
        None = "none" ["none"],
        /// Uniform in `[0, exp(n)]` (the default).
        #[default]
        Full = "full" ["full"],
        /// `exp(n)/2` plus uniform in `[0, exp(n)/2]`: at least half the exponential delay.
        Equal = "equal" ["equal"],
        /// `min(max_ms, uniform in [first_ms, 3 * previous])`, previous being the last delay
        /// (`first_ms` before the first); the retry number is not used.
        Decorrelated = "decorrelated" ["decorrelated"],
    }
}

policy_enum! {
    /// What happens when a task arrives for a slot that already has an active task.
    ///
    /// On the wire: `"dropIfRunning"`, `"replace"`, `"queue"`.
    ///
    /// ```
    /// use model_policy::AdmissionPolicy;
    ///
    /// assert_eq!("drop_if_running".parse(), Ok(AdmissionPolicy::DropIfRunning));
    /// assert_eq!(AdmissionPolicy::default().as_str(), "dropIfRunning");
    /// ```
    pub enum AdmissionPolicy
        expecting "an admission policy: one of dropIfRunning, replace, queue",
        unknown unknown_admission
    {
        /// Drop the new task while the slot's task is running (the default).
        #[default]
        DropIfRunning = "dropIfRunning" ["drop", "if", "running"],
        /// Cancel the running task and start the new one.
        Replace = "replace" ["replace"],
        /// Start the new task when the running one has finished.
        Queue = "queue" ["queue"],
    }
}

/// Whether `input` is `words` joined by nothing, `-` or `_`, ignoring ASCII case.
pub(crate) fn spelled_as(input: &str, words: &[&str]) -> bool {
    [b"".as_slice(), b"-", b"_"]
        .into_iter()
        .any(|separator| joined_eq(input.as_bytes(), words, separator))
}

/// Whether `input` is exactly `words` joined by `separator`, ignoring ASCII case.
fn joined_eq(mut input: &[u8], words: &[&str], separator: &[u8]) -> bool {
    for (index, word) in words.iter().enumerate() {
        if index > 0 {
            match input.strip_prefix(separator) {
                Some(rest) => input = rest,
                None => return false,
            }
        }
        match input.split_at_checked(word.len()) {
            Some((head, rest)) if head.eq_ignore_ascii_case(word.as_bytes()) => input = rest,
            _ => return false,
        }
    }
    input.is_empty()
}

#[cfg(test)]
mod tests;
