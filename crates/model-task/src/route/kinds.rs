//! `KindSet`: the routable task kinds a runner runs, built-in and extension kinds, with its
//! wire form and the probe routing tests runners with.

use std::{fmt, str::FromStr, sync::Arc};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::error::{InvalidReason, TaskError};
use crate::spec::{ExtensionKind, KindName, TaskKind};

/// Most extension kinds one [`KindSet`] may hold (built-in kinds are not counted).
pub const MAX_KIND_SET_EXTENSIONS: usize = 256;

/// Bits of a [`KindSet`]'s mask that hold the built-in kinds, one each, in wire order.
const BUILTIN_BITS: u32 = 3;

/// The mask of every built-in kind.
const BUILTIN_MASK: u64 = (1 << BUILTIN_BITS) - 1;

/// The bit that stands for extensions whose hash is `hash`: one of the 61 bits above the
/// built-in ones.
const fn extension_bit(hash: u64) -> u64 {
    1 << (BUILTIN_BITS as u64 + hash % (64 - BUILTIN_BITS as u64))
}

/// The bit of a built-in kind, or 0 for an extension.
const fn builtin_bit(name: &KindName) -> u64 {
    match name {
        KindName::Subprocess => 1,
        KindName::Container => 1 << 1,
        KindName::Wasm => 1 << 2,
        KindName::Extension(_) => 0,
    }
}

/// One extension kind of a set, with its hash next to it so a lookup reads no kind's text
/// until the hashes agree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Entry {
    hash: u64,
    kind: ExtensionKind,
}

/// A set of routable task kinds: the kinds a runner can run, built-in kinds
/// (`subprocess`, `container`, `wasm`) and extension kinds (`apiVersion` and `kind`,
/// [`ExtensionKind`]). `embedded` is never among them: an embedded task runs in process.
///
/// Written on the wire as an array of [`KindName`]s, built-in kinds as their `"type"` tag and
/// extensions as `{"apiVersion", "kind"}` objects (`["subprocess", {"apiVersion":
/// "images.example.com/v1", "kind": "Resize"}]`), and as text as the names joined by commas
/// (`subprocess,images.example.com/v1/Resize`). Both list the built-in kinds first, then the
/// extensions by `apiVersion` and `kind`. At most [`MAX_KIND_SET_EXTENSIONS`] extension
/// kinds; repeats are ignored.
///
/// Testing a kind is fast whatever the set holds: one word holds a bit per built-in kind and
/// a 61-bit filter of the extensions' hashes, so a runner without the kind is nearly always
/// turned down by one bit test; only when the bit is set are the extensions' hashes searched
/// (binary search) and the text of an equal hash compared. Cloning shares the extensions.
///
/// ```
/// use model_task::KindSet;
/// use model_task::spec::KindName;
///
/// let kinds: KindSet = "subprocess,images.example.com/v1/Resize".parse()?;
/// assert!(kinds.contains_kind(&KindName::Subprocess));
/// assert!(kinds.contains_kind(&"images.example.com/v1/Resize".parse()?));
/// assert!(!kinds.contains_kind(&"images.example.com/v2/Resize".parse()?));
/// assert!(!kinds.contains(&KindSet::WASM));
/// assert_eq!(kinds.to_string(), "subprocess,images.example.com/v1/Resize");
/// assert!("embedded".parse::<KindSet>().is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct KindSet {
    /// Bits 0 to 2: the built-in kinds; bits 3 to 63: for each extension, the bit of its hash.
    mask: u64,
    /// The extensions, sorted by hash, then by name; `None` when there are none.
    extensions: Option<Arc<[Entry]>>,
}

impl KindSet {
    /// No kind.
    pub const EMPTY: Self = Self::builtins(0);
    /// [`TaskKind::Subprocess`].
    pub const SUBPROCESS: Self = Self::builtins(1);
    /// [`TaskKind::Container`].
    pub const CONTAINER: Self = Self::builtins(1 << 1);
    /// [`TaskKind::Wasm`].
    pub const WASM: Self = Self::builtins(1 << 2);
    /// Every built-in routable kind (no extension).
    pub const ALL: Self = Self::builtins(BUILTIN_MASK);

    const fn builtins(mask: u64) -> Self {
        Self {
            mask,
            extensions: None,
        }
    }

    /// The one-kind set of `kind`, or `None` for [`TaskKind::Embedded`], which is not routable.
    pub fn of(kind: &TaskKind) -> Option<Self> {
        KindName::of(kind).map(Self::one)
    }

    /// The set of one kind.
    pub fn one(name: KindName) -> Self {
        match name {
            KindName::Extension(kind) => {
                let hash = kind.hash64();
                Self {
                    mask: extension_bit(hash),
                    extensions: Some(Arc::new([Entry { hash, kind }])),
                }
            }
            builtin => Self::builtins(builtin_bit(&builtin)),
        }
    }

