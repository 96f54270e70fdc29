//! `OwnedResource`: the view of one resource that a store builds from its rows (kind,
//! tenant, name, uid, owner references, lifecycle, and its own retention settings), so
//! collection stays pure.

mod convert;
mod wire;

use std::fmt;
use std::sync::Arc;

use model_ids::TenantId;
use model_ids::text::quote;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

pub(crate) use self::wire::OwnedResourceRaw;
use crate::error::{InvalidReason, RetentionError};
use crate::kind::ResourceKind;
use crate::lifecycle::Lifecycle;
use crate::limits::{MAX_OWNER_REFERENCES, MAX_RESOURCE_NAME_BYTES};
use crate::policy::{CascadePolicy, HistoryLimits, check_ttl};
use model_ids::Uid;
use model_task::task::OwnerReference;

/// What retention needs to know of one resource: a row a store reads, or a value built from
/// a model type ([`OwnedResource::from_task`], [`from_attempt`](Self::from_attempt),
/// [`from_flow`](Self::from_flow), [`from_schedule`](Self::from_schedule),
/// [`from_action`](Self::from_action)).
///
/// - `kind`, `tenant` and `name` say what it is; `uid` tells one life of a name from the
///   next (a task deleted and created again under its name has a new uid). Tasks, flows and
///   schedules must carry one, since owner references name it; attempts and actions may.
/// - `ownerReferences` name the resources that own it (kind, name, uid, controller), after
///   Kubernetes: at most [`MAX_OWNER_REFERENCES`], at most one controller, never the
///   resource itself. An owner is found by uid in the same tenant; a reference to a uid
///   that is not there, or that names a resource of another kind or name, is to an owner
///   that is gone.
/// - `lifecycle`: draft (active) or sealed (finished, when, and how).
/// - `ttlAfterFinishedMs`, `cascade` and `history` override its kind's
///   [`RetentionRule`](crate::RetentionRule) (a task's or a flow's own
///   `ttlAfterFinishedMs`, a schedule's own history limits).
///
/// Names hold `A-Z a-z 0-9 . _ - /` and are at most [`MAX_RESOURCE_NAME_BYTES`] long: an
/// attempt is named after its task and number (`nightly-backup.9ix/3`), an action by its
/// id.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use model_ids::TenantId;
/// use model_retention::{Lifecycle, OwnedResource, Outcome, ResourceKind};
/// use model_ids::Uid;
///
/// let at = Utc.with_ymd_and_hms(2026, 11, 22, 2, 0, 0).unwrap();
/// let tenant = TenantId::new("acme")?;
/// let task = OwnedResource::builder(ResourceKind::Task, tenant, "nightly.9ix", Lifecycle::sealed(at, Outcome::Failed))
///     .uid(Uid::from_u128(7))
///     .ttl_after_finished_ms(3_600_000)
///     .build()?;
/// assert_eq!(task.name(), "nightly.9ix");
/// assert!(task.owner_references().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "OwnedResourceRaw", rename_all = "camelCase")]
pub struct OwnedResource {
    kind: ResourceKind,
    tenant: TenantId,
    name: Arc<str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<Uid>,
    #[serde(
        skip_serializing_if = "SmallVec::is_empty",
        serialize_with = "wire::serialize_owners"
    )]
    owner_references: SmallVec<[OwnerReference; 1]>,
    lifecycle: Lifecycle,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_after_finished_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadePolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<HistoryLimits>,
}

impl OwnedResource {
    /// A builder for a resource of `kind` named `name` in `tenant`, in `lifecycle`.
    pub fn builder(
        kind: ResourceKind,
        tenant: TenantId,
        name: &str,
        lifecycle: Lifecycle,
    ) -> OwnedResourceBuilder {
        OwnedResourceBuilder {
            resource: Self {
                kind,
                tenant,
                name: Arc::from(name),
                uid: None,
                owner_references: SmallVec::new(),
                lifecycle,
                ttl_after_finished_ms: None,
                cascade: None,
                history: None,
            },
        }
    }

    /// What it is.
    pub const fn kind(&self) -> ResourceKind {
        self.kind
    }

    /// The tenant it belongs to; its owners belong to the same one.
    pub const fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// Its name, unique among its kind in its tenant.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its uid, if it has one.
    pub const fn uid(&self) -> Option<Uid> {
        self.uid
    }

    /// The resources that own it.
    pub fn owner_references(&self) -> &[OwnerReference] {
        &self.owner_references
    }

