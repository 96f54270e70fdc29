//! `SelectorOperator`, how a requirement tests a label.
//!
//! It depends on nothing else in the crate, so the error type can name an operator;
//! parsing it from text lives beside `SelectorRequirement`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How a requirement tests a label, written in PascalCase on the wire as Kubernetes does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum SelectorOperator {
    /// The key is present with one of the listed values.
    In,
    /// The key is absent, or its value is not listed.
    NotIn,
    /// The key is present.
    Exists,
    /// The key is absent.
    DoesNotExist,
    /// The key is present with an integer value greater than the one given.
    Gt,
    /// The key is present with an integer value less than the one given.
    Lt,
}

impl SelectorOperator {
    /// Every operator, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::In,
        Self::NotIn,
        Self::Exists,
        Self::DoesNotExist,
        Self::Gt,
        Self::Lt,
    ];

    /// The wire name (`In`, `NotIn`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::In => "In",
            Self::NotIn => "NotIn",
            Self::Exists => "Exists",
            Self::DoesNotExist => "DoesNotExist",
            Self::Gt => "Gt",
            Self::Lt => "Lt",
        }
    }
}

impl fmt::Display for SelectorOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
