//! Whom a change wakes: the pending tasks (queued or waiting for a retry) counted by kind
//! and runner selector, so that an idle runner claims again only when some pending task is
//! one it may take (the kinds it runs hold the task's kind and its labels match the
//! selector, the model's matcher). A runner that fits none would find nothing: waking it
//! would only cost a claim, which on the store walks the queue.

use std::collections::BTreeMap;

use taskmodel::fleet::KindSet;
use taskmodel::selector::LabelSelector;
use taskmodel::{Task, TaskId, TaskPhase};

use super::runner::RunnerSim;

/// One kind and runner selector, and how many pending tasks have it.
#[derive(Debug)]
struct Class {
    kind: Option<KindSet>,
    selector: LabelSelector,
    pending: u64,
}

/// The pending tasks by class.
#[derive(Debug, Default)]
pub(super) struct Pending {
    classes: Vec<Class>,
    /// The class of each (kind, selector), both as text.
    index: BTreeMap<(String, String), usize>,
    /// The class of each task counted pending now.
    counted: BTreeMap<TaskId, usize>,
}

impl Pending {
    /// Follows `task` as a step left it: counted while it is pending.
    pub(super) fn follow(&mut self, task: &Task) {
        let pending = task.phase() == TaskPhase::Pending;
        match (self.counted.get(task.id()).copied(), pending) {
            (None, true) => {
                let class = self.class(task);
                if let Some(class) = self.classes.get_mut(class) {
                    class.pending += 1;
                }
                self.counted.insert(task.id().clone(), class);
            }
            (Some(class), false) => {
                if let Some(class) = self.classes.get_mut(class) {
                    class.pending = class.pending.saturating_sub(1);
                }
                self.counted.remove(task.id());
            }
            _ => {}
        }
    }

    /// Whether `runner` may take some pending task.
    pub(super) fn fits(&self, runner: &RunnerSim) -> bool {
        self.classes.iter().any(|class| {
            class.pending > 0
                && class
                    .kind
                    .as_ref()
                    .is_some_and(|kind| runner.kinds.contains(kind))
                && class.selector.matches(&runner.labels)
        })
    }

    /// The class of `task`'s kind and selector, made when it is the first of it.
    fn class(&mut self, task: &Task) -> usize {
        let spec = task.spec();
        let kind = KindSet::of(spec.kind());
        let key = (
            kind.as_ref().map_or_else(String::new, ToString::to_string),
            spec.runner_selector().to_string(),
        );
        let next = self.classes.len();
        let class = *self.index.entry(key).or_insert(next);
        if class == next {
            self.classes.push(Class {
                kind,
                selector: spec.runner_selector().clone(),
                pending: 0,
            });
        }
        class
    }
}
