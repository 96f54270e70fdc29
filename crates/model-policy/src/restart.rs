//! `RestartPolicy`: whether an attempt that ended is followed by another, and for `always`,
//! how long to wait after a success ([`RestartInterval`]).

use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::enums::spelled_as;
use crate::error::PolicyError;

/// Longest wait between runs of a periodic task, in milliseconds (366 days). Anything
/// rarer is a schedule's job.
pub const MAX_RESTART_INTERVAL_MS: u64 = 366 * 24 * 60 * 60 * 1000;

/// How long an `always` task waits after a success before its next run: 1 ms to
/// [`MAX_RESTART_INTERVAL_MS`]. Zero is refused rather than read as "at once": an `always`
/// policy without an interval already says that, and one meaning has one spelling.
///
/// ```
/// use model_policy::RestartInterval;
/// assert_eq!(RestartInterval::new(60_000)?.as_ms(), 60_000);
/// assert!(RestartInterval::new(0).is_err());
/// # Ok::<(), model_policy::PolicyError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RestartInterval(NonZeroU64);

impl RestartInterval {
    /// The interval of `ms` milliseconds, or [`PolicyError::InvalidInterval`] when it is 0 or
    /// above [`MAX_RESTART_INTERVAL_MS`].
    pub fn new(ms: u64) -> Result<Self, PolicyError> {
        NonZeroU64::new(ms)
            .filter(|ms| ms.get() <= MAX_RESTART_INTERVAL_MS)
            .map(Self)
            .ok_or(PolicyError::InvalidInterval { value: ms })
    }

    /// The interval in milliseconds.
    pub const fn as_ms(self) -> u64 {
        self.0.get()
    }
}

/// When a task is restarted after an attempt ends.
///
/// - `Never`: the first attempt's outcome is final (the default).
/// - `OnFailure`: restart after an attempt fails or times out.
/// - `Always`: restart after every outcome except cancellation. With an `interval`, a run
///   that succeeded is followed by the next one that much later (a periodic task); failures
///   wait the backoff as with `OnFailure`. Without one, the next run after a success waits
///   the backoff's first delay.
///
/// On the wire a policy without an interval is a string, `"never"`, `"onFailure"` or
/// `"always"`; `always` with an interval is an object tagged by `type`, as solti-model writes
/// every policy: `{"type": "always", "intervalMs": 60000}`. Reading takes both shapes (so
/// `{"type": "onFailure"}` reads too); writing uses the string whenever it can, so
/// documents written before intervals existed read unchanged.
///
/// The text form ([`FromStr`], [`Display`](fmt::Display)) is the name, followed for an
/// interval by `:` and the milliseconds (`always:60000`); `FromStr` takes the name in any
/// case and the kebab and snake spellings (`"on-failure"`, `"ON_FAILURE"`).
///
/// ```
/// use model_policy::RestartPolicy;
///
/// assert_eq!("on-failure".parse(), Ok(RestartPolicy::OnFailure));
/// assert_eq!(RestartPolicy::OnFailure.to_string(), "onFailure");
/// let hourly = RestartPolicy::periodic(3_600_000)?;
/// assert_eq!(hourly.to_string(), "always:3600000");
/// assert_eq!("always:3600000".parse(), Ok(hourly));
/// assert_eq!(serde_json::to_string(&hourly).unwrap(), r#"{"type":"always","intervalMs":3600000}"#);
/// assert_eq!(serde_json::to_string(&RestartPolicy::always()).unwrap(), r#""always""#);
/// assert_eq!(RestartPolicy::default(), RestartPolicy::Never);
/// # Ok::<(), model_policy::PolicyError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RestartPolicy {
    /// Never restart: the first attempt's outcome is final (the default).
    #[default]
    Never,
    /// Restart after an attempt fails or times out.
    OnFailure,
    /// Restart after every outcome except cancellation.
    Always {
        /// After a success, wait this long before the next run; `None`: the backoff's first
        /// delay.
        interval: Option<RestartInterval>,
    },
}

impl RestartPolicy {
    /// Every policy name, `Always` without an interval.
    pub const ALL: &'static [Self] = &[Self::Never, Self::OnFailure, Self::always()];

    /// `Always` without an interval.
    pub const fn always() -> Self {
        Self::Always { interval: None }
    }

    /// `Always` with an interval of `interval_ms` after each success (a periodic task);
    /// [`PolicyError::InvalidInterval`] when [`RestartInterval::new`] refuses it.
    pub fn periodic(interval_ms: u64) -> Result<Self, PolicyError> {
        RestartInterval::new(interval_ms).map(|interval| Self::Always {
            interval: Some(interval),
        })
    }

