//! `Queryable` and `QueryableRun`: the few fields of a task, and of an attempt, a query
//! reads, so evaluation is not tied to one type.

use std::{rc::Rc, sync::Arc};

use chrono::{DateTime, Utc};
use model_ids::{RunnerId, Slot, TaskId, TenantId};
use model_selector::Labels;
use model_task::{AttemptState, Task, TaskPhase, TaskRun};

/// What a [`TaskQuery`](crate::TaskQuery) reads from a task: its tenant (the query's scope),
/// its sort key (`created_at`, `id`) and its filter fields.
///
/// Implemented for [`Task`], and for references and smart pointers to
/// anything that implements it, so a query can evaluate `&[Task]`, `Vec<Arc<Task>>` or a
/// store's own row type without copying tasks.
///
/// Ids must be unique among the items of one listing: the key `(created_at, id)` is then
/// unique, which keyset pagination relies on.
pub trait Queryable {
    /// The tenant the task belongs to.
    fn tenant(&self) -> &TenantId;
    /// The task's id (second part of the sort key).
    fn id(&self) -> &TaskId;
    /// When the task was created (first part of the sort key).
    fn created_at(&self) -> DateTime<Utc>;
    /// When the task last changed.
    fn updated_at(&self) -> DateTime<Utc>;
    /// The slot the task runs in.
    fn slot(&self) -> &Slot;
    /// The task's current phase.
    fn phase(&self) -> TaskPhase;
    /// The task's labels, which the query's label selector matches.
    fn labels(&self) -> &Labels;
}

/// Forwards every method to the pointee.
macro_rules! forward_queryable {
    ($($ptr:ty),*) => {$(
        impl<T: Queryable + ?Sized> Queryable for $ptr {
            fn tenant(&self) -> &TenantId {
                (**self).tenant()
            }
            fn id(&self) -> &TaskId {
                (**self).id()
            }
            fn created_at(&self) -> DateTime<Utc> {
                (**self).created_at()
            }
            fn updated_at(&self) -> DateTime<Utc> {
                (**self).updated_at()
            }
            fn slot(&self) -> &Slot {
                (**self).slot()
            }
            fn phase(&self) -> TaskPhase {
                (**self).phase()
            }
            fn labels(&self) -> &Labels {
                (**self).labels()
            }
        }
    )*};
}

forward_queryable!(&T, &mut T, Box<T>, Rc<T>, Arc<T>);

/// Reads the task's metadata (`tenant`, `id`, `created_at`, `updated_at`), spec (`slot`,
/// `labels`) and status (`phase`).
impl Queryable for Task {
    fn tenant(&self) -> &TenantId {
        self.metadata().tenant()
    }
    fn id(&self) -> &TaskId {
        self.metadata().id()
    }
    fn created_at(&self) -> DateTime<Utc> {
        self.metadata().created_at()
    }
    fn updated_at(&self) -> DateTime<Utc> {
        self.metadata().updated_at()
    }
    fn slot(&self) -> &Slot {
        self.spec().slot()
    }
    fn phase(&self) -> TaskPhase {
        Task::phase(self)
    }
    fn labels(&self) -> &Labels {
        self.spec().labels()
    }
}

/// What a [`TaskRunQuery`](crate::TaskRunQuery) reads from an attempt: its task and attempt
/// number (the key) and its filter fields.
///
/// Implemented for [`TaskRun`], and for references and smart pointers to anything that
/// implements it. The attempt numbers of one task's runs are unique, which keyset pagination
/// relies on.
pub trait QueryableRun {
    /// The task the attempt belongs to.
    fn task_id(&self) -> &TaskId;
    /// The attempt number (the sort key).
    fn attempt(&self) -> u32;
    /// The attempt's state.
    fn state(&self) -> AttemptState;
    /// The runner that holds or held it.
    fn runner(&self) -> &RunnerId;
}

/// Forwards every method to the pointee.
macro_rules! forward_queryable_run {
    ($($ptr:ty),*) => {$(
        impl<T: QueryableRun + ?Sized> QueryableRun for $ptr {
            fn task_id(&self) -> &TaskId {
                (**self).task_id()
            }
            fn attempt(&self) -> u32 {
                (**self).attempt()
            }
            fn state(&self) -> AttemptState {
                (**self).state()
            }
            fn runner(&self) -> &RunnerId {
                (**self).runner()
            }
        }
    )*};
}

forward_queryable_run!(&T, &mut T, Box<T>, Rc<T>, Arc<T>);

impl QueryableRun for TaskRun {
    fn task_id(&self) -> &TaskId {
        TaskRun::task_id(self)
    }
    fn attempt(&self) -> u32 {
        TaskRun::attempt(self)
    }
    fn state(&self) -> AttemptState {
        TaskRun::state(self)
    }
    fn runner(&self) -> &RunnerId {
        TaskRun::runner(self)
    }
}
