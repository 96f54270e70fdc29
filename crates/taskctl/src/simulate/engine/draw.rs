//! What an attempt draws: its outcome at its job's rates, and its run time.

use taskmodel::task::AttemptOutcome;
use taskmodel::{RandomSource, SeededRandom};

use super::super::clock::Millis;

/// The shares of attempts that fail and that time out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rates {
    pub(crate) fail: f64,
    pub(crate) timeout: f64,
}

/// An attempt's outcome and run time at `rates`: a timeout runs `timeout_ms`; any other
/// attempt draws its run time from half to one and a half times `mean_ms` (and times out
/// if that reaches `timeout_ms`), and fails at the fail rate. Two draws of `rng` each time.
pub(super) fn draw(
    rng: &mut SeededRandom,
    mean_ms: Millis,
    rates: Rates,
    timeout_ms: Millis,
) -> (AttemptOutcome, Millis) {
    let roll = unit(rng.next_u64());
    let spread = rng.next_u64() % mean_ms.saturating_add(1);
    let run_ms = (mean_ms / 2).saturating_add(spread).max(1);
    if roll < rates.timeout || run_ms >= timeout_ms {
        (AttemptOutcome::Timeout, timeout_ms.max(1))
    } else if roll < rates.timeout + rates.fail {
        (AttemptOutcome::Failed, run_ms)
    } else {
        (AttemptOutcome::Succeeded, run_ms)
    }
}

/// A draw as a number in `[0, 1)`: its top 53 bits over 2^53.
fn unit(draw: u64) -> f64 {
    (draw >> 11) as f64 / (1_u64 << 53) as f64
}
