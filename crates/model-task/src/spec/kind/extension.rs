//! Extension workloads: [`ExtensionKind`], the `(apiVersion, kind)` pair that names a kind a
//! runner implements itself, and [`ExtensionSpec`], its bounded JSON spec, read with its
//! bounds enforced while reading.

use std::{cmp::Ordering, fmt, hash::Hash, str::FromStr, sync::Arc};

use model_ids::hash::{fnv1a64, splitmix64};
use model_ids::text::quote;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::error::{InvalidReason, TaskError};

/// Longest `apiVersion` of an extension kind, in bytes: a DNS subdomain group (253), `/`,
/// and a version label (63).
pub const MAX_API_VERSION_BYTES: usize = 253 + 1 + 63;

/// Longest `kind` of an extension kind, in bytes (a DNS label's length, as Kubernetes).
pub const MAX_EXTENSION_KIND_BYTES: usize = 63;

/// Deepest nesting of an extension spec: the spec object is depth 1, a value inside it 2,
/// and so on. Checked before a nested array or object is read.
pub const MAX_EXTENSION_SPEC_DEPTH: usize = 32;

/// Most JSON values (objects, arrays, strings, numbers, booleans and nulls, the spec object
/// included) in one extension spec.
pub const MAX_EXTENSION_SPEC_VALUES: usize = 16_384;

/// Most bytes of text (object keys and string values together) in one extension spec.
pub const MAX_EXTENSION_SPEC_BYTES: usize = 1024 * 1024;

/// What an `apiVersion` must look like, for error messages.
const API_VERSION_EXPECTED: &str = "group/version: a lowercase DNS subdomain holding a dot, \
     then a lowercase DNS label starting with a letter (images.example.com/v1)";

/// What a `kind` must look like, for error messages.
const KIND_EXPECTED: &str = "an ASCII letter, then letters, digits or inner '-' (Resize)";

/// The name of an extension workload: an `apiVersion` (`group/version`) and a `kind`, as
/// Kubernetes names a custom resource. A runner that implements the workload declares the
/// name in its [`KindSet`](crate::KindSet), and routing matches it exactly.
///
/// Rules (those of a Kubernetes custom resource definition): `apiVersion` is
/// `group/version`, where the group is a lowercase DNS subdomain (at most 253 bytes) with at
/// least one dot and the version a lowercase DNS label starting with a letter (at most 63
/// bytes); `kind` starts with an ASCII letter and holds letters, digits and inner `-` (at
/// most 63 bytes). Comparison is exact (`Resize` and `resize` differ).
///
/// The pair is stored once behind an `Arc` with a 64-bit hash computed when it is built, so
/// cloning is a reference count and comparing two names looks at the hashes before any text.
/// On the wire it is the object `{"apiVersion": "images.example.com/v1", "kind": "Resize"}`;
/// as text (`Display`, `FromStr`) it is `images.example.com/v1/Resize`.
///
/// ```
/// use model_task::spec::ExtensionKind;
///
/// let resize = ExtensionKind::new("images.example.com/v1", "Resize")?;
/// assert_eq!(resize.group(), "images.example.com");
/// assert_eq!(resize.version(), "v1");
/// assert_eq!(resize.to_string(), "images.example.com/v1/Resize");
/// assert_eq!("images.example.com/v1/Resize".parse::<ExtensionKind>()?, resize);
/// assert!(ExtensionKind::new("v1", "Resize").is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Clone)]
pub struct ExtensionKind(Arc<Named>);

/// The text of an [`ExtensionKind`] and its hash.
struct Named {
    /// `apiVersion/kind`.
    text: Box<str>,
    /// Where `kind` starts in `text` (after the last `/`).
    kind_at: usize,
    /// Where the version starts in `text` (after the first `/`).
    version_at: usize,
    /// A well-mixed hash of `text`.
    hash: u64,
}

