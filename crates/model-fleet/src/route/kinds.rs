//! `KindSet`: the routable task kinds a runner runs, as a bit set with its wire form.

use std::{fmt, ops::BitOr, str::FromStr};

use model_ids::text::shorten;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use model_task::TaskKind;

use crate::error::FleetError;

/// The routable task kinds, by wire name, in bit order.
const KIND_NAMES: [&str; 3] = ["subprocess", "container", "wasm"];

/// A set of routable task kinds: the kinds a runner can run.
///
/// Written on the wire as an array of kind names (`["subprocess", "container"]`), the
/// `"type"` tags of [`TaskKind`]. `embedded` is not among them: an embedded task runs in
/// process and is never routed.
///
/// ```
/// use model_fleet::KindSet;
///
/// let kinds: KindSet = "subprocess,container".parse()?;
/// assert!(kinds.contains(KindSet::CONTAINER));
/// assert!(!kinds.contains(KindSet::WASM));
/// assert_eq!(kinds.to_string(), "subprocess,container");
/// assert!("embedded".parse::<KindSet>().is_err());
/// # Ok::<(), model_fleet::FleetError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct KindSet(u8);

impl KindSet {
    /// No kind.
    pub const EMPTY: Self = Self(0);
    /// [`TaskKind::Subprocess`].
    pub const SUBPROCESS: Self = Self(1);
    /// [`TaskKind::Container`].
    pub const CONTAINER: Self = Self(1 << 1);
    /// [`TaskKind::Wasm`].
    pub const WASM: Self = Self(1 << 2);
    /// Every routable kind.
    pub const ALL: Self = Self(0b111);

    /// The one-kind set of `kind`, or `None` for [`TaskKind::Embedded`], which is not
    /// routable, and for a kind model-task adds before this set names it.
    pub fn of(kind: &TaskKind) -> Option<Self> {
        match kind {
            TaskKind::Subprocess { .. } => Some(Self::SUBPROCESS),
            TaskKind::Container { .. } => Some(Self::CONTAINER),
            TaskKind::Wasm { .. } => Some(Self::WASM),
            // `TaskKind` is non-exhaustive across crates: embedded, and any later kind.
            _ => None,
        }
    }

    /// The set of one kind given by its wire name.
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownKind`] for any other name, `embedded` included.
    pub fn from_name(name: &str) -> Result<Self, FleetError> {
        KIND_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self(1 << i))
            .ok_or_else(|| FleetError::UnknownKind {
                input: shorten(name),
            })
    }

    /// Whether every kind of `other` is in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The wire names of the kinds in the set, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        KIND_NAMES
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, name)| name)
    }
}

impl BitOr for KindSet {
    type Output = Self;

    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl fmt::Debug for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// The names joined by `,` (the empty set prints nothing).
impl fmt::Display for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// Kind names separated by commas (spaces allowed); the empty string is the empty set.
impl FromStr for KindSet {
    type Err = FleetError;

    fn from_str(s: &str) -> Result<Self, FleetError> {
        s.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .try_fold(Self::EMPTY, |set, name| Ok(set | Self::from_name(name)?))
    }
}

impl Serialize for KindSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.names())
    }
}

impl<'de> Deserialize<'de> for KindSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> de::Visitor<'de> for Names {
            type Value = KindSet;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of task kind names")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<KindSet, A::Error> {
                // Each name is checked as it arrives, so a long array costs no memory.
                let mut set = KindSet::EMPTY;
                while let Some(name) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
                    set = set | KindSet::from_name(&name).map_err(de::Error::custom)?;
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(Names)
    }
}
