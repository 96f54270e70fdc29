//! `LabelSelectorBuilder`: collects labels and requirements, validates them in `build`.

use super::{LabelSelector, compile::too_many_requirements};
use crate::{
    error::SelectorError, labels::Labels, limits::MAX_REQUIREMENTS,
    requirement::SelectorRequirement,
};

/// Collects `matchLabels` entries and requirements, then validates them all in
/// [`LabelSelectorBuilder::build`].
///
/// ```
/// use model_selector::{LabelSelector, SelectorRequirement};
///
/// let selector = LabelSelector::builder()
///     .label("zone", "eu")
///     .requirement(SelectorRequirement::exists("gpu")?)
///     .build()?;
/// assert_eq!(selector.to_string(), "gpu,zone=eu");
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LabelSelectorBuilder {
    labels: Vec<(String, String)>,
    expressions: Vec<SelectorRequirement>,
}

impl LabelSelectorBuilder {
    /// Adds the `matchLabels` entry `key: value`.
    #[must_use]
    pub fn label(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.labels.push((key.into(), value.into()));
        self
    }

    /// Adds a `matchExpressions` requirement.
    #[must_use]
    pub fn requirement(mut self, requirement: SelectorRequirement) -> Self {
        self.expressions.push(requirement);
        self
    }

    /// The selector.
    ///
    /// # Errors
    ///
    /// Invalid or duplicate `matchLabels` entries (path `matchLabels["key"]`), or
    /// [`SelectorError::TooMany`].
    pub fn build(self) -> Result<LabelSelector, SelectorError> {
        if self.labels.len() + self.expressions.len() > MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        let labels = Labels::from_pairs(self.labels).map_err(|e| e.prefixed("matchLabels"))?;
        LabelSelector::from_parts(&labels, &self.expressions)
    }
}
