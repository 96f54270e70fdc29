//! `TaskWatchEvent`, one change a watch of tasks reports, and `WatchWindow`, the rule that
//! says where a watch resumes.

use std::{fmt, ops::RangeInclusive};

use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{InvalidReason, TaskError};
use crate::spec::FieldSet;
use crate::task::Task;

/// One change reported by a watch of tasks, after Kubernetes' watch events: a task was
/// added, modified or deleted, or a bookmark that only moves the resume point.
///
/// `version` is the position of the change in the watched collection: a counter the store
/// assigns to every change of any task (a log sequence number, a database's commit number),
/// strictly increasing along a watch stream, at least 1. It is not the task's own
/// `resourceVersion`, which counts the changes of one task and travels in
/// `task.metadata.resourceVersion`. A `Deleted` event carries the task as it was last.
///
/// **Resuming.** A watcher keeps the `version` of the last event it handled, bookmarks
/// included, and reconnects with it; the store then sends every change with a greater version,
/// in order. A store keeps its changes for a while only: when the version asked for is older
/// than what it holds, the changes in between are lost and the answer is
/// [`TaskError::WatchExpired`] ([`ErrorKind::Gone`](model_ids::ErrorKind::Gone), HTTP 410 as
/// in Kubernetes). The watcher then lists the tasks again (a listing tells the version it
/// reflects) and watches from that version. [`WatchWindow::resume`] is that decision. A
/// bookmark lets a watcher whose filter matches nothing for a long time keep its resume point
/// inside the window.
///
/// On the wire, tagged by `"type"`: `{"type": "added", "version": 17, "task": {...}}`,
/// `modified` and `deleted` alike, and `{"type": "bookmark", "version": 42}`.
///
/// ```
/// use model_task::event::TaskWatchEvent;
///
/// let event: TaskWatchEvent = serde_json::from_str(r#"{"type": "bookmark", "version": 42}"#)?;
/// assert_eq!(event.version(), 42);
/// assert!(event.task().is_none());
/// assert!(serde_json::from_str::<TaskWatchEvent>(r#"{"type": "bookmark", "version": 0}"#).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum TaskWatchEvent {
    /// A task entered the watched collection (it was created, or now matches the watch).
    #[non_exhaustive]
    Added {
        /// The version of the collection after the change.
        version: u64,
        /// The task after the change.
        task: Task,
    },
    /// A task of the watched collection changed.
    #[non_exhaustive]
    Modified {
        /// The version of the collection after the change.
        version: u64,
        /// The task after the change.
        task: Task,
    },
    /// A task left the watched collection (it was deleted, or no longer matches the watch).
    #[non_exhaustive]
    Deleted {
        /// The version of the collection after the change.
        version: u64,
        /// The task as it was last.
        task: Task,
    },
    /// No change: the collection reached this version, and a watcher may resume from it.
    #[non_exhaustive]
    Bookmark {
        /// The version to resume from.
        version: u64,
    },
}

impl TaskWatchEvent {
    /// An added task at `version`. Errors name `version` (it must be at least 1).
    pub fn added(version: u64, task: Task) -> Result<Self, TaskError> {
        check_version(version)?;
        Ok(Self::Added { version, task })
    }

    /// A modified task at `version`. Errors name `version` (it must be at least 1).
    pub fn modified(version: u64, task: Task) -> Result<Self, TaskError> {
        check_version(version)?;
        Ok(Self::Modified { version, task })
    }

    /// A deleted task at `version`, as it was last. Errors name `version`.
    pub fn deleted(version: u64, task: Task) -> Result<Self, TaskError> {
        check_version(version)?;
        Ok(Self::Deleted { version, task })
    }

    /// A bookmark at `version`. Errors name `version` (it must be at least 1).
    pub fn bookmark(version: u64) -> Result<Self, TaskError> {
        check_version(version)?;
        Ok(Self::Bookmark { version })
    }

    /// The version of the collection after this event: what a watcher resumes from.
    pub const fn version(&self) -> u64 {
        match self {
            Self::Added { version, .. }
            | Self::Modified { version, .. }
            | Self::Deleted { version, .. }
            | Self::Bookmark { version } => *version,
        }
    }

    /// The task the event is about; `None` for a bookmark.
    pub const fn task(&self) -> Option<&Task> {
        match self {
            Self::Added { task, .. } | Self::Modified { task, .. } | Self::Deleted { task, .. } => {
                Some(task)
            }
            Self::Bookmark { .. } => None,
        }
    }

    /// The wire tag: `added`, `modified`, `deleted` or `bookmark`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::Added { .. } => "added",
            Self::Modified { .. } => "modified",
            Self::Deleted { .. } => "deleted",
            Self::Bookmark { .. } => "bookmark",
        }
    }
}

