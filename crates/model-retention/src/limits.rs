//! The bounds of every value this crate reads: names, owner references, times to live,
//! history limits and cleanup priorities (`docs/limits.md` lists them with their tests).

use model_ids::Limit;

/// The longest resource name in bytes: 253, Kubernetes' longest object name, which holds
/// any task id with an attempt number after it (`nightly-backup.9ix/12`).
pub const MAX_RESOURCE_NAME_BYTES: usize = 253;

/// The most owner references one resource may carry. Kubernetes sets no number; a task has
/// one (its flow or its schedule) and this leaves room for a few more.
pub const MAX_OWNER_REFERENCES: usize = 16;

/// The longest time to live after finishing, in milliseconds: 100 years of 365.25 days.
/// Anything longer is better said by leaving the time to live out (kept until deleted).
pub const MAX_TTL_AFTER_FINISHED_MS: u64 = 100 * 36_525 * 86_400_000 / 100;

/// The largest history limit: how many succeeded (or failed) resources one owner keeps.
pub const MAX_HISTORY_LIMIT: u32 = 10_000;

/// The largest cleanup priority (higher is deleted sooner), as in the manifests' cleanup
/// priorities: 0 to 100.
pub const MAX_CLEANUP_PRIORITY: u8 = 100;

/// The bound of a resource's `ownerReferences` ([`MAX_OWNER_REFERENCES`]).
pub(crate) enum OwnerReferences {}

impl Limit for OwnerReferences {
    const FIELD: &'static str = "ownerReferences";
    const MAX: usize = MAX_OWNER_REFERENCES;
}
