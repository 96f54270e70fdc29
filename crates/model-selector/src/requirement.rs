//! `SelectorRequirement`, the owned building block of a selector.

use model_ids::text::quote;

use crate::{
    error::SelectorError,
    limits::MAX_VALUES,
    name::{check_key, check_value},
    operator::SelectorOperator,
};

/// One validated requirement: a key, an operator and the operator's values.
///
/// `In` and `NotIn` take 1 to [`MAX_VALUES`] label values, `Exists` and `DoesNotExist`
/// none, `Gt` and `Lt` exactly one `i64` written in decimal.
///
/// ```
/// use model_selector::{SelectorOperator, SelectorRequirement};
///
/// let gpu = SelectorRequirement::new("gpu", SelectorOperator::In, ["a100", "h100"])?;
/// assert_eq!(gpu.values(), ["a100", "h100"]);
/// assert!(SelectorRequirement::new("gpu", SelectorOperator::In, [""; 0]).is_err());
/// assert!(SelectorRequirement::new("cores", SelectorOperator::Gt, ["many"]).is_err());
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectorRequirement {
    key: String,
    operator: SelectorOperator,
    values: Vec<String>,
}

impl SelectorRequirement {
    /// A validated requirement. Values keep the order given; a selector sorts them.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`] (path `key`), [`SelectorError::InvalidValue`] or
    /// [`SelectorError::NotAnInteger`] (path `values[i]`), [`SelectorError::ValueCount`] or
    /// [`SelectorError::TooMany`] (path `values`).
    pub fn new<V, I>(
        key: impl Into<String>,
        operator: SelectorOperator,
        values: I,
    ) -> Result<Self, SelectorError>
    where
        V: Into<String>,
        I: IntoIterator<Item = V>,
    {
        let key = key.into();
        check_requirement_key(&key)?;
        let mut list = Vec::new();
        for value in values {
            if list.len() == MAX_VALUES {
                return Err(SelectorError::TooMany {
                    path: "values".to_owned(),
                    what: "values",
                    limit: MAX_VALUES,
                });
            }
            let value = value.into();
            check_requirement_value(operator, &value, list.len())?;
            list.push(value);
        }
        check_value_count(operator, list.len())?;
        Ok(Self {
            key,
            operator,
            values: list,
        })
    }

    /// `key in (values)`.
    ///
    /// # Errors
    ///
    /// As [`SelectorRequirement::new`].
    pub fn in_values<V: Into<String>>(
        key: impl Into<String>,
        values: impl IntoIterator<Item = V>,
    ) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::In, values)
    }

    /// `key notin (values)`.
    ///
    /// # Errors
    ///
    /// As [`SelectorRequirement::new`].
    pub fn not_in<V: Into<String>>(
        key: impl Into<String>,
        values: impl IntoIterator<Item = V>,
    ) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::NotIn, values)
    }

    /// `key`: the key is present.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`].
    pub fn exists(key: impl Into<String>) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::Exists, [""; 0])
    }

    /// `!key`: the key is absent.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`].
    pub fn does_not_exist(key: impl Into<String>) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::DoesNotExist, [""; 0])
    }

    /// `key>bound`.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`].
    pub fn gt(key: impl Into<String>, bound: i64) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::Gt, [bound.to_string()])
    }

    /// `key<bound`.
    ///
    /// # Errors
    ///
    /// [`SelectorError::InvalidKey`].
    pub fn lt(key: impl Into<String>, bound: i64) -> Result<Self, SelectorError> {
        Self::new(key, SelectorOperator::Lt, [bound.to_string()])
    }

    /// The label key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The operator.
    pub fn operator(&self) -> SelectorOperator {
        self.operator
    }

    /// The values (empty for `Exists` and `DoesNotExist`).
    pub fn values(&self) -> &[String] {
        &self.values
    }
}

pub(crate) fn check_requirement_key(key: &str) -> Result<(), SelectorError> {
    check_key(key).map_err(|reason| SelectorError::InvalidKey {
        path: "key".to_owned(),
        key: quote(key),
        reason,
    })
}

/// Checks value number `index` of a requirement with `operator`.
pub(crate) fn check_requirement_value(
    operator: SelectorOperator,
    value: &str,
    index: usize,
) -> Result<(), SelectorError> {
    match operator {
        SelectorOperator::Gt | SelectorOperator::Lt => {
            if value.parse::<i64>().is_err() {
                return Err(SelectorError::NotAnInteger {
                    path: format!("values[{index}]"),
                    operator,
                    value: quote(value),
                });
            }
        }
        _ => check_value(value).map_err(|reason| SelectorError::InvalidValue {
            path: format!("values[{index}]"),
            value: quote(value),
            reason,
        })?,
    }
    Ok(())
}

pub(crate) fn check_value_count(
    operator: SelectorOperator,
    count: usize,
) -> Result<(), SelectorError> {
    let (ok, expected) = match operator {
        SelectorOperator::In | SelectorOperator::NotIn => (count >= 1, "needs at least one value"),
        SelectorOperator::Exists | SelectorOperator::DoesNotExist => {
            (count == 0, "takes no values")
        }
        SelectorOperator::Gt | SelectorOperator::Lt => (count == 1, "needs exactly one value"),
    };
    if ok {
        Ok(())
    } else {
        Err(SelectorError::ValueCount {
            path: "values".to_owned(),
            operator,
            expected,
            count,
        })
    }
}

impl SelectorRequirement {
    /// A requirement from parts that came out of a validated selector.
    pub(crate) fn from_trusted(key: &str, operator: SelectorOperator, values: Vec<String>) -> Self {
        Self {
            key: key.to_owned(),
            operator,
            values,
        }
    }
}
