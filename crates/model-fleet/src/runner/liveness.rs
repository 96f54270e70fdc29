//! Liveness: whether a runner was seen recently enough ([`Liveness`]), derived from
//! `lastSeenAt`, a TTL ([`LivenessTtl`]) and `now`, never stored.

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};

use crate::error::FleetError;

/// The liveness TTL a control plane uses when it does not choose one: 60 seconds, so a
/// runner that heartbeats every 20 seconds stays alive through two lost heartbeats.
pub const DEFAULT_LIVENESS_TTL_MS: u64 = 60_000;

/// The longest liveness TTL: 7 days.
pub const MAX_LIVENESS_TTL_MS: u64 = 7 * 24 * 60 * 60 * 1_000;

/// How long after it was last seen a runner stays alive: 1 ms to [`MAX_LIVENESS_TTL_MS`].
///
/// ```
/// use model_fleet::{DEFAULT_LIVENESS_TTL_MS, LivenessTtl};
///
/// assert_eq!(LivenessTtl::default().as_ms(), DEFAULT_LIVENESS_TTL_MS);
/// assert!(LivenessTtl::from_ms(0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LivenessTtl(u64);

impl LivenessTtl {
    /// A TTL of `ms` milliseconds.
    ///
    /// # Errors
    ///
    /// [`FleetError::TtlOutOfRange`] for 0 or more than [`MAX_LIVENESS_TTL_MS`].
    pub const fn from_ms(ms: u64) -> Result<Self, FleetError> {
        if ms == 0 || ms > MAX_LIVENESS_TTL_MS {
            return Err(FleetError::TtlOutOfRange { input: ms });
        }
        Ok(Self(ms))
    }

    /// The TTL in milliseconds.
    pub const fn as_ms(self) -> u64 {
        self.0
    }
}

impl Default for LivenessTtl {
    /// [`DEFAULT_LIVENESS_TTL_MS`].
    fn default() -> Self {
        Self(DEFAULT_LIVENESS_TTL_MS)
    }
}

/// Whether a runner was seen recently enough to be given work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Liveness {
    /// Seen within the TTL.
    Alive,
    /// Not seen within the TTL, or never seen.
    Stale,
}

impl Liveness {
    /// The liveness at `now` of a runner last seen at `last_seen_at`: alive while `now` is
    /// before `last_seen_at + ttl`, as a lease is live before it expires; stale from then on
    /// and when it was never seen. A `last_seen_at` after `now` (a clock ahead) is alive,
    /// and so is one whose expiry is past the last time chrono can hold.
    ///
    /// ```
    /// use chrono::{TimeDelta, TimeZone, Utc};
    /// use model_fleet::{Liveness, LivenessTtl};
    ///
    /// let seen = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
    /// let ttl = LivenessTtl::from_ms(1_000)?;
    /// let at = |ms| seen + TimeDelta::milliseconds(ms);
    /// assert_eq!(Liveness::of(Some(seen), at(999), ttl), Liveness::Alive);
    /// assert_eq!(Liveness::of(Some(seen), at(1_000), ttl), Liveness::Stale);
    /// assert_eq!(Liveness::of(None, seen, ttl), Liveness::Stale);
    /// # Ok::<(), model_fleet::FleetError>(())
    /// ```
    pub fn of(
        last_seen_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
        ttl: LivenessTtl,
    ) -> Liveness {
        let Some(seen) = last_seen_at else {
            return Liveness::Stale;
        };
        let expiry = i64::try_from(ttl.0)
            .ok()
            .and_then(TimeDelta::try_milliseconds)
            .and_then(|ttl| seen.checked_add_signed(ttl));
        match expiry {
            Some(expiry) if now >= expiry => Liveness::Stale,
            _ => Liveness::Alive,
        }
    }
}

/// `at` in RFC 3339 as the wire writes it.
pub(crate) fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}
