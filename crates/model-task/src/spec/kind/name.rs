//! `KindName`: the name of a routable task kind, a built-in one or an extension, as runners
//! declare the kinds they run and routing matches a task's kind against them.

use std::{fmt, str::FromStr};

use model_ids::text::shorten;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::TaskKind;
use super::extension::ExtensionKind;
use crate::error::TaskError;

/// The name of a routable task kind: `subprocess`, `container`, `wasm`, or an extension's
/// `(apiVersion, kind)`. [`TaskKind::Embedded`] has none: it runs in process and is never
/// routed.
///
/// On the wire, a built-in kind is its `"type"` tag as a string and an extension is the object
/// `{"apiVersion": ..., "kind": ...}`; as text (`Display`, `FromStr`, the command line), an
/// extension is `apiVersion/kind`, which is never a built-in name because it holds `/`.
///
/// ```
/// use model_task::spec::KindName;
///
/// let resize: KindName = "images.example.com/v1/Resize".parse()?;
/// assert!(matches!(resize, KindName::Extension(_)));
/// assert_eq!("wasm".parse::<KindName>()?, KindName::Wasm);
/// assert!("embedded".parse::<KindName>().is_err());
/// assert_eq!(
///     serde_json::to_string(&[KindName::Subprocess, resize])?,
///     r#"["subprocess",{"apiVersion":"images.example.com/v1","kind":"Resize"}]"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum KindName {
    /// [`TaskKind::Subprocess`].
    Subprocess,
    /// [`TaskKind::Container`].
    Container,
    /// [`TaskKind::Wasm`].
    Wasm,
    /// [`TaskKind::Extension`] of this `(apiVersion, kind)`.
    Extension(ExtensionKind),
}

impl KindName {
    /// The name of `kind`, or `None` for [`TaskKind::Embedded`], which is not routable.
    pub fn of(kind: &TaskKind) -> Option<Self> {
        match kind {
            TaskKind::Subprocess { .. } => Some(Self::Subprocess),
            TaskKind::Container { .. } => Some(Self::Container),
            TaskKind::Wasm { .. } => Some(Self::Wasm),
            TaskKind::Extension { kind, .. } => Some(Self::Extension(kind.clone())),
            TaskKind::Embedded => None,
        }
    }

    /// A built-in kind by its wire name; `None` for any other text.
    pub fn builtin(name: &str) -> Option<Self> {
        match name {
            "subprocess" => Some(Self::Subprocess),
            "container" => Some(Self::Container),
            "wasm" => Some(Self::Wasm),
            _ => None,
        }
    }

    /// The text form: the wire name of a built-in kind, `apiVersion/kind` of an extension.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Subprocess => "subprocess",
            Self::Container => "container",
            Self::Wasm => "wasm",
            Self::Extension(kind) => kind.as_str(),
        }
    }

    /// Whether this is an extension kind.
    pub const fn is_extension(&self) -> bool {
        matches!(self, Self::Extension(_))
    }
}

impl From<ExtensionKind> for KindName {
    fn from(kind: ExtensionKind) -> Self {
        Self::Extension(kind)
    }
}

impl fmt::Display for KindName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A built-in name, or `apiVersion/kind` (text with a `/`).
impl FromStr for KindName {
    type Err = TaskError;

    fn from_str(s: &str) -> Result<Self, TaskError> {
        if let Some(name) = Self::builtin(s) {
            return Ok(name);
        }
        if s.contains('/') {
            return s.parse().map(Self::Extension);
        }
        Err(TaskError::UnknownKind { input: shorten(s) })
    }
}

impl Serialize for KindName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Extension(kind) => kind.serialize(serializer),
            builtin => serializer.serialize_str(builtin.as_str()),
        }
    }
}

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = KindName;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a task kind name or an {\"apiVersion\", \"kind\"} object")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<KindName, E> {
                KindName::builtin(v)
                    .ok_or_else(|| E::custom(TaskError::UnknownKind { input: shorten(v) }))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<KindName, A::Error> {
                ExtensionKind::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(KindName::Extension)
            }
        }
        deserializer.deserialize_any(Name)
    }
}