    /// The owner reference marked `controller`, if any.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references
            .iter()
            .find(|owner| owner.is_controller())
    }

    /// Draft or sealed.
    pub const fn lifecycle(&self) -> Lifecycle {
        self.lifecycle
    }

    /// Its own time to live after finishing, over its kind's.
    pub const fn ttl_after_finished_ms(&self) -> Option<u64> {
        self.ttl_after_finished_ms
    }

    /// Its own cascade policy, over its kind's.
    pub const fn cascade(&self) -> Option<CascadePolicy> {
        self.cascade
    }

    /// Its own history limits, over its kind's.
    pub const fn history(&self) -> Option<HistoryLimits> {
        self.history
    }

    /// Whether `reference` names this resource: its uid, kind and name, and (the caller
    /// checks) its tenant.
    pub(crate) fn is_named_by(&self, reference: &OwnerReference) -> bool {
        self.uid == Some(reference.uid())
            && ResourceKind::of_owner(reference.kind()) == Some(self.kind)
            && *self.name == *reference.name()
    }

    /// `kind "name"`, as errors name it.
    pub(crate) fn label(&self) -> String {
        label(self.kind, &self.name)
    }

    /// Checks every rule of a resource (paths relative to it).
    fn validate(self) -> Result<Self, RetentionError> {
        check_name(&self.name)?;
        if self.kind.can_own() && self.uid.is_none() {
            return Err(RetentionError::invalid(
                "uid",
                InvalidReason::Missing {
                    rule: "a task, flow or schedule carries the uid its owner references name",
                },
            ));
        }
        if self.owner_references.len() > MAX_OWNER_REFERENCES {
            return Err(RetentionError::invalid(
                "ownerReferences",
                InvalidReason::TooLong {
                    len: self.owner_references.len(),
                    max: MAX_OWNER_REFERENCES,
                },
            ));
        }
        let mut controller = None;
        for (index, owner) in self.owner_references.iter().enumerate() {
            let earlier = self.owner_references.get(..index).unwrap_or_default();
            if earlier.iter().any(|other| other.uid() == owner.uid()) {
                return Err(RetentionError::invalid(
                    format!("ownerReferences[{index}]"),
                    InvalidReason::Duplicate,
                ));
            }
            let Some(kind) = ResourceKind::of_owner(owner.kind()) else {
                return Err(RetentionError::invalid_input(
                    format!("ownerReferences[{index}].kind"),
                    owner.kind().as_str(),
                    InvalidReason::Inconsistent {
                        rule: "an owner is a flow, a schedule or a task",
                    },
                ));
            };
            let same_name = self.kind == kind && *self.name == *owner.name();
            if same_name || self.uid == Some(owner.uid()) {
                return Err(RetentionError::SelfOwner {
                    resource: self.label(),
                    index,
                });
            }
            if owner.is_controller() {
                if let Some(first) = controller {
                    return Err(RetentionError::SecondController { first, index });
                }
                controller = Some(index);
            }
        }
        check_ttl("ttlAfterFinishedMs", self.ttl_after_finished_ms)?;
        Ok(self)
    }
}

impl fmt::Display for OwnedResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}", self.kind, self.tenant, self.name)
    }
}

/// `kind "name"`, the name quoted and shortened.
pub(crate) fn label(kind: ResourceKind, name: &str) -> String {
    format!("{kind} {}", quote(name))
}

/// A resource name: not empty, at most [`MAX_RESOURCE_NAME_BYTES`], `A-Z a-z 0-9 . _ - /`.
fn check_name(name: &str) -> Result<(), RetentionError> {
    if name.is_empty() {
        return Err(RetentionError::invalid("name", InvalidReason::Empty));
    }
    if name.len() > MAX_RESOURCE_NAME_BYTES {
        return Err(RetentionError::invalid_input(
            "name",
            name,
            InvalidReason::TooLong {
                len: name.len(),
                max: MAX_RESOURCE_NAME_BYTES,
            },
        ));
    }
    let bad = name
        .char_indices()
        .find(|(_, ch)| !(ch.is_ascii_alphanumeric() || matches!(ch, '.' | '_' | '-' | '/')));
    match bad {
        Some((index, ch)) => Err(RetentionError::invalid_input(
            "name",
            name,
            InvalidReason::InvalidChar { ch, index },
        )),
        None => Ok(()),
    }
}

/// Builds an [`OwnedResource`]; [`build`](Self::build) checks every rule.
#[derive(Debug, Clone)]
#[must_use]
pub struct OwnedResourceBuilder {
    resource: OwnedResource,
}

impl OwnedResourceBuilder {
    /// Its uid.
    pub fn uid(mut self, uid: Uid) -> Self {
        self.resource.uid = Some(uid);
        self
    }

    /// One more owner reference.
    pub fn owner(mut self, owner: OwnerReference) -> Self {
        self.resource.owner_references.push(owner);
        self
    }

    /// Its own time to live after finishing (at most
    /// [`MAX_TTL_AFTER_FINISHED_MS`](crate::MAX_TTL_AFTER_FINISHED_MS)).
    pub fn ttl_after_finished_ms(mut self, ms: u64) -> Self {
        self.resource.ttl_after_finished_ms = Some(ms);
        self
    }

    /// Its own cascade policy.
    pub fn cascade(mut self, cascade: CascadePolicy) -> Self {
        self.resource.cascade = Some(cascade);
        self
    }

    /// Its own history limits.
    pub fn history(mut self, history: HistoryLimits) -> Self {
        self.resource.history = Some(history);
        self
    }

    /// The resource, or the first rule it breaks.
    pub fn build(self) -> Result<OwnedResource, RetentionError> {
        self.resource.validate()
    }
}

#[cfg(test)]
mod tests;
