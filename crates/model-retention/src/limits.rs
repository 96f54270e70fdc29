//! The bounds of every value this crate reads: names, owner references, times to live,
//! history limits and cleanup priorities (`docs/limits.md` lists them with their tests).

use model_ids::Limit;

/// The longest resource name in bytes: 267, the longest task id
/// ([`TASK_ID_MAX_LEN`](model_ids::TASK_ID_MAX_LEN)) with `/` and an attempt number of up to
/// ten digits after it (`nightly-backup.9ix/12`), so every task's and every attempt's view
/// has a name.
pub const MAX_RESOURCE_NAME_BYTES: usize = model_ids::TASK_ID_MAX_LEN + 1 + 10;

/// The most owner references one resource may carry: model-task's rule for a task's
/// metadata, so a task's references always fit its view.
pub use model_task::task::MAX_OWNER_REFERENCES;

/// The longest time to live after finishing, in milliseconds: model-task's rule for a
/// task's `ttlAfterFinishedMs`, so every task's time to live fits its view, and the same
/// bound for every kind and rule. Anything longer is better said by leaving the time to
/// live out (kept until deleted).
pub use model_task::spec::MAX_TTL_AFTER_FINISHED_MS;

/// The largest history limit: how many succeeded (or failed) resources one owner keeps;
/// model-schedule's rule for a schedule's `successfulHistoryLimit` and `failedHistoryLimit`,
/// so every schedule's limits fit its view, and the same bound for every owner and rule.
pub use model_schedule::MAX_HISTORY_LIMIT;

/// The largest cleanup priority (higher is deleted sooner), as in the manifests' cleanup
/// priorities: 0 to 100.
pub const MAX_CLEANUP_PRIORITY: u8 = 100;

/// The bound of a resource's `ownerReferences` ([`MAX_OWNER_REFERENCES`]).
pub(crate) enum OwnerReferences {}

impl Limit for OwnerReferences {
    const FIELD: &'static str = "ownerReferences";
    const MAX: usize = MAX_OWNER_REFERENCES;
}
