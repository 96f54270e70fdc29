//! `QueueKey`: a queued task's place in the queue order (`priority DESC, queuedAt ASC, id
//! ASC`), as a value and as bytes whose byte order is the queue order.

use std::cmp::Ordering;
use std::fmt;

use chrono::{DateTime, Utc};
use model_ids::{TASK_ID_MAX_LEN, TaskId};

use crate::error::FleetError;

/// Bytes of a [`QueueKey`]'s encoding before the task id: 4 of priority, 8 of seconds and
/// 4 of nanoseconds.
pub const QUEUE_KEY_PREFIX_LEN: usize = 16;

/// The longest encoded [`QueueKey`]: the prefix and the longest task id.
pub const MAX_QUEUE_KEY_LEN: usize = QUEUE_KEY_PREFIX_LEN + TASK_ID_MAX_LEN;

/// The sign bit of an `i32` read as a `u32`: flipping it puts signed order in unsigned order.
const I32_SIGN: u32 = 1 << 31;

/// The sign bit of an `i64` read as a `u64`.
const I64_SIGN: u64 = 1 << 63;

/// A queued task's place in the queue: `priority DESC, queuedAt ASC, id ASC`. Higher
/// priorities come first; within a priority, the task queued earlier; within the same
/// time, the smaller id (compared as bytes).
///
/// `Ord` is the queue order. [`to_bytes`](Self::to_bytes) encodes the key so that
/// comparing encodings byte by byte (`memcmp`, as key-value stores, SQLite's `BLOB` and
/// PostgreSQL's `bytea` do) gives the same order, for every `i32` priority and every time
/// chrono can hold, leap seconds included; [`from_bytes`](Self::from_bytes) reads it back.
///
/// The encoding, big-endian throughout:
///
/// | bytes | what | how |
/// | --- | --- | --- |
/// | 0 to 3 | priority | `!(priority as u32 ^ 0x8000_0000)`: the sign bit flipped puts the `i32`s in unsigned order, and the complement turns it into descending order |
/// | 4 to 11 | `queuedAt` seconds since the Unix epoch | `seconds as u64 ^ 0x8000_0000_0000_0000` (ascending) |
/// | 12 to 15 | the nanoseconds within the second | `u32`, below 2,000,000,000 (a leap second counts from 1,000,000,000) |
/// | 16 on | the task id | its UTF-8 bytes (1 to 256) |
///
/// The id comes last, so no separator is needed: two keys that differ before it differ
/// in the fixed-width prefix. `docs/queue.md` shows the SQL index and `ORDER BY` of the
/// same order.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use model_fleet::QueueKey;
/// use model_ids::TaskId;
///
/// let t = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
/// let urgent = QueueKey::new(10, t, TaskId::new("b")?);
/// let early = QueueKey::new(0, t, TaskId::new("a")?);
/// let late = QueueKey::new(0, t + chrono::TimeDelta::seconds(1), TaskId::new("a")?);
/// assert!(urgent < early && early < late);
/// assert!(urgent.to_bytes() < early.to_bytes() && early.to_bytes() < late.to_bytes());
/// assert_eq!(QueueKey::from_bytes(&late.to_bytes())?, late);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QueueKey {
    priority: i32,
    queued_at: DateTime<Utc>,
    id: TaskId,
}

impl QueueKey {
    /// The key of task `id` with `priority`, queued at `queued_at`.
    pub const fn new(priority: i32, queued_at: DateTime<Utc>, id: TaskId) -> Self {
        Self {
            priority,
            queued_at,
            id,
        }
    }

    /// The task's priority.
    pub const fn priority(&self) -> i32 {
        self.priority
    }

    /// When the task was queued (or is due again).
    pub const fn queued_at(&self) -> DateTime<Utc> {
        self.queued_at
    }

    /// The task's id.
    pub const fn id(&self) -> &TaskId {
        &self.id
    }

    /// The encoding (see [`QueueKey`]), [`QUEUE_KEY_PREFIX_LEN`] bytes plus the id.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(QUEUE_KEY_PREFIX_LEN + self.id.as_str().len());
        self.write_bytes(&mut out);
        out
    }

    /// Appends the encoding to `out`, for a caller that puts a prefix of its own (a tenant)
    /// in front.
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        let priority = !(self.priority.cast_unsigned() ^ I32_SIGN);
        let seconds = self.queued_at.timestamp().cast_unsigned() ^ I64_SIGN;
        out.extend_from_slice(&priority.to_be_bytes());
        out.extend_from_slice(&seconds.to_be_bytes());
        out.extend_from_slice(&self.queued_at.timestamp_subsec_nanos().to_be_bytes());
        out.extend_from_slice(self.id.as_str().as_bytes());
    }

    /// Reads an encoding back.
    ///
    /// # Errors
    ///
    /// [`FleetError::InvalidQueueKey`] for fewer than [`QUEUE_KEY_PREFIX_LEN`] + 1 bytes,
    /// more than [`MAX_QUEUE_KEY_LEN`], a time chrono cannot hold, or an id that is not a
    /// task id.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FleetError> {
        let invalid = |reason: &'static str| FleetError::InvalidQueueKey {
            len: bytes.len(),
            reason,
        };
        if bytes.len() > MAX_QUEUE_KEY_LEN {
            return Err(invalid("longer than the longest key"));
        }
        let (Some(priority), Some(seconds), Some(nanos), Some(id)) = (
            bytes.get(0..4).and_then(|b| <[u8; 4]>::try_from(b).ok()),
            bytes.get(4..12).and_then(|b| <[u8; 8]>::try_from(b).ok()),
            bytes.get(12..16).and_then(|b| <[u8; 4]>::try_from(b).ok()),
            bytes.get(QUEUE_KEY_PREFIX_LEN..),
        ) else {
            return Err(invalid("shorter than the prefix"));
        };
        let priority = (!u32::from_be_bytes(priority) ^ I32_SIGN).cast_signed();
        let seconds = (u64::from_be_bytes(seconds) ^ I64_SIGN).cast_signed();
        let queued_at = DateTime::from_timestamp(seconds, u32::from_be_bytes(nanos))
            .ok_or_else(|| invalid("the time is out of range"))?;
        let id = std::str::from_utf8(id)
            .ok()
            .and_then(|id| TaskId::new(id).ok())
            .ok_or_else(|| invalid("the id is not a task id"))?;
        Ok(Self::new(priority, queued_at, id))
    }
}

impl Ord for QueueKey {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .priority
            .cmp(&self.priority)
            .then_with(|| self.queued_at.cmp(&other.queued_at))
            .then_with(|| {
                self.id
                    .as_str()
                    .as_bytes()
                    .cmp(other.id.as_str().as_bytes())
            })
    }
}

impl PartialOrd for QueueKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `priority 5, queued 2026-11-22T10:00:00Z, task t-1`.
impl fmt::Display for QueueKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "priority {}, queued {}, task {}",
            self.priority,
            crate::runner::rfc3339(self.queued_at),
            self.id
        )
    }
}
