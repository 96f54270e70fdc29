//! Bounded input: a list or an object read by serde that stops with an error as soon as it
//! holds one entry more than its limit, and a reader that stops at the first byte past its
//! limit ([`BoundedReader`]), so a hostile document costs at most the limit in memory and
//! time, whatever its length.

use std::{fmt, marker::PhantomData};

mod reader;

pub use self::reader::BoundedReader;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Defines one uninhabited [`Limit`] marker type per bounded field, with the default error,
/// so a crate states each of its bounds in one line.
///
/// ```
/// use model_ids::BoundedVec;
///
/// const MAX_ARGS: usize = 2;
///
/// model_ids::limits! {
///     /// A command's arguments.
///     pub(crate) Args = "args", MAX_ARGS;
/// }
///
/// let err = serde_json::from_str::<BoundedVec<String, Args>>(r#"["a", "b", "c"]"#)
///     .unwrap_err();
/// assert!(err.to_string().starts_with("invalid args: more than 2 entries"));
/// ```
#[macro_export]
macro_rules! limits {
    ($($(#[$meta:meta])* $vis:vis $name:ident = $field:literal, $max:expr;)*) => {$(
        $(#[$meta])*
        $vis enum $name {}

        impl $crate::Limit for $name {
            const FIELD: &'static str = $field;
            const MAX: usize = $max;
        }
    )*};
}

/// The bound of one collection read from the wire: the field it is read from and the most
/// entries it may hold.
///
/// Implement it on an uninhabited marker type (`enum Args {}`), one per bounded field, and
/// read the field as a [`BoundedVec`] or [`BoundedPairs`] of that marker. The crate that owns
/// the rule owns the marker, and its `MAX` is that crate's public `MAX_*` constant.
///
/// ```
/// use model_ids::{BoundedVec, Limit};
///
/// enum Args {}
///
/// impl Limit for Args {
///     const FIELD: &'static str = "args";
///     const MAX: usize = 2;
/// }
///
/// let args: BoundedVec<String, Args> = serde_json::from_str(r#"["-v", "run"]"#)?;
/// assert_eq!(args.into_inner(), ["-v", "run"]);
///
/// let err = serde_json::from_str::<BoundedVec<String, Args>>(r#"["-v", "run", "x"]"#)
///     .unwrap_err();
/// assert!(err.to_string().starts_with("invalid args: more than 2 entries"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub trait Limit {
    /// The field's wire name or path, relative to the value being read, as errors name it
    /// (empty for the value itself).
    const FIELD: &'static str;

    /// The most entries allowed.
    const MAX: usize;

    /// The error for a collection with more than [`MAX`](Self::MAX) entries.
    ///
    /// By default `invalid {FIELD}: more than {MAX} entries`; a crate whose error type has
    /// its own variant for this overrides it (and passes that error to
    /// [`de::Error::custom`]).
    fn too_many<E: de::Error>() -> E {
        E::custom(format_args!(
            "invalid {}: more than {} entries",
            Self::FIELD,
            Self::MAX
        ))
    }
}

/// A list (a JSON array) of at most `L::MAX` elements.
///
/// Reading stops at element `L::MAX + 1`, which is skipped unread and gives
/// [`Limit::too_many`]; nothing after it is looked at. See [`Limit`] for an example.
pub struct BoundedVec<T, L>(Vec<T>, PhantomData<fn() -> L>);

impl<T, L> BoundedVec<T, L> {
    /// The elements, in input order.
    #[must_use]
    pub fn into_inner(self) -> Vec<T> {
        self.0
    }
}

impl<T, L> Default for BoundedVec<T, L> {
    /// No elements, as for a field left out.
    fn default() -> Self {
        Self(Vec::new(), PhantomData)
    }
}

impl<T: fmt::Debug, L> fmt::Debug for BoundedVec<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BoundedVec").field(&self.0).finish()
    }
}

impl<'de, T: Deserialize<'de>, L: Limit> Deserialize<'de> for BoundedVec<T, L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T, L>(PhantomData<fn() -> (T, L)>);

        impl<'de, T: Deserialize<'de>, L: Limit> Visitor<'de> for SeqVisitor<T, L> {
            type Value = BoundedVec<T, L>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {} entries", L::MAX)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() < L::MAX {
                    match seq.next_element()? {
                        Some(item) => items.push(item),
                        None => return Ok(BoundedVec(items, PhantomData)),
                    }
                }
                // At the limit: one more element, read without storing it, is one too many.
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(L::too_many()),
                    None => Ok(BoundedVec(items, PhantomData)),
                }
            }
        }

        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// The entries of a JSON object of strings, in input order and unchecked (a repeated key
/// stays repeated, for the caller's validation to report), at most `L::MAX` of them.
///
/// Reading stops like [`BoundedVec`]'s: at key `L::MAX + 1`, before its value.
///
/// ```
/// use model_ids::{BoundedPairs, Limit};
///
/// enum Labels {}
///
/// impl Limit for Labels {
///     const FIELD: &'static str = "labels";
///     const MAX: usize = 2;
/// }
///
/// let pairs: BoundedPairs<Labels> = serde_json::from_str(r#"{"zone": "eu", "tier": "gpu"}"#)?;
/// assert_eq!(pairs.into_inner(), [("zone".into(), "eu".into()), ("tier".into(), "gpu".into())]);
///
/// let err = serde_json::from_str::<BoundedPairs<Labels>>(r#"{"a": "", "b": "", "c": ""}"#)
///     .unwrap_err();
/// assert!(err.to_string().starts_with("invalid labels: more than 2 entries"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub struct BoundedPairs<L>(Vec<(String, String)>, PhantomData<fn() -> L>);

impl<L> BoundedPairs<L> {
    /// The key-value pairs, in input order.
    #[must_use]
    pub fn into_inner(self) -> Vec<(String, String)> {
        self.0
    }
}

impl<L> Default for BoundedPairs<L> {
    /// No pairs, as for a field left out.
    fn default() -> Self {
        Self(Vec::new(), PhantomData)
    }
}

impl<L> fmt::Debug for BoundedPairs<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BoundedPairs").field(&self.0).finish()
    }
}

impl<'de, L: Limit> Deserialize<'de> for BoundedPairs<L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<L>(PhantomData<fn() -> L>);

        impl<'de, L: Limit> Visitor<'de> for MapVisitor<L> {
            type Value = BoundedPairs<L>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an object of at most {} string entries", L::MAX)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while pairs.len() < L::MAX {
                    match map.next_entry()? {
                        Some(pair) => pairs.push(pair),
                        None => return Ok(BoundedPairs(pairs, PhantomData)),
                    }
                }
                match map.next_key::<IgnoredAny>()? {
                    Some(_) => Err(L::too_many()),
                    None => Ok(BoundedPairs(pairs, PhantomData)),
                }
            }
        }

        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests;
