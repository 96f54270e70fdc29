//! Restart, backoff and admission policies, and the retry delay computation.
//!
//! Layer 1. Depends on: model-ids.
//!
//! Architecture invariant: no I/O, no clock, no hidden randomness; random numbers come from the caller.
//!
//! # The policies
//!
//! - [`RestartPolicy`]: whether an attempt that ended is followed by another; `always` may
//!   wait a [`RestartInterval`] after each success (a periodic task).
//! - [`BackoffPolicy`]: how long to wait before that next attempt, spread by a [`JitterPolicy`].
//! - [`AdmissionPolicy`]: what a new task does when its slot already has an active one.
//!
//! The three enums are camelCase strings on the wire (`"onFailure"`, `"dropIfRunning"`), and
//! deserialization accepts exactly that (a periodic restart policy is an object,
//! `{"type": "always", "intervalMs": 60000}`). [`FromStr`](std::str::FromStr), for command
//! lines and configuration, also accepts any case and the kebab and snake spellings
//! (`"on-failure"`, `"ON_FAILURE"`); [`Display`](std::fmt::Display) prints the wire form (and
//! `always:60000` for an interval). An unknown string is a [`PolicyError`] that names the
//! policy and lists what is accepted.
//!
//! # Delays before retries
//!
//! A *retry* is an attempt after the first: retry 1 is the second attempt, and after `k`
//! attempts have ended the next one is retry `k`. The delay before retry `n` is
//! [`BackoffPolicy::delay_ms`], which takes the random numbers from a caller-supplied
//! [`RandomSource`] (any `FnMut() -> u64`, or the deterministic [`SeededRandom`]).
//!
//! Decorrelated jitter grows from the *previous delay*, not from the retry number, and the
//! policy keeps no state: the caller keeps the delay it used last and passes it back
//! (`None` before the first retry). [`BackoffPolicy::schedule`] does that bookkeeping for a
//! whole sequence.
//!
//! ```
//! use model_policy::{BackoffPolicy, JitterPolicy, SeededRandom};
//!
//! let policy: BackoffPolicy = serde_json::from_str(
//!     r#"{"jitter": "decorrelated", "firstMs": 1000, "maxMs": 30000, "factor": 2.0}"#,
//! )?;
//! let mut rng = SeededRandom::new(2024); // in production, seed from real entropy
//!
//! // Attempt 1 failed, so the next attempt is retry 1; nothing was waited before it.
//! let first = policy.delay_ms(1, None, &mut rng);
//! assert!((1_000..=3_000).contains(&first));
//!
//! // Attempt 2 failed too: retry 2, passing back the delay used for retry 1.
//! let second = policy.delay_ms(2, Some(first), &mut rng);
//! assert!(second >= 1_000 && second <= 30_000 && second <= 3 * first);
//!
//! // Without jitter, the delay is the capped exponential: 1 s, 2 s, 4 s, ... 30 s.
//! let plain = policy.with_jitter(JitterPolicy::None);
//! assert_eq!(plain.delay_ms(3, None, &mut rng), 4_000);
//! assert_eq!(plain.delay_ms(40, None, &mut rng), 30_000);
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! With the `schema` feature, the four policy types implement `schemars::JsonSchema`.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.

mod backoff;
mod enums;
mod error;
mod random;
mod restart;
mod schedule;

pub use crate::{
    backoff::{BackoffPolicy, MAX_BACKOFF_MS},
    enums::{AdmissionPolicy, JitterPolicy},
    error::{BackoffViolation, PolicyError},
    random::{RandomSource, SeededRandom},
    restart::{MAX_RESTART_INTERVAL_MS, RestartInterval, RestartPolicy},
    schedule::BackoffSchedule,
};
