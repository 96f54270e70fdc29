//! The `Store` trait, the one interface both engines implement (the values its calls take
//! and return are in `values.rs`).

use chrono::{DateTime, Utc};
use taskmodel::RandomSource;
use taskmodel::fleet::{LivenessTtl, LogLine, Runner};
use taskmodel::flow::{FlowSpec, JobResult};
use taskmodel::ids::{ActionId, FlowId, RunnerId, ScheduleId, TaskId, TenantId, Uid};
use taskmodel::query::{TaskPage, TaskQuery};
use taskmodel::schedule::{Action, Schedule};
use taskmodel::task::attempt::LogKey;
use taskmodel::task::{
    Applied, ApplyChanges, AttemptResult, LeaseId, Precondition, RestartDecision, Task,
    TaskManifest, TaskRun,
};

use crate::error::StoreError;
use crate::flows::{FlowCursor, FlowSummary, StoredFlow};
use crate::values::{
    ActionOutcome, Admitted, Change, ClaimRequest, Claimed, Collected, FinishedAction, Reaped,
    Stored, StoredLogLine, StoredSchedule, Ticked,
};

/// How many pending tasks of the runner's kinds one claim looks at, in queue order, before
/// it answers that nothing is claimable: a runner that fits a queued task finds it when
/// fewer than this many tasks of its kinds that it does not fit come first.
///
/// Tasks of other kinds are passed over in SQL, on the queue index, and not counted;
/// tasks whose runner selector the runner's labels do not match, or whose slot is busy,
/// are passed over by reading their columns, never their documents (each distinct
/// selector is parsed once a claim). Bounds a claim's time (`docs/performance.md`, "Claims
/// past the head": a claim that reads the whole bound took about 0.4 s on SQLite, with
/// the write lock held, and 0.6 s on PostgreSQL); a claim locks only the task it takes
/// and the head of the queue it read first.
pub const MAX_CLAIM_SCAN: usize = 100_000;

/// The most tasks one [`Store::import`] call stores.
pub const MAX_IMPORT: usize = 10_000;

/// The most attempts or log lines one read returns.
pub const MAX_READ_PAGE: u32 = 1_000;