    /// The set of the kinds `names` (repeats ignored).
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] when they hold more than [`MAX_KIND_SET_EXTENSIONS`] distinct
    /// extension kinds.
    pub fn from_names(names: impl IntoIterator<Item = KindName>) -> Result<Self, TaskError> {
        let mut builder = Builder::default();
        for name in names {
            builder.insert(name)?;
        }
        Ok(builder.build())
    }

    /// The set of one kind given by its text: a built-in name or `apiVersion/kind`.
    ///
    /// # Errors
    ///
    /// [`TaskError::UnknownKind`] for text that is neither (`embedded` included), or the
    /// extension's error for a malformed `apiVersion/kind`.
    pub fn from_name(name: &str) -> Result<Self, TaskError> {
        name.parse().map(Self::one)
    }

    /// The kinds of both sets.
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] when the union holds more than [`MAX_KIND_SET_EXTENSIONS`]
    /// extension kinds.
    pub fn union(&self, other: &Self) -> Result<Self, TaskError> {
        if other.extensions.is_none() {
            return Ok(Self {
                mask: self.mask | other.mask,
                extensions: self.extensions.clone(),
            });
        }
        Self::from_names(self.iter().chain(other.iter()))
    }

    /// Whether every kind of `other` is in `self`.
    pub fn contains(&self, other: &Self) -> bool {
        let builtins = other.mask & BUILTIN_MASK;
        self.mask & builtins == builtins
            && other
                .entries()
                .iter()
                .all(|entry| self.has_extension(entry.hash, &entry.kind))
    }

    /// Whether the set holds the kind `name`.
    pub fn contains_kind(&self, name: &KindName) -> bool {
        KindProbe::new(name).matches(self)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }

    /// How many kinds the set holds.
    pub fn len(&self) -> usize {
        (self.mask & BUILTIN_MASK).count_ones() as usize + self.entries().len()
    }

    /// The kinds in the set: the built-in ones in wire order, then the extensions by
    /// `apiVersion` and `kind`.
    pub fn iter(&self) -> impl Iterator<Item = KindName> + '_ {
        let builtins = [KindName::Subprocess, KindName::Container, KindName::Wasm]
            .into_iter()
            .filter(|name| self.mask & builtin_bit(name) != 0);
        let mut extensions: Vec<&ExtensionKind> =
            self.entries().iter().map(|entry| &entry.kind).collect();
        extensions.sort();
        builtins.chain(
            extensions
                .into_iter()
                .map(|kind| KindName::Extension(kind.clone())),
        )
    }

    fn entries(&self) -> &[Entry] {
        self.extensions.as_deref().unwrap_or_default()
    }

    /// Whether the extension `kind`, whose hash is `hash`, is in the set.
    fn has_extension(&self, hash: u64, kind: &ExtensionKind) -> bool {
        let entries = self.entries();
        let first = entries.partition_point(|entry| entry.hash < hash);
        entries
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|entry| entry.hash == hash)
            .any(|entry| entry.kind == *kind)
    }
}

/// A kind to test sets for, prepared once: its bit in a set's mask and, for an extension,
/// its hash and name. Routing tests every eligible runner with one probe.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindProbe<'a> {
    bit: u64,
    extension: Option<(u64, &'a ExtensionKind)>,
}

impl<'a> KindProbe<'a> {
    pub(crate) fn new(name: &'a KindName) -> Self {
        match name {
            KindName::Extension(kind) => {
                let hash = kind.hash64();
                Self {
                    bit: extension_bit(hash),
                    extension: Some((hash, kind)),
                }
            }
            builtin => Self {
                bit: builtin_bit(builtin),
                extension: None,
            },
        }
    }

    /// Whether `set` holds the kind.
    #[inline]
    pub(crate) fn matches(&self, set: &KindSet) -> bool {
        set.mask & self.bit != 0
            && self
                .extension
                .is_none_or(|(hash, kind)| set.has_extension(hash, kind))
    }
}

/// Collects kinds into a set, ignoring repeats, refusing one extension past the bound.
#[derive(Default)]
struct Builder {
    mask: u64,
    /// Sorted by hash, then by name; no repeats.
    entries: Vec<Entry>,
}

impl Builder {
    fn insert(&mut self, name: KindName) -> Result<(), TaskError> {
        let KindName::Extension(kind) = name else {
            self.mask |= builtin_bit(&name);
            return Ok(());
        };
        let entry = Entry {
            hash: kind.hash64(),
            kind,
        };
        let at = self.entries.binary_search_by(|e| {
            e.hash
                .cmp(&entry.hash)
                .then_with(|| e.kind.cmp(&entry.kind))
        });
        let Err(at) = at else {
            return Ok(());
        };
        if self.entries.len() >= MAX_KIND_SET_EXTENSIONS {
            return Err(TaskError::invalid(
                "kinds",
                InvalidReason::TooMany {
                    len: self.entries.len() + 1,
                    max: MAX_KIND_SET_EXTENSIONS,
                },
            ));
        }
        self.mask |= extension_bit(entry.hash);
        self.entries.insert(at, entry);
        Ok(())
    }

    fn build(self) -> KindSet {
        KindSet {
            mask: self.mask,
            extensions: (!self.entries.is_empty()).then(|| self.entries.into()),
        }
    }
}

impl fmt::Debug for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|name| name.to_string()))
            .finish()
    }
}

/// The names joined by `,` (the empty set prints nothing).
impl fmt::Display for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(name.as_str())?;
        }
        Ok(())
    }
}

/// Kind names separated by commas (spaces allowed); the empty string is the empty set.
impl FromStr for KindSet {
    type Err = TaskError;

    fn from_str(s: &str) -> Result<Self, TaskError> {
        let mut builder = Builder::default();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            builder.insert(name.parse()?)?;
        }
        Ok(builder.build())
    }
}

impl Serialize for KindSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
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
                // Each name is checked as it arrives and repeats are dropped, so a long
                // array costs no more memory than its distinct kinds, at most the bound.
                let mut builder = Builder::default();
                while let Some(name) = seq.next_element::<KindName>()? {
                    builder.insert(name).map_err(de::Error::custom)?;
                }
                Ok(builder.build())
            }
        }
        deserializer.deserialize_seq(Names)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for KindSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KindSet".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "model_task::KindSet".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let name = generator.subschema_for::<KindName>();
        schemars::json_schema!({
            "description": format!(
                "The kinds a runner runs: built-in kinds and at most \
                 {MAX_KIND_SET_EXTENSIONS} extension kinds (repeats are ignored)."
            ),
            "type": "array",
            "items": name,
        })
    }
}

#[cfg(test)]
mod tests;
