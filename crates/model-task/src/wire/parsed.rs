//! `Parsed`, a wire value read with its rule errors kept as typed [`TaskError`]s, for callers
//! that report field paths on their own (an API's field-level causes, `taskctl check`).

use model_policy::BackoffPolicy;
use model_selector::{LabelSelector, Labels};
use serde::{Deserialize, Deserializer};

use crate::attempt::{TaskRun, TaskRunRaw};
use crate::error::TaskError;
use crate::lifecycle::{TaskStatus, TaskStatusRaw};
use crate::spec::{
    BackoffRaw, EnvListRaw, LabelsRaw, RunnerEnv, SelectorRaw, TaskEnv, TaskKind, TaskKindRaw,
    TaskSpec, TaskSpecRaw, Timeout,
};
use crate::task::{
    ManifestMeta, ManifestMetaRaw, ObjectMeta, ObjectMetaRaw, Task, TaskManifest, TaskManifestRaw,
    TaskRaw,
};

/// A value read from the wire whose shape serde accepted, holding either the valid value or
/// the [`TaskError`] of the first rule it breaks.
///
/// Deserializing a `TaskSpec` directly reports a broken rule through the deserializer's error
/// type, which keeps only its text. Deserializing a `Parsed<TaskSpec>` fails only for what
/// the deserializer itself checks (JSON syntax, wrong types, unknown or missing fields,
/// collections over their bounds); a broken rule comes back as a typed error whose
/// [`path`](TaskError::path) is relative to the parsed value and whose
/// [`message`](TaskError::message) leaves the path out, so a caller can put its own field
/// in front and print the path once.
///
/// Implemented for every type whose parser validates: [`Task`], [`TaskManifest`],
/// [`ManifestMeta`], [`ObjectMeta`], [`TaskSpec`],
/// [`TaskKind`], [`TaskStatus`], [`TaskRun`], [`TaskEnv`], [`RunnerEnv`], [`Timeout`], and
/// the spec's policy and selector fields read as a spec reads them ([`BackoffPolicy`], with
/// the policy's defaults for absent fields; [`LabelSelector`]; [`Labels`]).
///
/// ```
/// use model_task::{Parsed, TaskKind};
/// let json = r#"{"type": "subprocess", "mode": {"type": "command", "command": ""}}"#;
/// let parsed: Parsed<TaskKind> = serde_json::from_str(json)?;
/// let err = parsed.into_result().unwrap_err();
/// assert_eq!(err.path(), Some("mode.command"));
/// assert_eq!(err.message(), "must not be empty");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Parsed<T>(Result<T, TaskError>);

impl<T> Parsed<T> {
    /// The valid value, or the error of the first rule it breaks.
    pub fn into_result(self) -> Result<T, TaskError> {
        self.0
    }

    /// The valid value or the error, by reference.
    pub fn as_result(&self) -> Result<&T, &TaskError> {
        self.0.as_ref()
    }
}

impl<T> From<Parsed<T>> for Result<T, TaskError> {
    fn from(parsed: Parsed<T>) -> Self {
        parsed.0
    }
}

/// Implements `Deserialize` for `Parsed<$ty>`: serde reads `$raw`, then `$check` validates.
macro_rules! parsed {
    ($($ty:ty => $raw:ty, $check:expr;)*) => {$(
        impl<'de> Deserialize<'de> for Parsed<$ty> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let check: fn($raw) -> Result<$ty, TaskError> = $check;
                <$raw>::deserialize(deserializer).map(|raw| Parsed(check(raw)))
            }
        }
    )*};
}

parsed! {
    Task => TaskRaw, Task::try_from;
    TaskManifest => TaskManifestRaw, TaskManifest::try_from;
    ManifestMeta => ManifestMetaRaw, ManifestMeta::try_from;
    ObjectMeta => ObjectMetaRaw, ObjectMeta::try_from;
    TaskSpec => TaskSpecRaw, TaskSpec::try_from;
    TaskKind => TaskKindRaw, TaskKind::try_from;
    TaskStatus => TaskStatusRaw, TaskStatus::try_from;
    TaskRun => TaskRunRaw, TaskRun::try_from;
    TaskEnv => EnvListRaw, EnvListRaw::into_task_env;
    RunnerEnv => EnvListRaw, EnvListRaw::into_runner_env;
    Timeout => u64, Timeout::new;
    BackoffPolicy => BackoffRaw, BackoffRaw::validate;
    LabelSelector => SelectorRaw, SelectorRaw::validate;
    Labels => LabelsRaw, |pairs| {
        Labels::from_pairs(pairs.into_inner()).map_err(TaskError::Selector)
    };
}

#[cfg(test)]
mod tests;
