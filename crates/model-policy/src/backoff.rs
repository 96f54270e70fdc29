//! `BackoffPolicy`: validated retry delays and the computation of the delay before a retry.

use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::enums::JitterPolicy;
use crate::error::{BackoffViolation, PolicyError};
use crate::random::{RandomSource, uniform_inclusive};

/// The largest `firstMs` and `maxMs` a [`BackoffPolicy`] accepts: 7 days, in milliseconds.
///
/// A retry that waits longer than a week is a schedule, not a backoff; the cap also keeps every
/// delay (and `3 * previous` for decorrelated jitter) far from any overflow.
pub const MAX_BACKOFF_MS: u64 = 7 * 24 * 60 * 60 * 1000;

const DEFAULT_FIRST_MS: u64 = 1_000;
const DEFAULT_MAX_MS: u64 = 30_000;
const DEFAULT_FACTOR: f64 = 2.0;

/// How long to wait before each retry: exponential growth from `first_ms` by `factor`, capped
/// at `max_ms`, spread by a [`JitterPolicy`].
///
/// Every value is valid: `first_ms > 0`, `first_ms <= max_ms <= MAX_BACKOFF_MS`, `factor`
/// finite and at least 1.0. [`BackoffPolicy::new`] and deserialization both check this.
/// On the wire it is `{"jitter": "full", "firstMs": 1000, "maxMs": 30000, "factor": 2.0}`;
/// absent fields take the defaults (full jitter, 1000 ms, 30000 ms, factor 2.0) and unknown
/// fields are rejected. Equality and hashing compare `factor` by its bits, which for a finite
/// factor of at least 1.0 is the same as comparing numbers.
///
/// A *retry* is an attempt after the first: retry 1 is the second attempt. The delay before
/// retry `n` is [`delay_ms`](Self::delay_ms) from
/// `exp(n) = min(max_ms, first_ms * factor^(n-1))` ([`base_delay_ms`](Self::base_delay_ms)).
///
/// ```
/// use model_policy::{BackoffPolicy, JitterPolicy, PolicyError, SeededRandom};
///
/// let policy = BackoffPolicy::new(JitterPolicy::Equal, 500, 10_000, 3.0)?;
/// assert_eq!(policy.base_delay_ms(1), 500);
/// assert_eq!(policy.base_delay_ms(3), 4_500);
/// assert_eq!(policy.base_delay_ms(4), 10_000);
///
/// let delay = policy.delay_ms(3, None, &mut SeededRandom::new(7));
/// assert!((2_250..=4_500).contains(&delay));
///
/// let err = BackoffPolicy::new(JitterPolicy::None, 0, 1_000, 2.0).unwrap_err();
/// assert!(matches!(err, PolicyError::InvalidBackoff { field: "firstMs", .. }));
/// # Ok::<(), PolicyError>(())
/// ```
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "BackoffPolicyRaw")]
pub struct BackoffPolicy {
    jitter: JitterPolicy,
    first_ms: u64,
    max_ms: u64,
    factor: f64,
}

impl BackoffPolicy {
    /// A policy, if the values are valid.
    ///
    /// # Errors
    ///
    /// [`PolicyError::InvalidBackoff`] naming the first wire field that breaks a rule:
    /// `firstMs` zero or above [`MAX_BACKOFF_MS`], `maxMs` below `firstMs` or above
    /// [`MAX_BACKOFF_MS`], `factor` not finite or below 1.0.
    pub fn new(
        jitter: JitterPolicy,
        first_ms: u64,
        max_ms: u64,
        factor: f64,
    ) -> Result<Self, PolicyError> {
        let invalid = |field, reason| Err(PolicyError::InvalidBackoff { field, reason });
        if first_ms == 0 {
            return invalid("firstMs", BackoffViolation::Zero);
        }
        if first_ms > MAX_BACKOFF_MS {
            return invalid("firstMs", above_cap(first_ms));
        }
        if max_ms < first_ms {
            return invalid("maxMs", BackoffViolation::BelowFirst { max_ms, first_ms });
        }
        if max_ms > MAX_BACKOFF_MS {
            return invalid("maxMs", above_cap(max_ms));
        }
        if !factor.is_finite() {
            return invalid("factor", BackoffViolation::NotFinite { factor });
        }
        if factor < 1.0 {
            return invalid("factor", BackoffViolation::BelowOne { factor });
        }
        Ok(Self {
            jitter,
            first_ms,
            max_ms,
            factor,
        })
    }

    /// The same policy with another jitter (any jitter keeps the policy valid).
    #[must_use]
    pub const fn with_jitter(self, jitter: JitterPolicy) -> Self {
        Self { jitter, ..self }
    }

    /// How randomness spreads the delays.
    #[must_use]
    pub const fn jitter(&self) -> JitterPolicy {
        self.jitter
    }

    /// The delay before retry 1 without jitter, in milliseconds (at least 1).
    #[must_use]
    pub const fn first_ms(&self) -> u64 {
        self.first_ms
    }

