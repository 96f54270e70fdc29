//! The values the [`Store`](crate::Store)'s calls take and return: what a claim asks for
//! and gets, what a write stored, what a tick or a collection did, and stored log lines.

use chrono::{DateTime, Utc};
use taskmodel::fleet::KindSet;
/// The log lines a store takes, and their bounds, are model-fleet's (what a runner
/// uploads), re-exported so a store's caller finds them here too.
pub use taskmodel::fleet::{LogLine, LogStream, MAX_LOG_BATCH_LINES, MAX_LOG_LINE_BYTES};
use taskmodel::ids::{ActionId, FlowId, RunnerId, ScheduleId, TaskId, TenantId, Uid};
use taskmodel::schedule::{Action, Schedule};
use taskmodel::selector::Labels;
use taskmodel::task::attempt::LogKey;
use taskmodel::task::{Applied, LeaseId, RestartDecision, Task, TaskRun};

/// How a dispatched action ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ActionOutcome {
    /// It completed with this result.
    Completed(serde_json::Value),
    /// It failed for this reason.
    Failed(String),
}

/// What [`Store::finish_action`](crate::Store::finish_action) stored: the ended action and, for a completed recurring
/// one, the next.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FinishedAction {
    /// The action, Completed or Failed.
    pub action: Action,
    /// The next action of its series, pending.
    pub next: Option<Action>,
}

/// A schedule as stored: the schedule, its identity and version, and where its ticks are.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredSchedule {
    /// The schedule (its `remainingRuns` counts the ticks fired so far).
    pub schedule: Schedule,
    /// Its uid, which the actions of its ticks and the tasks it starts name.
    pub uid: Uid,
    /// Goes up by one with every write of the row: a change, a pause, a tick.
    pub resource_version: u64,
    /// Its fire times after this one are still to come: the tick fired or dropped every
    /// one before.
    pub after: DateTime<Utc>,
    /// A tick kept until the schedule's run ends (`bufferOne`).
    pub buffered: Option<DateTime<Utc>>,
    /// When [`Store::tick_schedules`](crate::Store::tick_schedules) next looks at it, to
    /// the millisecond: its next fire time, or sooner while a tick is buffered; `None`
    /// when it fires no more (paused, past `endAt`, no runs left).
    pub next_due: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its row was last written.
    pub updated_at: DateTime<Utc>,
}

/// What [`Store::tick_schedules`](crate::Store::tick_schedules) did with one due schedule.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ticked {
    /// The schedule's tenant.
    pub tenant: TenantId,
    /// The schedule.
    pub schedule: ScheduleId,
    /// Its uid: the owner reference (kind `Schedule`) of the tasks its actions start.
    pub uid: Uid,
    /// The actions stored for its ticks that start, pending, in tick order, each due at its
    /// tick plus the schedule's jitter (a buffered tick's at once); under `replace`, only
    /// the last of this call's (the others are in `replaced`).
    pub actions: Vec<Action>,
    /// How many of its ticks the overlap policy dropped.
    pub skipped: usize,
    /// Whether missed ticks older than its catch-up window were dropped.
    pub dropped: bool,
    /// A tick kept until its run ends (`bufferOne`), after this tick.
    pub buffered: Option<DateTime<Utc>>,
    /// The pending actions of its run a later tick replaced (`replace`), now Failed, this
    /// call's own included.
    pub replaced: Vec<ActionId>,
    /// The unfinished tasks of its run a later tick canceled (`replace`).
    pub canceled: Vec<TaskId>,
    /// When the tick looks at it next (`None`: it fires no more).
    pub next_due: Option<DateTime<Utc>>,
}

/// What [`Store::collect_garbage`](crate::Store::collect_garbage) wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Collected {
    /// The tasks an owner reference was removed from (each once per reference), in the
    /// order written.
    pub released: Vec<TaskId>,
    /// The tasks deleted, with their attempts, owner rows and log lines, in cleanup order.
    pub deleted_tasks: Vec<TaskId>,
    /// The flows deleted, with their job rows, in cleanup order.
    pub deleted_flows: Vec<FlowId>,
    /// How many attempts past their task's history limits were deleted, with their log
    /// lines.
    pub deleted_attempts: usize,
    /// The finished schedule actions deleted, in the order they finished.
    pub deleted_actions: Vec<ActionId>,
    /// When a kept resource's time to live runs out next: when to collect again if nothing
    /// else changes.
    pub next_expiry: Option<DateTime<Utc>>,
    /// `false` when a write found its resource changed since the view was read and the
    /// collection stopped there (what it wrote before stays written): collect again.
    pub complete: bool,
}

/// A task and its current attempt, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stored {
    /// The task.
    pub task: Task,
    /// Its current attempt; `None` before the first.
    pub attempt: Option<TaskRun>,
}

/// What a write did: the task and its current attempt as stored after it, and whether the
/// call changed them (`Unchanged` for an idempotent repeat, which writes nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change<T = ()> {
    /// The task after the call.
    pub task: Task,
    /// Its current attempt after the call.
    pub attempt: Option<TaskRun>,
    /// Whether the call changed anything, with what it decided.
    pub applied: Applied<T>,
}

/// What [`Store::create`](crate::Store::create) did with a new task.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Admitted {
    /// The task is stored, Pending.
    Created {
        /// The slot's unfinished tasks canceled to make room (`replace`).
        replaced: Vec<TaskId>,
    },
    /// The slot is busy and the task's policy is `dropIfRunning`: nothing was stored.
    Dropped {
        /// The slot's task that holds it.
        active: TaskId,
    },
}

/// Who claims, and under which lease: the runner, its labels, the kinds it runs, how many
/// attempts it runs at once, and the lease the control plane mints for the attempt.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClaimRequest {
    /// The runner.
    pub runner: RunnerId,
    /// Its labels, which a task's runner selector must match.
    pub labels: Labels,
    /// The task kinds it runs.
    pub kinds: KindSet,
    /// How many active attempts it may hold at once (`maxConcurrent`, at least 1).
    pub max_concurrent: u32,
    /// The new attempt's lease id, new within the task (a counter or 64 random bits).
    pub lease: LeaseId,
    /// When the lease expires unless a heartbeat extends it.
    pub lease_expires_at: DateTime<Utc>,
}

impl ClaimRequest {
    /// A request for a runner that runs one attempt at a time.
    pub fn new(
        runner: RunnerId,
        labels: Labels,
        kinds: KindSet,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
    ) -> Self {
        Self {
            runner,
            labels,
            kinds,
            max_concurrent: 1,
            lease,
            lease_expires_at,
        }
    }

    /// The same request for a runner that runs `max_concurrent` attempts at once.
    #[must_use]
    pub fn with_max_concurrent(self, max_concurrent: u32) -> Self {
        Self {
            max_concurrent,
            ..self
        }
    }
}

/// A claimed task: Running, with its new attempt, Leased.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Claimed {
    /// The task, Running.
    pub task: Task,
    /// The new attempt, Leased to the runner.
    pub attempt: TaskRun,
}

/// An attempt [`Store::reap`](crate::Store::reap) ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reaped {
    /// The tenant.
    pub tenant: TenantId,
    /// The task.
    pub task: TaskId,
    /// The attempt that expired.
    pub attempt: u32,
    /// What the task does next.
    pub decision: RestartDecision,
}

/// A stored log line: its key `(attempt, sequence)` and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredLogLine {
    /// The dedupe key.
    pub key: LogKey,
    /// The stream.
    pub stream: LogStream,
    /// The text.
    pub text: String,
    /// When the runner wrote it.
    pub at: DateTime<Utc>,
}
