//! `StoreError`: what a store call can fail with, and its `ErrorKind`.

use taskmodel::ErrorKind;
use taskmodel::ids::{ActionId, FlowId, RunnerId, ScheduleId, TaskId, TenantId};
use taskmodel::task::TaskPhase;

/// Why a store call failed.
///
/// The variants a caller branches on: [`Conflict`](Self::Conflict) (a race was lost:
/// re-read and decide again; [`is_retryable`](Self::is_retryable)), [`Gone`](Self::Gone)
/// (a stale lease: the runner stops), [`NotFound`](Self::NotFound),
/// [`Rejected`](Self::Rejected) (the model refused the change; it carries the facade's
/// [`Error`](taskmodel::Error)), then the store's own: a value the columns cannot hold, a
/// stored row that does not read back, a schema newer than this build, and the database's
/// errors. [`kind`](Self::kind) gives the facade's [`ErrorKind`] where one fits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The write lost a race: the task's `resourceVersion` moved since it was read, the
    /// version the caller expected is not the stored one, or a unique index refused a
    /// concurrent claim. Nothing was written; re-read and decide again.
    #[error("conflict on task \"{task}\" of tenant \"{tenant}\": {reason}")]
    Conflict {
        /// The tenant.
        tenant: TenantId,
        /// The task the write was about.
        task: TaskId,
        /// What lost the race.
        reason: String,
    },
    /// The call named a lease that no longer holds (`docs/attempts.md`, "Stale leases are
    /// gone"): the runner stops its work and reports nothing more. Or it expected a uid
    /// that is not the task's: the task it meant was deleted and another has its name.
    #[error("task \"{task}\" of tenant \"{tenant}\" is gone for this call")]
    Gone {
        /// The tenant.
        tenant: TenantId,
        /// The task.
        task: TaskId,
        /// The model's reason ([`ErrorKind::Gone`]).
        #[source]
        error: Box<taskmodel::Error>,
    },
    /// No task with this id in this tenant.
    #[error("task \"{task}\" of tenant \"{tenant}\" not found")]
    NotFound {
        /// The tenant.
        tenant: TenantId,
        /// The task asked for.
        task: TaskId,
    },
    /// A task with this id, or with this task's uid, already exists in this tenant.
    #[error("task \"{task}\" of tenant \"{tenant}\" already exists (its name or its uid is taken)")]
    Exists {
        /// The tenant.
        tenant: TenantId,
        /// The task.
        task: TaskId,
    },
    /// The task belongs to another tenant than the call's: a store call never writes across
    /// tenants.
    #[error(
        "task \"{task}\" belongs to tenant \"{found}\", not to tenant \"{tenant}\" of the call"
    )]
    TenantMismatch {
        /// The call's tenant.
        tenant: TenantId,
        /// The task.
        task: TaskId,
        /// The tenant in the task's metadata.
        found: TenantId,
    },
    /// [`Store::create`](crate::Store::create) takes new tasks only: pending, never leased.
    #[error("task \"{task}\" of tenant \"{tenant}\" is not new: it is {phase} or has run")]
    NotNew {
        /// The tenant.
        tenant: TenantId,
        /// The task.
        task: TaskId,
        /// Its phase.
        phase: TaskPhase,
    },
    /// The model refused the change (an invalid transition, a different result for an
    /// attempt that has one, a restart not yet due, an invalid value...); nothing was
    /// written. [`kind`](Self::kind) is the model error's kind.
    #[error("the model refused the change to task \"{task}\" of tenant \"{tenant}\"")]
    Rejected {
        /// The tenant.
        tenant: TenantId,
        /// The task.
        task: TaskId,
        /// The model's error.
        #[source]
        error: Box<taskmodel::Error>,
    },
    /// No action with this id in this tenant.
    #[error("action {action} of tenant \"{tenant}\" not found")]
    ActionNotFound {
        /// The tenant.
        tenant: TenantId,
        /// The action asked for.
        action: ActionId,
    },
    /// An action with this id already exists in this tenant.
    #[error("action {action} of tenant \"{tenant}\" already exists")]
    ActionExists {
        /// The tenant.
        tenant: TenantId,
        /// The action.
        action: ActionId,
    },
    /// The action's stored state moved since it was read (another tick loop or recovery
    /// wrote it first). Nothing was written; re-read and decide again.
    #[error("conflict on action {action} of tenant \"{tenant}\": it is no longer {expected}")]
    ActionConflict {
        /// The tenant.
        tenant: TenantId,
        /// The action.
        action: ActionId,
        /// The state it was read in.
        expected: &'static str,
    },
    /// The model refused the action's change (a move its state does not allow, a result too
    /// long); nothing was written. [`kind`](Self::kind) is the model error's kind.
    #[error("the model refused the change to action {action} of tenant \"{tenant}\"")]
    ActionRejected {
        /// The tenant.
        tenant: TenantId,
        /// The action.
        action: ActionId,
        /// The model's error.
        #[source]
        error: Box<taskmodel::Error>,
    },
    /// No flow with this name in this tenant.
    #[error("flow \"{flow}\" of tenant \"{tenant}\" not found")]
    FlowNotFound {
        /// The tenant.
        tenant: TenantId,
        /// The flow asked for.
        flow: FlowId,
    },
    /// A flow with this name, or with this flow's uid, already exists in this tenant.
    #[error("flow \"{flow}\" of tenant \"{tenant}\" already exists (its name or its uid is taken)")]
    FlowExists {
        /// The tenant.
        tenant: TenantId,
        /// The flow.
        flow: FlowId,
    },
    /// The flow's `resourceVersion` moved since it was read (another job's end advanced it
    /// first). Nothing was written; re-read and decide again.
    #[error("conflict on flow \"{flow}\" of tenant \"{tenant}\": {reason}")]
    FlowConflict {
        /// The tenant.
        tenant: TenantId,
        /// The flow.
        flow: FlowId,
        /// What lost the race.
        reason: String,
    },
    /// The model refused the flow's change (a job's end its state does not allow, a job's
    /// task the model cannot make); nothing was written. [`kind`](Self::kind) is the model
    /// error's kind.
    #[error("the model refused the change to flow \"{flow}\" of tenant \"{tenant}\" at {field}")]
    FlowRejected {
        /// The tenant.
        tenant: TenantId,
        /// The flow.
        flow: FlowId,
        /// Where (`jobs.<name>`, `spec`).
        field: String,
        /// The model's error.
        #[source]
        error: Box<taskmodel::Error>,
    },
    /// No schedule with this name in this tenant.
    #[error("schedule \"{schedule}\" of tenant \"{tenant}\" not found")]
    ScheduleNotFound {
        /// The tenant.
        tenant: TenantId,
        /// The schedule asked for.
        schedule: ScheduleId,
    },
    /// A schedule with this name, or with this schedule's uid, already exists in this tenant.
    #[error(
        "schedule \"{schedule}\" of tenant \"{tenant}\" already exists (its name or its uid is taken)"
    )]
    ScheduleExists {
        /// The tenant.
        tenant: TenantId,
        /// The schedule.
        schedule: ScheduleId,
    },
    /// The schedule's `resourceVersion` or uid is not the one the caller expected, or a
    /// tick loop stored one of its ticks first. Nothing was written; re-read and decide
    /// again.
    #[error("conflict on schedule \"{schedule}\" of tenant \"{tenant}\": {reason}")]
    ScheduleConflict {
        /// The tenant.
        tenant: TenantId,
        /// The schedule.
        schedule: ScheduleId,
        /// What lost the race.
        reason: String,
    },
    /// No runner with this id in this tenant.
    #[error("runner \"{runner}\" of tenant \"{tenant}\" not found")]
    RunnerNotFound {
        /// The tenant.
        tenant: TenantId,
        /// The runner asked for.
        runner: RunnerId,
    },
    /// The model refused the runner's change (a register while the record is alive, a
    /// heartbeat of an offline runner); nothing was written. [`kind`](Self::kind) is the
    /// model error's kind.
    #[error("the model refused the change to runner \"{runner}\" of tenant \"{tenant}\"")]
    RunnerRejected {
        /// The tenant.
        tenant: TenantId,
        /// The runner.
        runner: RunnerId,
        /// The model's error.
        #[source]
        error: Box<taskmodel::Error>,
    },
    /// The database refused the transaction for now: a lock it gave up waiting for, a
    /// deadlock, a serialization failure. Nothing was written; retry.
    #[error("the database is busy: {reason}")]
    Busy {
        /// What the database said.
        reason: String,
    },
    /// A value the store's columns cannot hold (a time outside 1677-09-21 to 2262-04-11 for
    /// a column that orders, a number above `i64::MAX`).
    #[error("{field} is out of the store's range: {value}")]
    OutOfRange {
        /// The field, as on the wire (`metadata.createdAt`).
        field: &'static str,
        /// The value, as text.
        value: String,
    },
    /// Garbage collection needs one view of more than [`MAX_GC_VIEW`](crate::MAX_GC_VIEW)
    /// resources: the tenant's ownership graph (its flows, its schedules and the tasks that
    /// name an owner or are named as one), which model-retention decides on as a whole (an owner with
    /// everything it owns, what it owns with every owner it names), or one task's stored
    /// attempts, which its history limits rank together. Nothing was written by that pass;
    /// delete or orphan some of them, or collect with a store that holds fewer.
    #[error(
        "garbage collection of tenant \"{tenant}\" needs one view of {what}, more than {max} resources"
    )]
    GcViewTooLarge {
        /// The tenant.
        tenant: TenantId,
        /// What the view holds.
        what: String,
        /// The most one view holds ([`MAX_GC_VIEW`](crate::MAX_GC_VIEW)).
        max: usize,
    },
    /// A stored row does not read back as a valid value (written by something else, or
    /// damaged).
    #[error("stored {what} does not read back: {reason}")]
    Corrupt {
        /// What was read (`task "a" of tenant "t"`).
        what: String,
        /// Why it does not read.
        reason: String,
    },
    /// The database was written by a newer build: its schema version is above the newest
    /// this build knows. Nothing was changed; use a newer build.
    #[error(
        "the database schema is version {found}, newer than version {supported} this build knows"
    )]
    SchemaTooNew {
        /// The version the database records.
        found: i64,
        /// The newest version this build knows ([`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
        supported: i64,
    },
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed (or the connection did).
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
}