    /// The largest delay, in milliseconds (at least `first_ms`, at most [`MAX_BACKOFF_MS`]).
    #[must_use]
    pub const fn max_ms(&self) -> u64 {
        self.max_ms
    }

    /// How much the delay grows from one retry to the next (finite, at least 1.0).
    #[must_use]
    pub const fn factor(&self) -> f64 {
        self.factor
    }

    /// The delay before retry `retry` without jitter: `exp(n) = min(max_ms, first_ms * factor^(n-1))`,
    /// rounded to the nearest millisecond.
    ///
    /// Retry 1 is the second attempt and waits `first_ms`. Retry 0 names no retry; it is treated
    /// as retry 1, so the function is total. The power is computed in `f64` without a loop and
    /// clamped, so any `retry` up to `u32::MAX` gives a value in `[first_ms, max_ms]`, and the
    /// result never decreases as `retry` grows. Powers of factors such as 2.0 are exact; for
    /// other factors the power is the platform's `f64::powf`, whose last bit may differ between
    /// platforms, which can move a result by 1 ms when it lies within rounding of a half.
    ///
    /// ```
    /// use model_policy::BackoffPolicy;
    ///
    /// let policy = BackoffPolicy::default(); // 1000 ms, doubling, capped at 30000 ms
    /// let delays: Vec<u64> = (1..=7).map(|n| policy.base_delay_ms(n)).collect();
    /// assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    /// assert_eq!(policy.base_delay_ms(u32::MAX), 30_000);
    /// ```
    #[must_use]
    pub fn base_delay_ms(&self, retry: u32) -> u64 {
        let exponent = retry.saturating_sub(1);
        if exponent == 0 {
            return self.first_ms;
        }
        // `factor` is finite and >= 1, so the power is finite and >= 1 or +inf, never NaN;
        // `first_ms` is >= 1, so the product is too. Both limits are below 2^53, exact in f64.
        let (first, max) = (self.first_ms as f64, self.max_ms as f64);
        let exact = first * self.factor.powf(f64::from(exponent));
        if exact >= max {
            return self.max_ms;
        }
        // In [first_ms, max_ms) here, so the cast is exact (and `as` saturates anyway).
        let rounded = exact.round() as u64;
        rounded.clamp(self.first_ms, self.max_ms)
    }

    /// The delay before retry `retry`, in milliseconds, with this policy's jitter.
    ///
    /// `previous_ms` is the delay returned for the previous retry (`None` before the first).
    /// Only [`JitterPolicy::Decorrelated`] uses it, and the caller must keep it between calls:
    /// the policy holds no state. It is clamped into `[first_ms, max_ms]` before use.
    /// With `exp(n)` = [`base_delay_ms`](Self::base_delay_ms):
    ///
    /// - `None`: `exp(n)`; draws nothing from `rng`.
    /// - `Full`: uniform in `[0, exp(n)]`.
    /// - `Equal`: `exp(n)/2` (rounded down) plus uniform in `[0, exp(n) - exp(n)/2]`,
    ///   so the delay is in `[exp(n)/2, exp(n)]`.
    /// - `Decorrelated`: `min(max_ms, uniform in [first_ms, 3 * previous])`, in
    ///   `[first_ms, max_ms]`; `retry` is not used.
    ///
    /// The jittered kinds draw exactly one number from `rng`. The result never exceeds `max_ms`,
    /// and the same inputs and source always give the same result.
    ///
    /// ```
    /// use model_policy::{BackoffPolicy, JitterPolicy, SeededRandom};
    ///
    /// let policy = BackoffPolicy::new(JitterPolicy::Decorrelated, 100, 5_000, 2.0)?;
    /// let mut rng = SeededRandom::new(42);
    /// let mut previous = None;
    /// for retry in 1..=10 {
    ///     let delay = policy.delay_ms(retry, previous, &mut rng);
    ///     assert!((100..=5_000).contains(&delay));
    ///     previous = Some(delay); // Decorrelated needs the last delay: keep it
    /// }
    /// # Ok::<(), model_policy::PolicyError>(())
    /// ```
    #[must_use]
    pub fn delay_ms<R: RandomSource + ?Sized>(
        &self,
        retry: u32,
        previous_ms: Option<u64>,
        rng: &mut R,
    ) -> u64 {
        match self.jitter {
            JitterPolicy::None => self.base_delay_ms(retry),
            JitterPolicy::Full => uniform_inclusive(rng, 0, self.base_delay_ms(retry)),
            JitterPolicy::Equal => {
                let exp = self.base_delay_ms(retry);
                let half = exp / 2;
                half + uniform_inclusive(rng, 0, exp - half)
            }
            JitterPolicy::Decorrelated => {
                let previous = previous_ms
                    .unwrap_or(self.first_ms)
                    .clamp(self.first_ms, self.max_ms);
                let high = previous.saturating_mul(3);
                uniform_inclusive(rng, self.first_ms, high).min(self.max_ms)
            }
        }
    }
}

