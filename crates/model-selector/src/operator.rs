//! `SelectorOperator`, how a requirement tests a label.

use std::{fmt, str::FromStr};

use model_ids::text::quote;
use serde::{Deserialize, Serialize};

use crate::error::SelectorError;

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

impl FromStr for SelectorOperator {
    type Err = SelectorError;

    /// Parses the wire name exactly (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|op| op.as_str() == s)
            .ok_or_else(|| SelectorError::UnknownOperator {
                path: String::new(),
                found: quote(s),
            })
    }
}
