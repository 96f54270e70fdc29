//! `ActionId`: the 16-byte identity of a scheduled or webhook action, written as 32 hex digits.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use super::kind::{ACTION_ID_HEX_LEN, ACTION_ID_LEN, IdKind};
use crate::error::IdError;

/// The identity of an action: 16 bytes, as a UUID has, written as 32 hex digits.
///
/// Unlike the string identifiers it is a plain `Copy` value: an action key (time, then id)
/// puts these bytes in a storage key as they are. The text form is 32 lowercase hex digits
/// with no dashes; parsing also accepts uppercase, so a value (not its spelling) round-trips.
/// The caller makes the bytes (from its random source, or a UUID it already has): this crate
/// draws no random numbers.
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
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ActionId([u8; ACTION_ID_LEN]);

impl ActionId {
    /// The [`IdKind`] of `ActionId`, used in its errors.
    pub const KIND: IdKind = IdKind::ActionId;

    /// The id with these bytes.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; ACTION_ID_LEN]) -> Self {
        Self(bytes)
    }

    /// The id of a 128-bit number, most significant byte first (so ids made from counting
    /// numbers sort as the numbers do).
    #[must_use]
    pub const fn from_u128(value: u128) -> Self {
        Self(value.to_be_bytes())
    }

    /// The 16 bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; ACTION_ID_LEN] {
        &self.0
    }

    /// The bytes as a 128-bit number, most significant byte first.
    #[must_use]
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// Parses 32 hex digits (either case).
    ///
    /// # Errors
    ///
    /// [`IdError::Empty`], [`IdError::WrongLength`] for any other length (checked first, so
    /// a long input costs nothing more), or [`IdError::InvalidChar`] at the first byte that is
    /// not a hex digit.
    pub fn parse(input: &str) -> Result<Self, IdError> {
        decode_hex(input).map(Self)
    }
}

/// The bytes of 32 hex digits, or why `input` is not that.
pub(crate) fn decode_hex(input: &str) -> Result<[u8; ACTION_ID_LEN], IdError> {
    if input.is_empty() {
        return Err(IdError::empty(IdKind::ActionId));
    }
    if input.len() != ACTION_ID_HEX_LEN {
        return Err(IdError::wrong_length(
            IdKind::ActionId,
            input,
            ACTION_ID_HEX_LEN,
        ));
    }
    let mut bytes = [0u8; ACTION_ID_LEN];
    for (index, (byte, pair)) in bytes.iter_mut().zip(input.as_bytes().chunks(2)).enumerate() {
        let digit = |offset: usize| {
            let at = 2 * index + offset;
            pair.get(offset)
                .and_then(|b| hex_value(*b))
                .ok_or_else(|| IdError::invalid_char(IdKind::ActionId, input, at))
        };
        *byte = (digit(0)? << 4) | digit(1)?;
    }
    Ok(bytes)
}

/// The value of one hex digit.
const fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; ACTION_ID_HEX_LEN];
        for (pair, byte) in text.chunks_mut(2).zip(self.0) {
            for (slot, nibble) in pair.iter_mut().zip([byte >> 4, byte & 0x0f]) {
                *slot = DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0');
            }
        }
        // Every byte written is an ASCII hex digit.
        f.pad(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ActionId({self})")
    }
}

impl FromStr for ActionId {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl From<[u8; ACTION_ID_LEN]> for ActionId {
    fn from(bytes: [u8; ACTION_ID_LEN]) -> Self {
        Self(bytes)
    }
}

impl From<ActionId> for [u8; ACTION_ID_LEN] {
    fn from(id: ActionId) -> Self {
        id.0
    }
}

impl Serialize for ActionId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ActionId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HexVisitor;

        impl de::Visitor<'_> for HexVisitor {
            type Value = ActionId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "action id: a string of {ACTION_ID_HEX_LEN} hex digits")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<ActionId, E> {
                ActionId::parse(value).map_err(E::custom)
            }
        }

        deserializer.deserialize_str(HexVisitor)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ActionId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("ActionId")
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("model_ids::ActionId")
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "An action id: 16 bytes as 32 hex digits.",
            "pattern": "^[0-9a-fA-F]{32}$"
        })
    }
}

#[cfg(test)]
mod tests;