impl StoreError {
    /// The facade's [`ErrorKind`] of this error, where one fits: `Conflict` for a lost race
    /// and an existing id, `Gone` for a stale lease, the model's own kind for a refused
    /// change, `Invalid` for a value out of range; `None` for a missing task and the
    /// store's and database's own failures.
    #[must_use]
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Self::Conflict { .. }
            | Self::Exists { .. }
            | Self::ActionExists { .. }
            | Self::ActionConflict { .. }
            | Self::FlowExists { .. }
            | Self::FlowConflict { .. }
            | Self::ScheduleExists { .. }
            | Self::ScheduleConflict { .. }
            | Self::Busy { .. } => Some(ErrorKind::Conflict),
            Self::Gone { .. } => Some(ErrorKind::Gone),
            Self::Rejected { error, .. }
            | Self::ActionRejected { error, .. }
            | Self::FlowRejected { error, .. }
            | Self::RunnerRejected { error, .. } => Some(error.kind()),
            Self::OutOfRange { .. } | Self::NotNew { .. } | Self::TenantMismatch { .. } => {
                Some(ErrorKind::Invalid)
            }
            Self::GcViewTooLarge { .. } => Some(ErrorKind::Invalid),
            Self::NotFound { .. }
            | Self::ActionNotFound { .. }
            | Self::FlowNotFound { .. }
            | Self::ScheduleNotFound { .. }
            | Self::RunnerNotFound { .. }
            | Self::Corrupt { .. }
            | Self::SchemaTooNew { .. }
            | Self::Sqlite(_)
            | Self::Postgres(_) => None,
        }
    }

    /// Whether the same call may succeed if made again after a re-read: a lost race
    /// ([`Conflict`](Self::Conflict), [`ActionConflict`](Self::ActionConflict),
    /// [`FlowConflict`](Self::FlowConflict), [`ScheduleConflict`](Self::ScheduleConflict)) or a
    /// busy database ([`Busy`](Self::Busy)). A refused
    /// change, a gone lease or a missing task stays so.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Conflict { .. }
                | Self::ActionConflict { .. }
                | Self::FlowConflict { .. }
                | Self::ScheduleConflict { .. }
                | Self::Busy { .. }
        )
    }
}