impl ExtensionKind {
    /// Validates and builds a name. Errors name `apiVersion` or `kind`.
    pub fn new(api_version: &str, kind: &str) -> Result<Self, TaskError> {
        check_api_version(api_version)?;
        check_kind(kind)?;
        let text: Box<str> = format!("{api_version}/{kind}").into();
        let version_at = api_version.find('/').map_or(0, |slash| slash + 1);
        Ok(Self(Arc::new(Named {
            hash: splitmix64(fnv1a64(text.as_bytes())),
            kind_at: api_version.len() + 1,
            version_at,
            text,
        })))
    }

    /// `group/version`.
    pub fn api_version(&self) -> &str {
        self.0
            .text
            .get(..self.0.kind_at.saturating_sub(1))
            .unwrap_or_default()
    }

    /// The kind (`Resize`).
    pub fn kind(&self) -> &str {
        self.0.text.get(self.0.kind_at..).unwrap_or_default()
    }

    /// The API group (`images.example.com`).
    pub fn group(&self) -> &str {
        self.0
            .text
            .get(..self.0.version_at.saturating_sub(1))
            .unwrap_or_default()
    }

    /// The API version (`v1`).
    pub fn version(&self) -> &str {
        self.0
            .text
            .get(self.0.version_at..self.0.kind_at.saturating_sub(1))
            .unwrap_or_default()
    }

    /// The text form, `apiVersion/kind`.
    pub fn as_str(&self) -> &str {
        &self.0.text
    }

    /// The hash computed when the name was built: equal names have equal hashes.
    pub(crate) fn hash64(&self) -> u64 {
        self.0.hash
    }
}

impl PartialEq for ExtensionKind {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.hash == other.0.hash && self.0.text == other.0.text)
    }
}

impl Eq for ExtensionKind {}

/// By `apiVersion`, then `kind`, byte by byte.
impl Ord for ExtensionKind {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.api_version(), self.kind()).cmp(&(other.api_version(), other.kind()))
    }
}

impl PartialOrd for ExtensionKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Hash for ExtensionKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

impl fmt::Debug for ExtensionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ExtensionKind")
            .field(&self.as_str())
            .finish()
    }
}

/// `apiVersion/kind`, as in `images.example.com/v1/Resize`.
impl fmt::Display for ExtensionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// `apiVersion/kind`: the kind is what follows the last `/`.
impl FromStr for ExtensionKind {
    type Err = TaskError;

    fn from_str(s: &str) -> Result<Self, TaskError> {
        match s.rsplit_once('/') {
            Some((api_version, kind)) => Self::new(api_version, kind),
            None => Err(TaskError::invalid_input(
                "apiVersion",
                s,
                InvalidReason::Format {
                    expected: API_VERSION_EXPECTED,
                },
            )),
        }
    }
}

impl Serialize for ExtensionKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut object = serializer.serialize_struct("ExtensionKind", 2)?;
        object.serialize_field("apiVersion", self.api_version())?;
        object.serialize_field("kind", self.kind())?;
        object.end()
    }
}

/// The wire form of [`ExtensionKind`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExtensionKindRaw {
    api_version: String,
    kind: String,
}

impl<'de> Deserialize<'de> for ExtensionKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = ExtensionKindRaw::deserialize(deserializer)?;
        Self::new(&raw.api_version, &raw.kind).map_err(de::Error::custom)
    }
}

/// Checks `group/version`; the error names `apiVersion`.
fn check_api_version(api_version: &str) -> Result<(), TaskError> {
    let format = || {
        TaskError::invalid_input(
            "apiVersion",
            api_version,
            InvalidReason::Format {
                expected: API_VERSION_EXPECTED,
            },
        )
    };
    if api_version.len() > MAX_API_VERSION_BYTES {
        return Err(TaskError::invalid_input(
            "apiVersion",
            api_version,
            InvalidReason::TooLong {
                len: api_version.len(),
                max: MAX_API_VERSION_BYTES,
            },
        ));
    }
    let Some((group, version)) = api_version.split_once('/') else {
        return Err(format());
    };
    let group_ok = group.len() <= 253
        && group.contains('.')
        && group.split('.').all(|label| dns_label(label, false));
    if group_ok && dns_label(version, true) {
        Ok(())
    } else {
        Err(format())
    }
}

