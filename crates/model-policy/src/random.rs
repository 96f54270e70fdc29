//! Caller-supplied random numbers: the `RandomSource` trait and the seeded `SeededRandom`.

use model_ids::hash::splitmix64;

/// A source of uniformly distributed 64-bit random numbers, supplied by the caller.
///
/// This crate never draws randomness on its own: every jittered delay takes a source, so a
/// test can pass a fixed sequence and get a fixed answer. Closures `FnMut() -> u64`
/// implement it, and [`SeededRandom`] is a small deterministic generator.
///
/// ```
/// use model_policy::{BackoffPolicy, JitterPolicy};
///
/// let policy = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0)?;
/// // A source that always answers 0 gives the low end of the band, u64::MAX the high end.
/// assert_eq!(policy.delay_ms(3, None, &mut || 0), 0);
/// assert_eq!(policy.delay_ms(3, None, &mut || u64::MAX), 4_000);
/// # Ok::<(), model_policy::PolicyError>(())
/// ```
pub trait RandomSource {
    /// The next random number; every bit should be equally likely to be 0 or 1.
    fn next_u64(&mut self) -> u64;
}

impl<F: FnMut() -> u64> RandomSource for F {
    fn next_u64(&mut self) -> u64 {
        self()
    }
}

/// The increment of the splitmix64 generator's state per draw.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A deterministic pseudo-random generator: SplitMix64 (Steele, Lea and Flood, 2014).
///
/// The state is one `u64`, starting at the seed. Each call adds the odd constant
/// `0x9E37_79B9_7F4A_7C15` to the state (wrapping) and returns the state passed through the
/// mixing function `z = (z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9;
/// z = (z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB; z ^ (z >> 31)` (wrapping multiplications).
/// The same seed always gives the same sequence, on every platform. It is fast and well
/// spread, which is what jitter needs; it is not cryptographically secure.
///
/// ```
/// use model_policy::{RandomSource, SeededRandom};
///
/// let mut rng = SeededRandom::new(0);
/// assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
/// assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeededRandom {
    state: u64,
}

impl SeededRandom {
    /// A generator whose sequence is determined by `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }
}

impl RandomSource for SeededRandom {
    fn next_u64(&mut self) -> u64 {
        // `splitmix64` adds the increment itself, so it mixes the state as it is before the step.
        let next = splitmix64(self.state);
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        next
    }
}

// `&mut SeededRandom` is a source too, so a schedule can borrow a generator the caller keeps.
impl RandomSource for &mut SeededRandom {
    fn next_u64(&mut self) -> u64 {
        (**self).next_u64()
    }
}

/// A number in `low..=high` (inclusive) from one draw of `rng`; `high` below `low` gives `low`.
///
/// Multiply-shift: the 64-bit draw times the span size, as a 128-bit product, keeps the top 64
/// bits. No division, no loop; each result has probability within `span / 2^64` of uniform,
/// which is below 2^-34 for any span this crate uses (at most `3 * MAX_BACKOFF_MS`).
pub(crate) fn uniform_inclusive<R: RandomSource + ?Sized>(rng: &mut R, low: u64, high: u64) -> u64 {
    let span = u128::from(high.saturating_sub(low)) + 1;
    let scaled = (u128::from(rng.next_u64()) * span) >> 64;
    // `scaled < span <= 2^64`, so it fits; the fallback is unreachable.
    low.saturating_add(u64::try_from(scaled).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests;