/// A store of tasks, their attempts and their log lines, flows, runners, and schedules and
/// their actions: the model on a real database.
///
/// Every write reads the task and its current attempt, asks the model for the change
/// (`lease_attempt`, `start_attempt`, `report_result`...), and writes the pair back in one
/// transaction with a compare-and-swap on the task's `resourceVersion`, so no acknowledged
/// change is lost to a racing write (`docs/attempts.md`, "The store contract"). A call the
/// model answers `Unchanged` (an idempotent repeat) writes nothing. A lost race is
/// [`StoreError::Conflict`]; re-read and call again.
///
/// Every call is scoped to a tenant: a task of another tenant does not exist for it. Times
/// are arguments (`now`), as in the model, so a test is reproducible; so is the random
/// source a restart's backoff draws from.
///
/// Both engines, [`SqliteStore`](crate::SqliteStore) and
/// [`PostgresStore`](crate::PostgresStore), implement it and pass the same conformance
/// suite. One value holds one connection: give each thread its own.
///
/// ```no_run
/// use chrono::{DateTime, TimeDelta};
/// use taskmodel::ids::{ActionId, RunnerId, TaskId, TenantId, Uid};
/// use taskmodel::fleet::KindSet;
/// use taskmodel::task::{AttemptOutcome, AttemptResult, LeaseId, SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec};
/// use taskmodel::{Labels, SeededRandom};
/// use taskstore::{ClaimRequest, SqliteStore, Store};
///
/// let mut store = SqliteStore::open("tasks.db")?;
/// let tenant = TenantId::new("acme")?;
/// let now = DateTime::from_timestamp(1_767_225_600, 0).ok_or("a time")?; // the caller's clock
/// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
/// let manifest = TaskManifest::named(TaskId::new("job-1")?, TaskSpec::builder("lane", kind, 1_000).build()?);
/// // The caller mints the uid (a random UUID as a rule).
/// let task = Task::create(manifest, tenant.clone(), Uid::from_u128(0x5eed), now)?;
/// store.create(&tenant, &task, now)?;
///
/// let lease = LeaseId::new(1);
/// let request = ClaimRequest::new(RunnerId::new("r-1")?, Labels::new(), KindSet::ALL, lease, now + TimeDelta::seconds(30));
/// let claimed = store.claim(&tenant, &request, now)?.expect("a task is queued");
/// store.start(&tenant, claimed.task.id(), lease, now)?;
/// let done = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
/// store.report(&tenant, claimed.task.id(), lease, done, &mut SeededRandom::new(1), now)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Store {
    /// Creates `task`, which must be new (Pending, no attempt yet), after its slot's
    /// admission policy: a free slot admits it; a busy one drops it (`dropIfRunning`),
    /// queues it (`queue`), or cancels the slot's unfinished tasks in the same transaction
    /// and admits it (`replace`). An id or a uid already used in the tenant is
    /// [`StoreError::Exists`]; a task of another tenant than `tenant` is
    /// [`StoreError::TenantMismatch`].
    fn create(
        &mut self,
        tenant: &TenantId,
        task: &Task,
        now: DateTime<Utc>,
    ) -> Result<Admitted, StoreError>;

    /// Stores new tasks (pending, never leased) in one transaction, as they are: a bulk load
    /// or a restore, without the admission policy [`create`](Self::create) applies. At most
    /// [`MAX_IMPORT`] a call, all of `tenant`; an id or a uid already used is
    /// [`StoreError::Exists`] and nothing is stored. PostgreSQL's planner statistics of the tasks are refreshed with it, so claims
    /// and listings walk their indexes at once.
    fn import(&mut self, tenant: &TenantId, tasks: &[Task]) -> Result<(), StoreError>;

    /// Applies `manifest`, the task's new desired state (its name says which task), as the
    /// model's `Task::apply` decides: labels, annotations, owner references and spec become
    /// the manifest's; the version goes up by one when anything differs and the generation
    /// when the spec does; nothing differs is `Unchanged` and writes nothing. Only at the
    /// version and uid `expected` names, when it names them: a stale version is
    /// [`StoreError::Conflict`], a uid that is not the task's [`StoreError::Gone`]; a spec
    /// change the model refuses (a task that has ended, a slot while an attempt runs) is
    /// [`StoreError::Rejected`]. One transaction, with a compare-and-swap on
    /// `resourceVersion`.
    fn apply(
        &mut self,
        tenant: &TenantId,
        manifest: TaskManifest,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<Change<ApplyChanges>, StoreError>;

    /// The task and its current attempt, or [`StoreError::NotFound`].
    fn get(&mut self, tenant: &TenantId, id: &TaskId) -> Result<Stored, StoreError>;

    /// One page of the tasks that `query` selects in its tenant ([`TaskQuery::tenant`]), in
    /// its order: a keyset page (`ORDER BY` and a row-value `WHERE` on an index, never an
    /// offset) with the same continuation tokens as the model's reference evaluation.
    fn list(&mut self, query: &TaskQuery) -> Result<TaskPage, StoreError>;

    /// The task's attempts numbered after `after` (from the first when `None`), in order,
    /// at most `limit` (1 to [`MAX_READ_PAGE`]).
    fn attempts(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        after: Option<u32>,
        limit: u32,
    ) -> Result<Vec<TaskRun>, StoreError>;

    /// Deletes a task that is not running, with its attempts, owner references and log
    /// lines; only at the version and uid `expected` names, when it names them (a uid that
    /// is not the task's is [`StoreError::Gone`]: the task the caller meant was deleted).
    fn delete(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        expected: Precondition,
    ) -> Result<(), StoreError>;

    /// Leases the first task in queue order (`priority DESC, queuedAt, id`) that the
    /// runner may take: due, a kind it supports, a runner selector its labels match, a
    /// slot with no other task running; the runner must have a free place
    /// (`maxConcurrent`). `None` when nothing is claimable (among the first
    /// [`MAX_CLAIM_SCAN`] pending tasks of its kinds). Concurrent claims take different
    /// tasks.
    fn claim(
        &mut self,
        tenant: &TenantId,
        request: &ClaimRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError>;

    /// The runner starts its attempt (`start_attempt`).
    fn start(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError>;

    /// The runner extends its lease (`heartbeat_attempt`).
    fn heartbeat(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError>;

    /// The runner reports how its attempt ended (`report_result`); the restart decision
    /// draws from `rng`.
    fn report(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        rng: &mut dyn RandomSource,
        now: DateTime<Utc>,
    ) -> Result<Change<RestartDecision>, StoreError>;

    /// [`report`](Self::report) for a flow job's task, with the result the job reported
    /// (model-flow's bounded `JobResult`): when this attempt's end ends the job (a final
    /// decision, not a restart), the run records the result with the job's end
    /// (`FlowRun::end_attempt`) in the same transaction, and [`flow`](Self::flow) returns
    /// it ([`FlowJobStatus::result`](crate::FlowJobStatus::result), `FlowRun::result`). A
    /// result that would take the flow's results past model-flow's `MAX_FLOW_RESULT_BYTES`
    /// is [`StoreError::FlowRejected`] and nothing is written. A result with a restart, or
    /// for a task no flow's job names, is dropped, as the model drops it.
    #[allow(
        clippy::too_many_arguments,
        reason = "report's arguments and the job's result"
    )]
    fn report_job(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        job_result: JobResult,
        rng: &mut dyn RandomSource,
        now: DateTime<Utc>,
    ) -> Result<Change<RestartDecision>, StoreError>;

    /// Cancels the task: its active attempt goes to Cancelling (cancel intent wins), a
    /// task waiting for a restart or never leased is canceled at once (`cancel_attempt`,
    /// `cancel`). Only at the version and uid `expected` names, when it names them (a uid
    /// that is not the task's is [`StoreError::Gone`]).
    fn cancel(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError>;

    /// Ends at most `limit` attempts, of any tenant, whose lease expired at or before `now`
    /// (`expire_attempt`, each in its own transaction), soonest expiry first.
    fn reap(
        &mut self,
        now: DateTime<Utc>,
        limit: u32,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<Reaped>, StoreError>;

    /// The tenant's tasks that name `owner` (a flow's, a schedule's or a task's uid) among
    /// their owner references, in id order after `after` (from the first when `None`), at
    /// most `limit` (1 to [`MAX_READ_PAGE`]): what a cascade reads.
    fn owned(
        &mut self,
        tenant: &TenantId,
        owner: Uid,
        after: Option<&TaskId>,
        limit: u32,
    ) -> Result<Vec<Task>, StoreError>;

    /// Finished tasks of any tenant whose `ttlAfterFinishedMs` ran out at or before `now`
    /// (`finishedAt` plus the TTL), soonest first, at most `limit` (1 to
    /// [`MAX_READ_PAGE`]): what garbage collection looks at. Deleting one with
    /// [`delete`](Self::delete) and a [`Precondition`] naming its uid and version never
    /// reaches a task created under its name since.
    fn ttl_expired(&mut self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Task>, StoreError>;

    /// Creates a flow under `uid` (which the caller mints) and its run (`FlowRun::new`), and
    /// makes a task of each job ready at once, in one transaction. A job's task is named
    /// `<flow>.<job>`, carries the flow's labels and the job's spec with the flow's
    /// environment merged in (`FlowSpec::task_spec`), names the flow as its controlling
    /// owner, and is queued as it is (the slot's admission policy is not asked: the flow
    /// decides when its jobs run). From then on, a job's task that reaches a final phase
    /// (by [`report`](Self::report), [`cancel`](Self::cancel) or [`reap`](Self::reap))
    /// moves the run on in its own transaction (`FlowRun::end_attempt` with the task's
    /// phase): dependents whose rule holds become tasks, the others are skipped, and the
    /// flow's version goes up by one (a compare-and-swap: a lost race is
    /// [`StoreError::FlowConflict`] and the task's write is undone with it). A name or a uid
    /// already used in the tenant, or a job's task name already taken, is
    /// [`StoreError::FlowExists`] or [`StoreError::Exists`] and nothing is stored.
    fn create_flow(
        &mut self,
        tenant: &TenantId,
        flow: &FlowSpec,
        uid: Uid,
        now: DateTime<Utc>,
    ) -> Result<StoredFlow, StoreError>;

    /// Cancels the flow in one transaction (`FlowRun::cancel`): every job not started is
    /// skipped, and each running job's task is canceled as [`cancel`](Self::cancel) does:
    /// one never leased or waiting for a restart at once (its job ends canceled now), one
    /// whose attempt runs by cancel intent (its job ends when the runner reports). Canceling
    /// again changes nothing more. Returns the flow as stored after it.
    fn cancel_flow(
        &mut self,
        tenant: &TenantId,
        name: &FlowId,
        now: DateTime<Utc>,
    ) -> Result<StoredFlow, StoreError>;

    /// The flow with its run and each job's state, task and result, or
    /// [`StoreError::FlowNotFound`].
    fn flow(&mut self, tenant: &TenantId, name: &FlowId) -> Result<StoredFlow, StoreError>;

    /// The tenant's flows in creation order (oldest first, then by name) after `after`
    /// (from the first when `None`; [`FlowSummary::cursor`] of a page's last flow gives
    /// the next page), at most `limit` (1 to [`MAX_READ_PAGE`]): a keyset page on the
    /// flows' creation index, each flow's columns without its documents. A flow that
    /// exists for the whole listing is returned exactly once while others come and go.
    fn flows(
        &mut self,
        tenant: &TenantId,
        after: Option<&FlowCursor>,
        limit: u32,
    ) -> Result<Vec<FlowSummary>, StoreError>;

    /// Registers `runner` (model-fleet's `Runner::register` against the record stored under
    /// its id, if any): online, last seen at `now`, with its labels, kinds and capacity
    /// (`maxConcurrent`). A record still alive (within `ttl`) and not offline is
    /// [`StoreError::RunnerRejected`] (`AlreadyRegistered`); a runner that restarted
    /// registers again once its record is stale or offline.
    fn register_runner(
        &mut self,
        tenant: &TenantId,
        runner: Runner,
        ttl: LivenessTtl,
        now: DateTime<Utc>,
    ) -> Result<Runner, StoreError>;

    /// The runner was seen at `now` (`Runner::heartbeat`): `lastSeenAt` moves forward,
    /// never back (`Unchanged`, nothing written). An offline runner is
    /// [`StoreError::RunnerRejected`]: it registers again.
    fn runner_heartbeat(
        &mut self,
        tenant: &TenantId,
        id: &RunnerId,
        now: DateTime<Utc>,
    ) -> Result<Applied, StoreError>;

    /// Drains the runner (`Runner::drain`): it finishes what it holds and
    /// [`claim_as`](Self::claim_as) gives it nothing new.
    fn drain_runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<Applied, StoreError>;

    /// Removes the runner's record, or [`StoreError::RunnerNotFound`]. Attempts it holds
    /// stay until they end or their leases expire.
    fn deregister_runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<(), StoreError>;

    /// The runner's record, or [`StoreError::RunnerNotFound`].
    fn runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<Runner, StoreError>;

    /// The tenant's runners in id order after `after` (from the first when `None`), at most
    /// `limit` (1 to [`MAX_READ_PAGE`]).
    fn runners(
        &mut self,
        tenant: &TenantId,
        after: Option<&RunnerId>,
        limit: u32,
    ) -> Result<Vec<Runner>, StoreError>;

    /// [`claim`](Self::claim) as the registered runner `runner`, with the labels, kinds and
    /// capacity of its record: `None` when it takes nothing new at `now` (draining,
    /// offline, or not seen within `ttl`: `Runner::free_capacity`) or nothing is
    /// claimable; [`StoreError::RunnerNotFound`] when it is not registered.
    fn claim_as(
        &mut self,
        tenant: &TenantId,
        runner: &RunnerId,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        ttl: LivenessTtl,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError>;

    /// Garbage collection of the tenant at `now`: model-retention's `collect` decides under
    /// its default policy (`docs/retention.md`) and the store writes what it decided, at
    /// most `batch` writes (1 to [`MAX_GC_BATCH`](crate::MAX_GC_BATCH)) per transaction,
    /// each at the uid and version (or state) it read. Four passes, each on views whose
    /// decisions depend on nothing outside them, so a tenant of any size is collected:
    /// attempts past their task's history limits (with their log lines), finished actions
    /// a day after they end, finished standalone tasks (no owner, owning nothing) in pages,
    /// and the ownership graph (every flow and schedule, every task that names an owner or
    /// is named as one) in one snapshot of at most [`MAX_GC_VIEW`](crate::MAX_GC_VIEW), beyond which
    /// that pass is [`StoreError::GcViewTooLarge`]: first the releases (an owner reference
    /// removed from a task that stays, with `Release::task_manifest` and `Task::apply`),
    /// then the deletions in cleanup order (a task with its attempts, owner rows and log
    /// lines; a flow with its job rows). A resource changed since it was read stops its
    /// pass there ([`Collected::complete`] is `false`; what was written stays): collect
    /// again.
    fn collect_garbage(
        &mut self,
        tenant: &TenantId,
        now: DateTime<Utc>,
        batch: u32,
    ) -> Result<Collected, StoreError>;

    /// Stores a new action (a schedule's tick or a webhook delivery, as the model made it).
    /// An id already used in the tenant is [`StoreError::ActionExists`].
    fn add_action(&mut self, tenant: &TenantId, action: &Action) -> Result<(), StoreError>;

    /// The action, or [`StoreError::ActionNotFound`].
    fn action(&mut self, tenant: &TenantId, id: ActionId) -> Result<Action, StoreError>;

    /// Fires the tenant's due actions: the pending ones due at or before `now` (to the
    /// millisecond, as `Action::is_due`), in `(due, id)` order, at most `limit` (1 to
    /// [`MAX_READ_PAGE`]), each moved to Running (`Action::start`) and committed before this
    /// returns them, so the caller dispatches only what is written Running: a crash after
    /// the commit never fires one twice. Concurrent callers fire different actions
    /// (PostgreSQL skips rows another holds; SQLite writers queue).
    fn fire_due(
        &mut self,
        tenant: &TenantId,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Action>, StoreError>;

    /// Ends a running action: Completed with its result or Failed with a reason
    /// (`Action::complete`, `Action::fail`). A completed recurring action's next one
    /// (`Action::next_recurring`, under `next_id`, which the caller mints) is stored in the
    /// same transaction. An action not running is [`StoreError::ActionRejected`].
    fn finish_action(
        &mut self,
        tenant: &TenantId,
        id: ActionId,
        outcome: ActionOutcome,
        next_id: ActionId,
        now: DateTime<Utc>,
    ) -> Result<FinishedAction, StoreError>;

    /// Startup recovery: the running actions of every tenant last updated more than
    /// `max_age_ms` before `now` (longer than any dispatch takes) become Failed
    /// (`Action::recover`), at most `limit` (1 to [`MAX_READ_PAGE`]) in one transaction;
    /// returns how many. Call again until it returns fewer than `limit`.
    fn recover_actions(
        &mut self,
        now: DateTime<Utc>,
        max_age_ms: u64,
        limit: u32,
    ) -> Result<usize, StoreError>;

    /// Stores a new schedule under its name, its fire times counted after `now`, at
    /// `resourceVersion` 1. `uid` (the caller mints it) is what its ticks' actions and the
    /// tasks it starts name. A name or a uid already used in the tenant is
    /// [`StoreError::ScheduleExists`].
    fn create_schedule(
        &mut self,
        tenant: &TenantId,
        schedule: &Schedule,
        uid: Uid,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError>;

    /// The schedule, or [`StoreError::ScheduleNotFound`].
    fn schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
    ) -> Result<StoredSchedule, StoreError>;

    /// The tenant's schedules in name order after `after` (from the first when `None`), at
    /// most `limit` (1 to [`MAX_READ_PAGE`]): a keyset page on the primary key.
    fn schedules(
        &mut self,
        tenant: &TenantId,
        after: Option<&ScheduleId>,
        limit: u32,
    ) -> Result<Vec<StoredSchedule>, StoreError>;

    /// Replaces the stored schedule of the same name with `schedule` (its uid, its place
    /// among its fire times and a buffered tick stay) if `expected` holds (the
    /// `resourceVersion` and uid the caller read, each when given), else
    /// [`StoreError::ScheduleConflict`]; the version goes up by one.
    fn update_schedule(
        &mut self,
        tenant: &TenantId,
        schedule: &Schedule,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError>;

    /// Pauses the schedule (it fires nothing; `Schedule::set_paused`) or resumes it, as
    /// [`update_schedule`](Self::update_schedule) checks and writes. A resumed schedule's
    /// fire times missed while paused go through its catch-up window at the next tick.
    fn pause_schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
        paused: bool,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError>;

    /// Deletes the schedule and its pending actions if `expected` holds, else
    /// [`StoreError::ScheduleConflict`]; its running actions and the tasks it started stay
    /// (garbage collection releases a gone owner).
    fn delete_schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
        expected: Precondition,
    ) -> Result<(), StoreError>;

    /// The schedule tick at `now`, in one transaction: the due schedules of every tenant,
    /// at most `limit` (1 to [`MAX_READ_PAGE`]) in due order (PostgreSQL skips rows another
    /// tick holds; SQLite writers queue), each asked what its fire times since the last
    /// tick do. Its catch-up window (`Schedule::catch_up`) drops those too old and keeps at
    /// most `MAX_CATCHUP_TICKS`; each kept one counts against `remainingRuns` and goes by
    /// the overlap policy (`OverlapPolicy::decide`), its run active while an action of the
    /// schedule is pending or running or a task it owns is unfinished: a tick that starts
    /// is stored as a pending action due at the tick plus the schedule's jitter (drawn from
    /// `rng`, as the action's id is), labeled with the schedule's name; `bufferOne` keeps
    /// one tick on the row, which starts at the first tick after the run ends; `replace`
    /// fails the schedule's pending actions and cancels its unfinished tasks first. The row
    /// moves past the ticks with its version one up, so two ticks never fire one tick
    /// twice (the index of schedules and ticks on `actions` refuses it too).
    ///
    /// Dispatch as for every action: [`fire_due`](Self::fire_due), then create the task
    /// with an owner reference to the schedule (kind `Schedule`, its [`Ticked::uid`]),
    /// then [`finish_action`](Self::finish_action).
    fn tick_schedules(
        &mut self,
        now: DateTime<Utc>,
        limit: u32,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<Ticked>, StoreError>;

    /// Stores the lines of the current lease holder's attempt (`check_lease` first); a line
    /// whose `(attempt, sequence)` is stored already is dropped. Returns how many were new.
    /// At most [`MAX_LOG_BATCH_LINES`](crate::MAX_LOG_BATCH_LINES) lines, each at most
    /// [`MAX_LOG_LINE_BYTES`](crate::MAX_LOG_LINE_BYTES) as its [`LogLine`] guarantees.
    fn append_logs(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        lines: &[LogLine],
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError>;

    /// The task's log lines after `after` (from the first when `None`) in `(attempt,
    /// sequence)` order, at most `limit` (1 to [`MAX_READ_PAGE`]).
    fn logs(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        after: Option<LogKey>,
        limit: u32,
    ) -> Result<Vec<StoredLogLine>, StoreError>;
}
