//! The prelude: `use taskmodel::prelude::*;` brings the headline types and traits into scope.
//!
//! It holds what nearly every user of the model names: identifiers, policies, the random
//! source trait, tasks and their attempts (runs, leases, what a call changed), routing them
//! to runners (the router, its batches, kind sets and names, picks and explanations), watch
//! and output events, bearer tokens, task and run-history queries and their pages, flows and
//! their runs, schedules and their actions, retention views, policies and collections, and
//! the facade's error types. Layer-specific detail stays in the modules
//! (the generic [`RunnerIndex`](crate::RunnerIndex) is at the root only).

pub use crate::error::{Error, Result};
pub use model_flow::{FailurePolicy, FlowRun, FlowSpec, FlowStatus, JobState, TriggerRule};
pub use model_ids::ErrorKind;
pub use model_ids::{AgentId, RunnerId, Slot, TaskId, TenantId, Uid};
pub use model_policy::{
    AdmissionPolicy, BackoffPolicy, JitterPolicy, RandomSource, RestartPolicy, SeededRandom,
};
pub use model_query::{TaskPage, TaskQuery, TaskRunPage, TaskRunQuery};
pub use model_retention::{CascadePolicy, Collection, OwnedResource, RetentionPolicy};
pub use model_schedule::{
    Action, ActionKey, ActionStatus, CronExpr, OverlapPolicy, Schedule, Trigger, Zone,
};
pub use model_selector::{LabelSelector, Labels, RunnerSelector};
pub use model_task::{
    Annotations, Applied, ApplyChanges, AttemptState, Condition, ConditionStatus, ConditionType,
    ExtensionKind, KindName, KindSet, LeaseId, ManifestMeta, ObjectMeta, OutputEvent, OwnerKind,
    OwnerReference, Pick, Precondition, RestartDecision, RouteExplanation, RouterBatch,
    RunnerRouter, Task, TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec, TaskStatus,
    TaskWatchEvent, Token,
};
