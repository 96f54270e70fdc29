//! The raw twins of the policy types: what serde reads before the bounds are checked, with
//! the field path of each error.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{CascadePolicy, HistoryLimits, RetentionPolicy, RetentionRule};
use crate::error::{InvalidReason, RetentionError};
use crate::kind::ResourceKind;

/// The wire form of [`HistoryLimits`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct HistoryLimitsRaw {
    pub(crate) succeeded: u64,
    pub(crate) failed: u64,
}

impl HistoryLimitsRaw {
    /// The limits, or the first one too large (paths relative to the limits).
    pub(crate) fn check(self) -> Result<HistoryLimits, RetentionError> {
        let narrow = |path: &str, value: u64| {
            u32::try_from(value).map_err(|_| {
                RetentionError::invalid(
                    path,
                    InvalidReason::TooLarge {
                        value,
                        max: u64::from(crate::limits::MAX_HISTORY_LIMIT),
                    },
                )
            })
        };
        HistoryLimits::new(
            narrow("succeeded", self.succeeded)?,
            narrow("failed", self.failed)?,
        )
    }
}

impl TryFrom<HistoryLimitsRaw> for HistoryLimits {
    type Error = RetentionError;

    fn try_from(raw: HistoryLimitsRaw) -> Result<Self, RetentionError> {
        raw.check()
    }
}

impl From<HistoryLimits> for HistoryLimitsRaw {
    fn from(limits: HistoryLimits) -> Self {
        Self {
            succeeded: u64::from(limits.succeeded),
            failed: u64::from(limits.failed),
        }
    }
}

/// The wire form of [`RetentionRule`]: absent fields take the builder's neutral values.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RetentionRuleRaw {
    #[serde(default)]
    cleanup_priority: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl_after_finished_ms: Option<u64>,
    #[serde(default)]
    cascade: Option<CascadePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    history: Option<HistoryLimitsRaw>,
    #[serde(default)]
    hold_while_active: Option<bool>,
}

impl RetentionRuleRaw {
    /// The rule, or the first field that breaks a bound (paths relative to the rule).
    fn check(self) -> Result<RetentionRule, RetentionError> {
        let max = crate::limits::MAX_CLEANUP_PRIORITY;
        let priority = match self.cleanup_priority {
            None => RetentionRule::DEFAULT_CLEANUP_PRIORITY,
            Some(value) => u8::try_from(value)
                .ok()
                .filter(|priority| *priority <= max)
                .ok_or_else(|| {
                    RetentionError::invalid(
                        "cleanupPriority",
                        InvalidReason::TooLarge {
                            value,
                            max: u64::from(max),
                        },
                    )
                })?,
        };
        let mut builder = RetentionRule::builder(priority)
            .cascade(self.cascade.unwrap_or(CascadePolicy::Foreground))
            .hold_while_active(self.hold_while_active.unwrap_or(false));
        if let Some(ms) = self.ttl_after_finished_ms {
            builder = builder.ttl_after_finished_ms(ms);
        }
        if let Some(history) = self.history {
            builder = builder.history(history.check().map_err(|err| err.at("history"))?);
        }
        builder.build()
    }
}

impl TryFrom<RetentionRuleRaw> for RetentionRule {
    type Error = RetentionError;

    fn try_from(raw: RetentionRuleRaw) -> Result<Self, RetentionError> {
        raw.check()
    }
}

impl From<RetentionRule> for RetentionRuleRaw {
    fn from(rule: RetentionRule) -> Self {
        Self {
            cleanup_priority: Some(u64::from(rule.cleanup_priority)),
            ttl_after_finished_ms: rule.ttl_after_finished_ms,
            cascade: Some(rule.cascade),
            history: rule.history.map(HistoryLimitsRaw::from),
            hold_while_active: Some(rule.hold_while_active),
        }
    }
}

/// The wire form of [`RetentionPolicy`]: the rules a caller overrides, by kind.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RetentionPolicyRaw {
    #[serde(default)]
    rules: Option<Rules>,
}

impl TryFrom<RetentionPolicyRaw> for RetentionPolicy {
    type Error = RetentionError;

    fn try_from(raw: RetentionPolicyRaw) -> Result<Self, RetentionError> {
        let mut policy = RetentionPolicy::DEFAULT;
        for (kind, rule) in raw.rules.map(|rules| rules.0).unwrap_or_default() {
            let rule = rule
                .check()
                .map_err(|err| err.at(&format!("rules.{kind}")))?;
            policy = policy.with_rule(kind, rule);
        }
        Ok(policy)
    }
}

impl From<RetentionPolicy> for RetentionPolicyRaw {
    fn from(policy: RetentionPolicy) -> Self {
        let rules = ResourceKind::ALL
            .iter()
            .map(|&kind| (kind, RetentionRuleRaw::from(*policy.rule(kind))))
            .collect();
        Self {
            rules: Some(Rules(rules)),
        }
    }
}

/// The `rules` object: at most one entry per kind (a kind named twice is an error), so it
/// holds at most five.
#[derive(Debug, Clone, Default)]
struct Rules(Vec<(ResourceKind, RetentionRuleRaw)>);

impl Serialize for Rules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (kind, rule) in &self.0 {
            map.serialize_entry(kind, rule)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RulesVisitor;

        impl<'de> Visitor<'de> for RulesVisitor {
            type Value = Rules;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of retention rules by kind")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Rules, A::Error> {
                let mut rules: Vec<(ResourceKind, RetentionRuleRaw)> = Vec::new();
                while let Some(kind) = map.next_key::<ResourceKind>()? {
                    if rules.iter().any(|(seen, _)| *seen == kind) {
                        return Err(serde::de::Error::custom(RetentionError::invalid(
                            format!("rules.{kind}"),
                            InvalidReason::Duplicate,
                        )));
                    }
                    rules.push((kind, map.next_value()?));
                }
                Ok(Rules(rules))
            }
        }

        deserializer.deserialize_map(RulesVisitor)
    }
}
