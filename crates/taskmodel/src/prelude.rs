//! The prelude: `use taskmodel::prelude::*;` brings the headline types and traits into scope.
//!
//! It holds what nearly every user of the model names: identifiers, policies, the random
//! source trait, and the facade's error types. Layer-specific detail stays in the modules.

pub use crate::error::{Error, ErrorKind, Result};
pub use model_ids::{AgentId, RunnerId, Slot, TaskId};
pub use model_policy::{
    AdmissionPolicy, BackoffPolicy, JitterPolicy, RandomSource, RestartPolicy, SeededRandom,
};
pub use model_selector::{LabelSelector, Labels, RunnerSelector};
pub use model_task::{
    ObjectMeta, RestartDecision, Task, TaskKind, TaskPhase, TaskSpec, TaskStatus,
};
