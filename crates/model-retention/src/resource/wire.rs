//! The raw twin of [`OwnedResource`]: what serde reads, owner references bounded while
//! they are read, before the rules are checked; and how its owner references are written.

use std::sync::Arc;

use model_ids::{BoundedVec, TenantId};
use serde::{Deserialize, Serializer};

use super::OwnedResource;
use crate::kind::ResourceKind;
use crate::lifecycle::{Lifecycle, LifecycleRaw};
use crate::limits::OwnerReferences;
use crate::policy::{CascadePolicy, HistoryLimitsRaw};
use model_ids::Uid;
use model_task::task::OwnerReference;

/// The wire form of [`OwnedResource`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OwnedResourceRaw {
    kind: ResourceKind,
    tenant: TenantId,
    name: String,
    #[serde(default)]
    uid: Option<Uid>,
    #[serde(default)]
    owner_references: Option<BoundedVec<OwnerReference, OwnerReferences>>,
    lifecycle: LifecycleRaw,
    #[serde(default)]
    ttl_after_finished_ms: Option<u64>,
    #[serde(default)]
    cascade: Option<CascadePolicy>,
    #[serde(default)]
    history: Option<HistoryLimitsRaw>,
}

impl TryFrom<OwnedResourceRaw> for OwnedResource {
    type Error = crate::error::RetentionError;

    fn try_from(raw: OwnedResourceRaw) -> Result<Self, Self::Error> {
        let lifecycle = Lifecycle::try_from(raw.lifecycle).map_err(|err| err.at("lifecycle"))?;
        let history = raw
            .history
            .map(HistoryLimitsRaw::check)
            .transpose()
            .map_err(|err| err.at("history"))?;
        OwnedResource {
            kind: raw.kind,
            tenant: raw.tenant,
            name: Arc::from(raw.name),
            uid: raw.uid,
            owner_references: raw
                .owner_references
                .map(|owners| owners.into_inner().into())
                .unwrap_or_default(),
            lifecycle,
            ttl_after_finished_ms: raw.ttl_after_finished_ms,
            cascade: raw.cascade,
            history,
        }
        .validate()
    }
}

/// Writes owner references as a JSON array.
pub(super) fn serialize_owners<S: Serializer>(
    owners: &[OwnerReference],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(owners)
}