    /// The name, as the wire writes it: `"never"`, `"onFailure"` or `"always"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::OnFailure => "onFailure",
            Self::Always { .. } => "always",
        }
    }

    /// The interval after a success, for a periodic `Always`.
    pub const fn interval(self) -> Option<RestartInterval> {
        match self {
            Self::Always { interval } => interval,
            Self::Never | Self::OnFailure => None,
        }
    }

    /// The lowercase words of the name, for the lenient `FromStr`.
    const fn words(self) -> &'static [&'static str] {
        match self {
            Self::Never => &["never"],
            Self::OnFailure => &["on", "failure"],
            Self::Always { .. } => &["always"],
        }
    }

    /// The policy whose wire name is exactly `input`.
    fn from_wire(input: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|policy| policy.name() == input)
    }

    /// The policy named `name` (exactly) with `interval_ms`, which only `always` takes.
    fn with_interval(name: &str, interval_ms: Option<u64>) -> Result<Self, PolicyError> {
        let policy = Self::from_wire(name).ok_or_else(|| PolicyError::unknown_restart(name))?;
        match (policy, interval_ms) {
            (_, None) => Ok(policy),
            (Self::Always { .. }, Some(ms)) => Self::periodic(ms),
            (other, Some(_)) => Err(PolicyError::IntervalNotAllowed {
                policy: other.name(),
            }),
        }
    }
}

impl fmt::Display for RestartPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.interval() {
            None => f.pad(self.name()),
            Some(interval) => f.pad(&format!("{}:{}", self.name(), interval.as_ms())),
        }
    }
}

impl FromStr for RestartPolicy {
    type Err = PolicyError;

    /// Parses the name in any case, or its kebab-case or snake_case spelling, then an
    /// optional `:` and interval in milliseconds (for `always` only).
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let (name, interval) = match input.split_once(':') {
            Some((name, interval)) => (name, Some(interval)),
            None => (input, None),
        };
        let policy = Self::ALL
            .iter()
            .copied()
            .find(|policy| spelled_as(name, policy.words()))
            .ok_or_else(|| PolicyError::unknown_restart(input))?;
        match (policy, interval) {
            (_, None) => Ok(policy),
            (Self::Always { .. }, Some(ms)) => {
                let ms = ms
                    .parse::<u64>()
                    .map_err(|_| PolicyError::unknown_restart(input))?;
                Self::periodic(ms)
            }
            (other, Some(_)) => Err(PolicyError::IntervalNotAllowed {
                policy: other.name(),
            }),
        }
    }
}

impl Serialize for RestartPolicy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.interval() {
            None => serializer.serialize_str(self.name()),
            Some(interval) => {
                let mut object = serializer.serialize_struct("RestartPolicy", 2)?;
                object.serialize_field("type", self.name())?;
                object.serialize_field("intervalMs", &interval.as_ms())?;
                object.end()
            }
        }
    }
}

/// Accepts exactly the wire name as a string, or an object of `type` (the wire name) and,
/// for `always`, `intervalMs`.
impl<'de> Deserialize<'de> for RestartPolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PolicyVisitor;

        impl<'de> Visitor<'de> for PolicyVisitor {
            type Value = RestartPolicy;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a restart policy: one of never, onFailure, always, or \
                     {\"type\": \"always\", \"intervalMs\": N}",
                )
            }

            fn visit_str<E: de::Error>(self, input: &str) -> Result<RestartPolicy, E> {
                RestartPolicy::from_wire(input)
                    .ok_or_else(|| E::custom(PolicyError::unknown_restart(input)))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RestartPolicy, A::Error> {
                let mut name: Option<String> = None;
                let mut interval: Option<u64> = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "type" if name.is_none() => name = Some(map.next_value()?),
                        "intervalMs" if interval.is_none() => {
                            interval = map.next_value::<Option<u64>>()?;
                        }
                        "type" | "intervalMs" => {
                            return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            return Err(de::Error::unknown_field(&key, &["type", "intervalMs"]));
                        }
                    }
                }
                let name = name.ok_or_else(|| de::Error::missing_field("type"))?;
                RestartPolicy::with_interval(&name, interval).map_err(de::Error::custom)
            }
        }

        deserializer.deserialize_any(PolicyVisitor)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RestartPolicy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RestartPolicy".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        concat!(module_path!(), "::RestartPolicy").into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A restart policy: never, onFailure or always; always with an \
                interval after each success is the object form.",
            "oneOf": [
                { "type": "string", "enum": ["never", "onFailure", "always"] },
                {
                    "type": "object",
                    "required": ["type"],
                    "properties": { "type": { "enum": ["never", "onFailure", "always"] } },
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "required": ["type", "intervalMs"],
                    "properties": {
                        "type": { "const": "always" },
                        "intervalMs": {
                            "description": "Milliseconds to wait after a success.",
                            "type": "integer",
                            "minimum": 1,
                            "maximum": MAX_RESTART_INTERVAL_MS,
                        },
                    },
                    "additionalProperties": false,
                },
            ],
        })
    }
}

#[cfg(test)]
mod tests;
