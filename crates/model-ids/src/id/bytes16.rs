//! The 16-byte identifiers, [`ActionId`] and [`Uid`]: one macro makes both, and one codec
//! writes and reads their text, hex digits in groups joined by `-` ([`Layout`]).
//!
//! Unlike the string identifiers they are plain `Copy` values: a storage key can hold their
//! bytes as they are. The caller makes the bytes (from its random source, a counter, or a
//! UUID it already has): this crate draws no random numbers.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use super::kind::{ACTION_ID_HEX_LEN, ACTION_ID_LEN, IdKind, UID_LEN, UID_TEXT_LEN};
use crate::error::IdError;

/// Length of a 16-byte identifier in bytes.
const LEN: usize = 16;

/// The longest text any layout writes (a UUID's 32 digits and 4 dashes).
const MAX_TEXT: usize = 36;

/// How a 16-byte identifier is written: groups of hex digits, joined by `-`, lowercase.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    /// The kind its errors name.
    kind: IdKind,
    /// Digits per group; they add up to 32.
    groups: &'static [usize],
    /// Whether parsing also takes uppercase digits (writing is always lowercase).
    uppercase: bool,
    /// The JSON Schema pattern of the text.
    #[cfg_attr(
        not(feature = "schema"),
        allow(dead_code, reason = "read by the schema only")
    )]
    pattern: &'static str,
    /// The characters the text may hold, as error messages spell them.
    allowed: &'static str,
}

/// 32 hex digits, either case on input: an [`ActionId`].
pub(crate) const ACTION_LAYOUT: Layout = Layout {
    kind: IdKind::ActionId,
    groups: &[32],
    uppercase: true,
    pattern: "^[0-9a-fA-F]{32}$",
    allowed: "0-9 a-f A-F",
};

/// The UUID layout `8-4-4-4-12`, lowercase only: a [`Uid`].
pub(crate) const UID_LAYOUT: Layout = Layout {
    kind: IdKind::Uid,
    groups: &[8, 4, 4, 4, 12],
    uppercase: false,
    pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    allowed: "0-9 a-f, and '-' at bytes 8, 13, 18 and 23",
};

// The public lengths are the layouts' own.
const _: () = assert!(
    ACTION_ID_LEN == LEN
        && UID_LEN == LEN
        && ACTION_LAYOUT.text_len() == ACTION_ID_HEX_LEN
        && UID_LAYOUT.text_len() == UID_TEXT_LEN
        && UID_TEXT_LEN <= MAX_TEXT
);

impl Layout {
    /// The length of the text: the digits and one dash between groups.
    pub(crate) const fn text_len(&self) -> usize {
        let mut len = self.groups.len().saturating_sub(1);
        let mut rest = self.groups;
        while let [group, tail @ ..] = rest {
            len += *group;
            rest = tail;
        }
        len
    }

    /// The characters the text may hold, as error messages spell them.
    pub(crate) const fn allowed(&self) -> &'static str {
        self.allowed
    }

    /// Whether byte `index` of the text is a dash.
    fn is_dash(&self, index: usize) -> bool {
        let mut end = 0;
        for group in self.groups {
            end += group;
            if index == end {
                return true;
            }
            end += 1;
            if index < end {
                return false;
            }
        }
        false
    }

    /// The text of `bytes`, lowercase.
    fn encode(&self, bytes: &[u8; LEN]) -> Text {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = Text {
            bytes: [b'-'; MAX_TEXT],
            len: self.text_len().min(MAX_TEXT),
        };
        let nibbles = bytes.iter().flat_map(|byte| [byte >> 4, byte & 0x0f]);
        let slots = (0..text.len).filter(|&index| !self.is_dash(index));
        for (index, nibble) in slots.zip(nibbles) {
            if let (Some(slot), Some(digit)) =
                (text.bytes.get_mut(index), DIGITS.get(usize::from(nibble)))
            {
                *slot = *digit;
            }
        }
        text
    }

    /// The bytes of `input`, or why it is not this layout's text: empty, the wrong length
    /// (checked first, so a long input costs nothing more), or the first byte that is
    /// neither a digit nor a dash where the layout has one.
    pub(crate) fn decode(&self, input: &str) -> Result<[u8; LEN], IdError> {
        if input.is_empty() {
            return Err(IdError::empty(self.kind));
        }
        let len = self.text_len();
        if input.len() != len {
            return Err(IdError::wrong_length(self.kind, input, len));
        }
        let mut bytes = [0u8; LEN];
        let mut digits = 0usize;
        for (index, byte) in input.bytes().enumerate() {
            let bad = || IdError::invalid_char(self.kind, input, index);
            if self.is_dash(index) {
                if byte != b'-' {
                    return Err(bad());
                }
                continue;
            }
            let value = hex_value(byte, self.uppercase).ok_or_else(bad)?;
            if let Some(slot) = bytes.get_mut(digits / 2) {
                *slot |= if digits.is_multiple_of(2) {
                    value << 4
                } else {
                    value
                };
            }
            digits += 1;
        }
        Ok(bytes)
    }
}

/// The value of one hex digit (uppercase only when `uppercase`).
const fn hex_value(byte: u8, uppercase: bool) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' if uppercase => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// The text of an identifier, on the stack.
struct Text {
    bytes: [u8; MAX_TEXT],
    len: usize,
}

