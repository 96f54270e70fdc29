//! `Queryable`: the few fields of a task a query reads, so evaluation is not tied to one type.

use std::{rc::Rc, sync::Arc};

use chrono::{DateTime, Utc};
use model_ids::{Slot, TaskId};
use model_selector::Labels;
use model_task::{Task, TaskPhase};

use crate::select::Keyed;

/// What a [`TaskQuery`](crate::TaskQuery) reads from a task: its sort key
/// (`created_at`, `id`) and its filter fields.
///
/// Implemented for [`Task`], and for references and smart pointers to
/// anything that implements it, so a query can evaluate `&[Task]`, `Vec<Arc<Task>>` or a
/// store's own row type without copying tasks.
///
/// Ids must be unique among the items of one listing: the key `(created_at, id)` is then
/// unique, which keyset pagination relies on.
pub trait Queryable {
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

impl<T: Queryable + ?Sized> Keyed for T {
    fn key_parts(&self) -> (DateTime<Utc>, &TaskId) {
        (self.created_at(), self.id())
    }
}

/// Reads the task's metadata (`id`, `created_at`, `updated_at`), spec (`slot`,
/// `labels`) and status (`phase`).
impl Queryable for Task {
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