/// Versions start at 1.
fn check_version(version: u64) -> Result<(), TaskError> {
    if version == 0 {
        Err(TaskError::invalid("version", InvalidReason::Zero))
    } else {
        Ok(())
    }
}

/// The changes a store still holds for a watched collection: every change whose version is
/// in `oldest..=latest`. [`resume`](Self::resume) decides where a watch resumes.
///
/// ```
/// use model_ids::ErrorKind;
/// use model_task::event::WatchWindow;
///
/// let window = WatchWindow::new(100, 250)?;
/// assert_eq!(window.resume(180)?, Some(181..=250)); // replay 181 to 250, then stream live
/// assert_eq!(window.resume(99)?, Some(100..=250)); // the first held change follows 99
/// assert_eq!(window.resume(250)?, None); // up to date: stream live
/// let err = window.resume(42).unwrap_err(); // 43 to 99 are gone: list again
/// assert_eq!(err.kind(), ErrorKind::Gone);
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WatchWindow {
    oldest: u64,
    latest: u64,
}

impl WatchWindow {
    /// The window of a store holding the changes `oldest..=latest`; `oldest` is `latest + 1`
    /// when it holds none (every change up to `latest` was compacted), and 1 when it never
    /// dropped one.
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] at `oldest` when it is 0 or more than `latest + 1`.
    pub fn new(oldest: u64, latest: u64) -> Result<Self, TaskError> {
        if oldest == 0 {
            return Err(TaskError::invalid("oldest", InvalidReason::Zero));
        }
        if oldest > latest.saturating_add(1) {
            return Err(TaskError::invalid(
                "oldest",
                InvalidReason::Inconsistent {
                    rule: "the oldest change held is at most one after the latest",
                },
            ));
        }
        Ok(Self { oldest, latest })
    }

    /// The oldest change held.
    pub const fn oldest(self) -> u64 {
        self.oldest
    }

    /// The latest change.
    pub const fn latest(self) -> u64 {
        self.latest
    }

    /// The changes to replay to a watcher that last saw version `since` (0: nothing yet),
    /// before it follows live changes: `since + 1 ..= latest`, or `None` when it is up to
    /// date.
    ///
    /// # Errors
    ///
    /// - [`TaskError::WatchExpired`] when changes after `since` are no longer held
    ///   (`since + 1 < oldest`): the watcher lists again and watches from the listing's
    ///   version.
    /// - [`TaskError::WatchAhead`] when `since` is after `latest`: a version this store never
    ///   issued (another store's, or a store restored from a backup); the watcher lists again.
    pub fn resume(self, since: u64) -> Result<Option<RangeInclusive<u64>>, TaskError> {
        if since > self.latest {
            return Err(TaskError::WatchAhead {
                since,
                latest: self.latest,
            });
        }
        if since.saturating_add(1) < self.oldest {
            return Err(TaskError::WatchExpired {
                since,
                oldest: self.oldest,
            });
        }
        Ok((since < self.latest).then(|| since + 1..=self.latest))
    }
}

/// The fields of a watch event, by wire name.
const FIELDS: &[&str] = &["type", "version", "task"];

/// The value of a watch event's `"type"`.
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
}

impl EventType {
    const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Bookmark => &["type", "version"],
            Self::Added | Self::Modified | Self::Deleted => FIELDS,
        }
    }
}

/// Read by hand in one pass, like a task kind: unknown and duplicate fields are refused as
/// they arrive, and a bookmark may not carry a task.
impl<'de> Deserialize<'de> for TaskWatchEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EventVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = TaskWatchEvent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a task watch event tagged by \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TaskWatchEvent, A::Error> {
        let mut fields = FieldSet::new(FIELDS);
        let mut ty: Option<EventType> = None;
        let (mut version, mut task) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match fields.note::<A::Error>(key, ty.map(EventType::fields))? {
                Some("type") => {
                    let value: EventType = map.next_value()?;
                    fields.check::<A::Error>(value.fields())?;
                    ty = Some(value);
                }
                Some("version") => version = Some(map.next_value::<u64>()?),
                Some("task") => task = Some(map.next_value::<Task>()?),
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        let ty = ty.ok_or_else(|| A::Error::missing_field("type"))?;
        let version = version.ok_or_else(|| A::Error::missing_field("version"))?;
        let task = || task.ok_or_else(|| A::Error::missing_field("task"));
        let event = match ty {
            EventType::Added => TaskWatchEvent::added(version, task()?),
            EventType::Modified => TaskWatchEvent::modified(version, task()?),
            EventType::Deleted => TaskWatchEvent::deleted(version, task()?),
            EventType::Bookmark => TaskWatchEvent::bookmark(version),
        };
        event.map_err(A::Error::custom)
    }
}

#[cfg(test)]
mod tests;
