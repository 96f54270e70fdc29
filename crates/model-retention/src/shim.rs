//! Temporary stand-ins for model-ids' `Uid` and model-task's `OwnerReference` until they land.
#![allow(missing_docs, unreachable_pub, dead_code)]

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uid([u8; 16]);

impl Uid {
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }
    pub const fn from_u128(value: u128) -> Self {
        Self(value.to_be_bytes())
    }
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Uid {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let hex: String = s.chars().filter(|c| *c != '-').collect();
        if hex.len() != 32 || s.len() != 36 {
            return Err(format!("invalid uid {s:?}"));
        }
        let value = u128::from_str_radix(&hex, 16).map_err(|_| format!("invalid uid {s:?}"))?;
        Ok(Self::from_u128(value))
    }
}

impl Serialize for Uid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Uid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OwnerKind {
    Flow,
    Schedule,
    Task,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OwnerReference {
    kind: OwnerKind,
    name: String,
    uid: Uid,
    #[serde(default)]
    controller: bool,
}

impl OwnerReference {
    pub fn new(kind: OwnerKind, name: &str, uid: Uid, controller: bool) -> Self {
        Self {
            kind,
            name: name.to_owned(),
            uid,
            controller,
        }
    }
    pub fn kind(&self) -> OwnerKind {
        self.kind
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn uid(&self) -> Uid {
        self.uid
    }
    pub fn controller(&self) -> bool {
        self.controller
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Uid {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Uid".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for OwnerReference {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OwnerReference".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object" })
    }
}