impl Text {
    fn as_str(&self) -> &str {
        // Every byte written is an ASCII hex digit or a dash.
        self.bytes
            .get(..self.len)
            .and_then(|text| std::str::from_utf8(text).ok())
            .unwrap_or_default()
    }
}

/// Defines a 16-byte identifier written in `$layout`: its constructors, conversions,
/// text and serde forms, and (behind `schema`) its JSON Schema.
macro_rules! define_id16 {
    ($(#[$meta:meta])* $name:ident, $kind:ident, $layout:expr, $what:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name([u8; LEN]);

        impl $name {
            #[doc = concat!("The [`IdKind`] of `", stringify!($name), "`, used in its errors.")]
            pub const KIND: IdKind = IdKind::$kind;

            /// The id with these bytes.
            #[must_use]
            pub const fn from_bytes(bytes: [u8; LEN]) -> Self {
                Self(bytes)
            }

            /// The id of a 128-bit number, most significant byte first (so ids made from
            /// counting numbers sort as the numbers do).
            #[must_use]
            pub const fn from_u128(value: u128) -> Self {
                Self(value.to_be_bytes())
            }

            /// The 16 bytes.
            #[must_use]
            pub const fn as_bytes(&self) -> &[u8; LEN] {
                &self.0
            }

            /// The bytes as a 128-bit number, most significant byte first.
            #[must_use]
            pub const fn to_u128(self) -> u128 {
                u128::from_be_bytes(self.0)
            }

            #[doc = concat!("Parses ", $what, ".")]
            ///
            /// # Errors
            ///
            /// [`IdError::Empty`], [`IdError::WrongLength`] for any other length (checked
            /// first, so a long input costs nothing more), or [`IdError::InvalidChar`] at the
            /// first byte that is out of place.
            pub fn parse(input: &str) -> Result<Self, IdError> {
                $layout.decode(input).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad($layout.encode(&self.0).as_str())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self)
            }
        }

        impl FromStr for $name {
            type Err = IdError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl From<[u8; LEN]> for $name {
            fn from(bytes: [u8; LEN]) -> Self {
                Self(bytes)
            }
        }

        impl From<$name> for [u8; LEN] {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($layout.encode(&self.0).as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct TextVisitor;

                impl de::Visitor<'_> for TextVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!(stringify!($name), ": ", $what))
                    }

                    fn visit_str<E: de::Error>(self, value: &str) -> Result<$name, E> {
                        $name::parse(value).map_err(E::custom)
                    }
                }

                deserializer.deserialize_str(TextVisitor)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn schema_id() -> std::borrow::Cow<'static, str> {
                concat!("model_ids::", stringify!($name)).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "description": concat!("A ", stringify!($name), ": 16 bytes as ", $what, "."),
                    "pattern": $layout.pattern,
                })
            }
        }
    };
}

define_id16! {
    /// The identity of an action: 16 bytes, as a UUID has, written as 32 hex digits.
    ///
    /// An action key (time, then id) puts these bytes in a storage key as they are. The text
    /// form is 32 lowercase hex digits with no dashes; parsing also accepts uppercase, so a
    /// value (not its spelling) round-trips.
    ///
    /// ```
    /// use model_ids::{ActionId, IdError};
    ///
    /// let id = ActionId::from_bytes([0xab; 16]);
    /// assert_eq!(id.to_string(), "abababababababababababababababab");
    /// assert_eq!("ABABABABABABABABABABABABABABABAB".parse::<ActionId>()?, id);
    /// assert_eq!(serde_json::to_string(&id).unwrap(), r#""abababababababababababababababab""#);
    /// assert!(matches!("abc".parse::<ActionId>(), Err(IdError::WrongLength { len: 3, expected: 32, .. })));
    /// # Ok::<(), IdError>(())
    /// ```
    ActionId, ActionId, ACTION_LAYOUT, "32 hex digits"
}

define_id16! {
    /// The identity of one incarnation of a resource (a task, a flow, a schedule): 16 bytes,
    /// written in the lowercase UUID layout `8-4-4-4-12`.
    ///
    /// A name (a task id) can be deleted and used again; the uid cannot, so an owner
    /// reference or a guarded write that names a uid never reaches a later resource of the
    /// same name. The caller makes the bytes (a random UUID version 4 or 7 is usual); the
    /// version and variant bits are not checked. Text is lowercase both ways: one value has
    /// one spelling, so a store may compare uids as text.
    ///
    /// ```
    /// use model_ids::{IdError, Uid};
    ///
    /// let uid = Uid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
    /// assert_eq!(uid.to_string(), "01234567-89ab-cdef-0123-456789abcdef");
    /// assert_eq!("01234567-89ab-cdef-0123-456789abcdef".parse::<Uid>()?, uid);
    /// assert_eq!(serde_json::to_string(&uid).unwrap(), r#""01234567-89ab-cdef-0123-456789abcdef""#);
    /// assert!(matches!(
    ///     "01234567-89AB-cdef-0123-456789abcdef".parse::<Uid>(),
    ///     Err(IdError::InvalidChar { ch: 'A', index: 11, .. })
    /// ));
    /// # Ok::<(), IdError>(())
    /// ```
    Uid, Uid, UID_LAYOUT, "the UUID layout 8-4-4-4-12 in lowercase hex"
}

#[cfg(test)]
mod tests;