/// Checks a kind; the error names `kind`.
fn check_kind(kind: &str) -> Result<(), TaskError> {
    if kind.len() > MAX_EXTENSION_KIND_BYTES {
        return Err(TaskError::invalid_input(
            "kind",
            kind,
            InvalidReason::TooLong {
                len: kind.len(),
                max: MAX_EXTENSION_KIND_BYTES,
            },
        ));
    }
    let bytes = kind.as_bytes();
    let ok = bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-');
    if ok {
        Ok(())
    } else {
        Err(TaskError::invalid_input(
            "kind",
            kind,
            InvalidReason::Format {
                expected: KIND_EXPECTED,
            },
        ))
    }
}

/// A lowercase DNS label: 1 to 63 of `a-z`, `0-9` and `-`, starting and ending with a letter
/// or digit, and starting with a letter when `letter_first` (RFC 1035, for versions).
fn dns_label(label: &str, letter_first: bool) -> bool {
    let bytes = label.as_bytes();
    let lower_alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes.first().is_some_and(|b| {
            if letter_first {
                b.is_ascii_lowercase()
            } else {
                lower_alnum(b)
            }
        })
        && bytes.last().is_some_and(lower_alnum)
        && bytes.iter().all(|b| lower_alnum(b) || *b == b'-')
}

/// The spec of an extension workload: a JSON object whose fields belong to the runner that
/// implements the kind. taskmodel keeps it as it came and bounds it.
///
/// Bounds, enforced while reading (a nested array or object past the depth is refused
/// before it is read, and reading stops at the first value past a count):
/// [`MAX_EXTENSION_SPEC_DEPTH`] levels, [`MAX_EXTENSION_SPEC_VALUES`] values, and
/// [`MAX_EXTENSION_SPEC_BYTES`] bytes of keys and strings. An object may not name a key
/// twice, and numbers are finite. Keys are kept in byte order, so a spec writes the same
/// JSON however its keys came.
///
/// ```
/// use model_task::spec::ExtensionSpec;
///
/// let spec: ExtensionSpec = serde_json::from_str(r#"{"width": 640, "formats": ["webp"]}"#)?;
/// assert_eq!(spec.as_object()["width"], 640);
/// assert!(serde_json::from_str::<ExtensionSpec>("[1, 2]").is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ExtensionSpec(Map<String, Value>);

impl ExtensionSpec {
    /// The empty spec, `{}`.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Checks a JSON value against the bounds. Errors name `spec`.
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] when the value is not an object, is nested deeper than
    /// [`MAX_EXTENSION_SPEC_DEPTH`], holds more than [`MAX_EXTENSION_SPEC_VALUES`] values or
    /// more than [`MAX_EXTENSION_SPEC_BYTES`] bytes of text.
    pub fn new(value: Value) -> Result<Self, TaskError> {
        let Value::Object(object) = value else {
            return Err(not_an_object());
        };
        let mut budget = Budget::default();
        // Walks the tree with an explicit stack: a deep value cannot exhaust the call stack.
        let mut pending: Vec<(&Value, usize)> = Vec::new();
        budget.value(1).map_err(TaskError::from)?;
        for (key, value) in &object {
            budget.text(key.len()).map_err(TaskError::from)?;
            pending.push((value, 2));
        }
        while let Some((value, depth)) = pending.pop() {
            budget.value(depth).map_err(TaskError::from)?;
            match value {
                Value::String(text) => budget.text(text.len()).map_err(TaskError::from)?,
                Value::Array(items) => pending.extend(items.iter().map(|v| (v, depth + 1))),
                Value::Object(entries) => {
                    for (key, value) in entries {
                        budget.text(key.len()).map_err(TaskError::from)?;
                        pending.push((value, depth + 1));
                    }
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {}
            }
        }
        Ok(Self(object))
    }

    /// The spec's fields.
    pub fn as_object(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The spec as a JSON value (an object).
    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// Whether the spec has no field.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl TryFrom<Value> for ExtensionSpec {
    type Error = TaskError;

    fn try_from(value: Value) -> Result<Self, TaskError> {
        Self::new(value)
    }
}

impl<'de> Deserialize<'de> for ExtensionSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut budget = Budget::default();
        let value = ValueSeed {
            budget: &mut budget,
            depth: 1,
        }
        .deserialize(deserializer)?;
        match value {
            Value::Object(object) => Ok(Self(object)),
            _ => Err(de::Error::custom(not_an_object())),
        }
    }
}