impl Default for BackoffPolicy {
    /// Full jitter, 1000 ms first, 30000 ms max, factor 2.0.
    fn default() -> Self {
        Self {
            jitter: JitterPolicy::Full,
            first_ms: DEFAULT_FIRST_MS,
            max_ms: DEFAULT_MAX_MS,
            factor: DEFAULT_FACTOR,
        }
    }
}

impl PartialEq for BackoffPolicy {
    fn eq(&self, other: &Self) -> bool {
        self.jitter == other.jitter
            && self.first_ms == other.first_ms
            && self.max_ms == other.max_ms
            && self.factor.to_bits() == other.factor.to_bits()
    }
}

impl Eq for BackoffPolicy {}

impl Hash for BackoffPolicy {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.jitter.hash(state);
        self.first_ms.hash(state);
        self.max_ms.hash(state);
        self.factor.to_bits().hash(state);
    }
}

/// The wire form of a [`BackoffPolicy`] before validation; absent fields, and fields that
/// hold `null`, take the defaults.
///
/// Deserialized by hand from a map only: serde's derive would also take a sequence (`[]` or
/// `["full", 1000]`), which is not the wire form. Unknown and repeated fields are errors.
struct BackoffPolicyRaw {
    jitter: JitterPolicy,
    first_ms: u64,
    max_ms: u64,
    factor: f64,
}

/// The wire field names of a backoff object.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum BackoffField {
    Jitter,
    FirstMs,
    MaxMs,
    Factor,
}

impl<'de> Deserialize<'de> for BackoffPolicyRaw {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;

        impl<'de> serde::de::Visitor<'de> for RawVisitor {
            type Value = BackoffPolicyRaw;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a backoff policy object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<BackoffPolicyRaw, A::Error> {
                // The outer `Option` says the field was seen (a second time is an error);
                // the inner one is its value, `None` for `null`, which reads as absent.
                fn once<T, E: serde::de::Error>(
                    slot: &mut Option<Option<T>>,
                    value: Option<T>,
                    name: &'static str,
                ) -> Result<(), E> {
                    match slot.replace(value) {
                        Some(_) => Err(E::duplicate_field(name)),
                        None => Ok(()),
                    }
                }
                let (mut jitter, mut first_ms, mut max_ms, mut factor) = (None, None, None, None);
                while let Some(field) = map.next_key()? {
                    match field {
                        BackoffField::Jitter => once(&mut jitter, map.next_value()?, "jitter")?,
                        BackoffField::FirstMs => {
                            once(&mut first_ms, map.next_value()?, "firstMs")?;
                        }
                        BackoffField::MaxMs => once(&mut max_ms, map.next_value()?, "maxMs")?,
                        BackoffField::Factor => once(&mut factor, map.next_value()?, "factor")?,
                    }
                }
                Ok(BackoffPolicyRaw {
                    jitter: jitter.flatten().unwrap_or_default(),
                    first_ms: first_ms.flatten().unwrap_or(DEFAULT_FIRST_MS),
                    max_ms: max_ms.flatten().unwrap_or(DEFAULT_MAX_MS),
                    factor: factor.flatten().unwrap_or(DEFAULT_FACTOR),
                })
            }
        }

        deserializer.deserialize_map(RawVisitor)
    }
}

impl TryFrom<BackoffPolicyRaw> for BackoffPolicy {
    type Error = PolicyError;

    fn try_from(raw: BackoffPolicyRaw) -> Result<Self, Self::Error> {
        Self::new(raw.jitter, raw.first_ms, raw.max_ms, raw.factor)
    }
}

const fn above_cap(value: u64) -> BackoffViolation {
    BackoffViolation::AboveCap {
        value,
        cap: MAX_BACKOFF_MS,
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for BackoffPolicy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BackoffPolicy".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        concat!(module_path!(), "::BackoffPolicy").into()
    }

    /// An object with the four optional fields and their bounds. `maxMs >= firstMs` relates two
    /// fields, which JSON Schema cannot say; deserialization checks it.
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let jitter = generator.subschema_for::<JitterPolicy>();
        schemars::json_schema!({
            "description": "How long to wait before each retry: exponential growth from firstMs \
                by factor, capped at maxMs (which must be at least firstMs), spread by jitter.",
            "type": "object",
            "properties": {
                "jitter": jitter,
                "firstMs": {
                    "description": "The delay before retry 1 without jitter, in milliseconds.",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_BACKOFF_MS,
                    "default": DEFAULT_FIRST_MS,
                },
                "maxMs": {
                    "description": "The largest delay, in milliseconds; at least firstMs.",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_BACKOFF_MS,
                    "default": DEFAULT_MAX_MS,
                },
                "factor": {
                    "description": "How much the delay grows from one retry to the next.",
                    "type": "number",
                    "minimum": 1.0,
                    "default": DEFAULT_FACTOR,
                },
            },
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests;
