//! Compile-time assertions that the public types can cross threads (`Send + Sync`).
//!
//! A control plane shares specs, tasks and routers between threads; if a change made one of
//! these types `!Send` or `!Sync`, the crate would stop compiling here rather than in a user's code.

use crate::{
    AdmissionPolicy, AgentId, BackoffPolicy, Error, ErrorKind, JitterPolicy, RestartPolicy,
    RunnerId, SeededRandom, Slot, TaskId,
};

const fn send_sync<T: Send + Sync>() {}

const _: () = {
    send_sync::<TaskId>();
    send_sync::<Slot>();
    send_sync::<AgentId>();
    send_sync::<RunnerId>();
    send_sync::<model_ids::IdError>();
    send_sync::<model_ids::IdKind>();
    send_sync::<RestartPolicy>();
    send_sync::<JitterPolicy>();
    send_sync::<AdmissionPolicy>();
    send_sync::<BackoffPolicy>();
    send_sync::<SeededRandom>();
    send_sync::<model_policy::PolicyError>();
    send_sync::<model_policy::BackoffSchedule<SeededRandom>>();
    send_sync::<model_selector::Labels>();
    send_sync::<model_selector::LabelSelector>();
    send_sync::<model_selector::SelectorError>();
    send_sync::<model_task::Task>();
    send_sync::<model_schedule::Schedule>();
    send_sync::<model_schedule::Action>();
    send_sync::<model_schedule::ActionKey>();
    send_sync::<model_schedule::ScheduleError>();
    send_sync::<model_task::TaskSpec>();
    send_sync::<model_task::TaskKind>();
    send_sync::<model_task::TaskStatus>();
    send_sync::<model_task::TaskPhase>();
    send_sync::<model_task::ObjectMeta>();
    send_sync::<model_task::RestartDecision>();
    send_sync::<crate::ApplyChanges>();
    send_sync::<crate::Condition>();
    send_sync::<model_task::TaskError>();
    send_sync::<crate::TaskRun>();
    send_sync::<crate::AttemptState>();
    send_sync::<crate::LeaseId>();
    send_sync::<crate::Applied<crate::RestartDecision>>();
    send_sync::<model_task::Parsed<crate::TaskSpec>>();
    send_sync::<crate::RunnerRouter>();
    send_sync::<crate::RouterBatch>();
    send_sync::<crate::KindSet>();
    send_sync::<crate::Pick>();
    send_sync::<crate::RouteExplanation>();
    send_sync::<model_fleet::RouteOutcome>();
    send_sync::<model_fleet::RunnerVerdict>();
    send_sync::<crate::RunnerIndex<model_fleet::RunnerInfo>>();
    send_sync::<crate::Snapshot<model_fleet::RunnerInfo>>();
    send_sync::<std::sync::Arc<crate::Snapshot<model_fleet::RunnerInfo>>>();
    send_sync::<crate::TaskQuery>();
    send_sync::<crate::TaskRunQuery>();
    send_sync::<crate::TaskRunPage<crate::TaskRun>>();
    send_sync::<model_query::RunContinueToken>();
    send_sync::<crate::KindName>();
    send_sync::<crate::ExtensionKind>();
    send_sync::<model_task::ExtensionSpec>();
    send_sync::<crate::TaskWatchEvent>();
    send_sync::<crate::OutputEvent>();
    send_sync::<model_task::event::WatchWindow>();
    send_sync::<crate::Token>();
    send_sync::<crate::TaskPage<crate::Task>>();
    send_sync::<model_query::QueryError>();
    send_sync::<crate::Runner>();
    send_sync::<crate::Fleet>();
    send_sync::<crate::ApiError>();
    send_sync::<crate::QueueKey>();
    send_sync::<crate::Context>();
    send_sync::<model_fleet::Decision>();
    send_sync::<crate::LogBatch>();
    send_sync::<crate::Queue>();
    send_sync::<crate::ClaimRequest<'static>>();
    send_sync::<crate::ClaimExplanation>();
    send_sync::<model_fleet::FleetError>();
    send_sync::<crate::FlowSpec>();
    send_sync::<crate::FlowGraph>();
    send_sync::<crate::FlowRun>();
    send_sync::<model_flow::FlowChanges>();
    send_sync::<model_flow::JobNames>();
    send_sync::<model_flow::FlowError>();
    send_sync::<crate::OwnedResource>();
    send_sync::<crate::RetentionPolicy>();
    send_sync::<crate::Collection<'static>>();
    send_sync::<model_retention::RetentionError>();
    send_sync::<Error>();
    send_sync::<ErrorKind>();
};