fn not_an_object() -> TaskError {
    TaskError::invalid(
        "spec",
        InvalidReason::Format {
            expected: "a JSON object",
        },
    )
}

/// What an extension spec has used of its bounds so far.
#[derive(Default)]
struct Budget {
    values: usize,
    bytes: usize,
}

/// A bound an extension spec broke.
enum Exceeded {
    Depth(usize),
    Values(usize),
    Bytes(usize),
}

impl From<Exceeded> for TaskError {
    fn from(exceeded: Exceeded) -> Self {
        let reason = match exceeded {
            Exceeded::Depth(depth) => InvalidReason::TooDeep {
                depth,
                max: MAX_EXTENSION_SPEC_DEPTH,
            },
            Exceeded::Values(len) => InvalidReason::TooMany {
                len,
                max: MAX_EXTENSION_SPEC_VALUES,
            },
            Exceeded::Bytes(len) => InvalidReason::TooLong {
                len,
                max: MAX_EXTENSION_SPEC_BYTES,
            },
        };
        TaskError::invalid("spec", reason)
    }
}

impl Budget {
    /// Counts one value at `depth`.
    fn value(&mut self, depth: usize) -> Result<(), Exceeded> {
        if depth > MAX_EXTENSION_SPEC_DEPTH {
            return Err(Exceeded::Depth(depth));
        }
        self.values += 1;
        if self.values > MAX_EXTENSION_SPEC_VALUES {
            return Err(Exceeded::Values(self.values));
        }
        Ok(())
    }

    /// Counts `len` bytes of text.
    fn text(&mut self, len: usize) -> Result<(), Exceeded> {
        self.bytes = self.bytes.saturating_add(len);
        if self.bytes > MAX_EXTENSION_SPEC_BYTES {
            return Err(Exceeded::Bytes(self.bytes));
        }
        Ok(())
    }

    fn check<E: de::Error>(result: Result<(), Exceeded>) -> Result<(), E> {
        result.map_err(|exceeded| E::custom(TaskError::from(exceeded)))
    }
}

/// Reads one JSON value at `depth`, counting it against the budget before it is kept.
struct ValueSeed<'b> {
    budget: &'b mut Budget,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Budget::check(self.budget.value(self.depth))?;
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("invalid spec: numbers must be finite"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Budget::check(self.budget.text(v.len()))?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Budget::check(self.budget.text(v.len()))?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let depth = self.depth + 1;
        while let Some(item) = seq.next_element_seed(ValueSeed {
            budget: &mut *self.budget,
            depth,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        let depth = self.depth + 1;
        while let Some(key) = map.next_key::<String>()? {
            Budget::check(self.budget.text(key.len()))?;
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "invalid spec: duplicate key {}",
                    quote(&key)
                )));
            }
            let value = map.next_value_seed(ValueSeed {
                budget: &mut *self.budget,
                depth,
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests;
