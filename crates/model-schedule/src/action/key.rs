//! `ActionKey`: 24 bytes whose byte order is time order, and the range of everything due.

use std::{collections::BTreeMap, fmt};

use chrono::{DateTime, Utc};
use model_ids::{ACTION_ID_LEN, ActionId};

use super::Action;

/// The length of an [`ActionKey`] in bytes: 8 of time, then the 16 of the id.
pub const ACTION_KEY_LEN: usize = 8 + ACTION_ID_LEN;

/// The storage key of an action: its due time in milliseconds since the Unix epoch, then its
/// id, in 24 bytes whose byte order (what a key-value store sorts by) is time order, then id
/// order.
///
/// The milliseconds are an `i64` with its sign bit flipped, written big-endian: that maps
/// `i64::MIN..=i64::MAX` onto `0..=u64::MAX` in order, so a time before 1970 sorts before
/// every later one. (A plain `as u64` cast would make a negative time a huge number and sort
/// it after every later time.) The time is the action's [`ActionTrigger::due_at`]
/// (`nextTickAt` or `receivedAt`), truncated to the millisecond it falls in.
///
/// One range scan up to [`due_upper_bound`] finds everything due; [`due_actions`] does it
/// over a `BTreeMap`, and a store does it over its own ordered keys.
///
/// ```
/// use model_ids::ActionId;
/// use model_schedule::{ActionKey, due_upper_bound};
///
/// let id = ActionId::from_u128(7);
/// let before_1970 = ActionKey::new("1969-12-31T23:59:59Z".parse().unwrap(), id);
/// let after_1970 = ActionKey::new("1970-01-01T00:00:01Z".parse().unwrap(), id);
/// assert!(before_1970 < after_1970);
/// assert!(before_1970.as_bytes() < after_1970.as_bytes());
/// assert!(after_1970 <= due_upper_bound("1970-01-01T00:00:01Z".parse().unwrap()));
/// assert_eq!(after_1970.millis(), 1_000);
/// assert_eq!(after_1970.id(), id);
/// ```
///
/// [`ActionTrigger::due_at`]: crate::ActionTrigger::due_at
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActionKey([u8; ACTION_KEY_LEN]);

/// The sign bit of an `i64`, flipped so that byte order is numeric order.
const SIGN: u64 = 1 << 63;

impl ActionKey {
    /// The key of an action due at `at` with id `id`.
    #[must_use]
    pub fn new(at: DateTime<Utc>, id: ActionId) -> Self {
        Self::from_parts(at.timestamp_millis(), id.as_bytes())
    }

    fn from_parts(millis: i64, id: &[u8; ACTION_ID_LEN]) -> Self {
        let mut key = [0u8; ACTION_KEY_LEN];
        let (time, rest) = key.split_at_mut(8);
        time.copy_from_slice(&(millis.cast_unsigned() ^ SIGN).to_be_bytes());
        rest.copy_from_slice(id);
        Self(key)
    }

    /// A key from its bytes, as a store gives them back; every 24 bytes are a key.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; ACTION_KEY_LEN]) -> Self {
        Self(bytes)
    }

    /// The 24 bytes, for a store's key.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; ACTION_KEY_LEN] {
        &self.0
    }

    /// The time part, in milliseconds since the Unix epoch.
    #[must_use]
    pub fn millis(&self) -> i64 {
        let (time, _) = self.0.split_at(8);
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(time);
        (u64::from_be_bytes(bytes) ^ SIGN).cast_signed()
    }

    /// The time part, if chrono can hold it (keys from [`ActionKey::new`] always can).
    #[must_use]
    pub fn time(&self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp_millis(self.millis())
    }

    /// The id part.
    #[must_use]
    pub fn id(&self) -> ActionId {
        let (_, rest) = self.0.split_at(8);
        let mut id = [0u8; ACTION_ID_LEN];
        id.copy_from_slice(rest);
        ActionId::from_bytes(id)
    }
}

/// The largest key of anything due at `now`: `now`'s millisecond with the largest id, so
/// the inclusive range `..=due_upper_bound(now)` holds every action whose due time is at or
/// before `now` (to the millisecond), and nothing later.
#[must_use]
pub fn due_upper_bound(now: DateTime<Utc>) -> ActionKey {
    ActionKey::from_parts(now.timestamp_millis(), &[0xff; ACTION_ID_LEN])
}

/// The pending actions due at `now` in an ordered index, in key order (due time, then id):
/// one range scan up to [`due_upper_bound`], keeping the pending ones. It touches only the
/// entries in that range, so a store that keeps only unfinished actions in its due index
/// (removing or re-keying an action when it ends) pays for the due ones alone.
///
/// The map must key each action by [`Action::key`]; an entry under another key is returned
/// by where it sits, not by its own due time.
pub fn due_actions(
    index: &BTreeMap<ActionKey, Action>,
    now: DateTime<Utc>,
) -> impl Iterator<Item = &Action> {
    index
        .range(..=due_upper_bound(now))
        .map(|(_, action)| action)
        .filter(|action| action.state() == crate::ActionState::Pending)
}

impl fmt::Debug for ActionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ActionKey({} ms, {})", self.millis(), self.id())
    }
}
