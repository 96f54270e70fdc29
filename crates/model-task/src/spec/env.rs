//! Environment variables: `EnvVar`, the `TaskEnv` and `RunnerEnv` lists made by one macro,
//! and `merge_env`, the one rule for combining them.

use model_ids::BoundedVec;
use serde::{Deserialize, Serialize};

use super::limits::{Env, MAX_ENV_KEY_BYTES, MAX_ENV_VALUE_BYTES, MAX_ENV_VARS};
use super::text::check_text;
use crate::error::{InvalidReason, TaskError, index_path};

/// One environment variable: a key and its value.
///
/// Keys are non-empty, hold no `=` and no NUL byte, and have at most [`MAX_ENV_KEY_BYTES`]
/// bytes; values hold no NUL byte and have at most [`MAX_ENV_VALUE_BYTES`] bytes.
/// On the wire: `{"key": "PATH", "value": "/usr/bin"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct EnvVar {
    key: String,
    value: String,
}

impl EnvVar {
    /// Validates and builds a variable; errors name `key` or `value`.
    ///
    /// ```
    /// use model_task::spec::EnvVar;
    /// let var = EnvVar::new("RUST_LOG", "debug")?;
    /// assert_eq!(var.key(), "RUST_LOG");
    /// assert!(EnvVar::new("A=B", "x").is_err());
    /// # Ok::<(), model_task::TaskError>(())
    /// ```
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Result<Self, TaskError> {
        let var = Self {
            key: key.into(),
            value: value.into(),
        };
        var.check()?;
        Ok(var)
    }

    /// The key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The value.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The key and the value, by value.
    pub fn into_parts(self) -> (String, String) {
        (self.key, self.value)
    }

    fn check(&self) -> Result<(), TaskError> {
        if self.key.is_empty() {
            return Err(TaskError::invalid("key", InvalidReason::Empty));
        }
        check_text("key", &self.key, MAX_ENV_KEY_BYTES)?;
        if let Some(index) = self.key.bytes().position(|b| b == b'=') {
            return Err(TaskError::invalid_input(
                "key",
                &self.key,
                InvalidReason::EqualsSign { index },
            ));
        }
        check_text("value", &self.value, MAX_ENV_VALUE_BYTES)
    }
}

impl<'de> Deserialize<'de> for EnvVar {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = EnvVarRaw::deserialize(deserializer)?;
        let var = Self {
            key: raw.key,
            value: raw.value,
        };
        var.check().map_err(serde::de::Error::custom)?;
        Ok(var)
    }
}

/// The unvalidated wire form of [`EnvVar`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvVarRaw {
    key: String,
    value: String,
}

/// Validates a whole list: bound, each entry, duplicate keys. Paths are relative to the list.
fn check_list(vars: &[EnvVar]) -> Result<(), TaskError> {
    if vars.len() > MAX_ENV_VARS {
        return Err(TaskError::invalid(
            "",
            InvalidReason::TooMany {
                len: vars.len(),
                max: MAX_ENV_VARS,
            },
        ));
    }
    for (i, var) in vars.iter().enumerate() {
        var.check().map_err(|e| e.at(&format!("[{i}]")))?;
    }
    if let Some((first, dup)) = find_duplicate(vars) {
        let key = vars.get(dup).map_or("", |var| var.key.as_str());
        return Err(TaskError::invalid_input(
            index_path(dup, "key"),
            key,
            InvalidReason::DuplicateKey { first },
        ));
    }
    Ok(())
}

/// The first pair of indexes `(first, later)` that share a key, by the later index.
fn find_duplicate(vars: &[EnvVar]) -> Option<(usize, usize)> {
    // Environments are small: a quadratic scan over at most a few dozen keys beats hashing.
    const SCAN_LIMIT: usize = 32;
    if vars.len() <= SCAN_LIMIT {
        for (later, var) in vars.iter().enumerate() {
            if let Some(first) = vars.iter().take(later).position(|v| v.key == var.key) {
                return Some((first, later));
            }
        }
        return None;
    }
    let mut seen = std::collections::HashMap::with_capacity(vars.len());
    for (later, var) in vars.iter().enumerate() {
        if let Some(&first) = seen.get(var.key.as_str()) {
            return Some((first, later));
        }
        seen.insert(var.key.as_str(), later);
    }
    None
}

/// Defines an ordered, validated list of [`EnvVar`]s. `TaskEnv` and `RunnerEnv` both come
/// from here so they keep the same rules and API.
macro_rules! env_list {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        ///
        /// Entries keep the order they were given in; keys are unique (a duplicate is an error
        /// naming both indexes); at most [`MAX_ENV_VARS`] entries. On the wire, a JSON array of
        /// `{"key", "value"}` objects.
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(Vec<EnvVar>);

        impl $name {
            /// An empty environment.
            pub const fn empty() -> Self {
                Self(Vec::new())
            }

            /// Validates and builds an environment; errors name the entry (`[2].key`).
            pub fn new(vars: Vec<EnvVar>) -> Result<Self, TaskError> {
                check_list(&vars)?;
                Ok(Self(vars))
            }

            /// Builds an environment from key and value pairs, validating each.
            pub fn from_pairs<K, V>(
                pairs: impl IntoIterator<Item = (K, V)>,
            ) -> Result<Self, TaskError>
            where
                K: Into<String>,
                V: Into<String>,
            {
                let mut vars = Vec::new();
                for (i, (key, value)) in pairs.into_iter().enumerate() {
                    if i >= MAX_ENV_VARS {
                        return Err(TaskError::invalid(
                            "",
                            InvalidReason::TooMany { len: i + 1, max: MAX_ENV_VARS },
                        ));
                    }
                    vars.push(EnvVar { key: key.into(), value: value.into() });
                }
                Self::new(vars)
            }

            /// Appends a variable; a duplicate key or a full list is an error.
            pub fn push(&mut self, var: EnvVar) -> Result<(), TaskError> {
                let index = self.0.len();
                if index >= MAX_ENV_VARS {
                    return Err(TaskError::invalid(
                        "",
                        InvalidReason::TooMany { len: index + 1, max: MAX_ENV_VARS },
                    ));
                }
                if let Some(first) = self.0.iter().position(|v| v.key == var.key) {
                    return Err(TaskError::invalid_input(
                        index_path(index, "key"),
                        &var.key,
                        InvalidReason::DuplicateKey { first },
                    ));
                }
                self.0.push(var);
                Ok(())
            }

            /// The value of `key`, if present.
            pub fn get(&self, key: &str) -> Option<&str> {
                self.0.iter().find(|v| v.key == key).map(EnvVar::value)
            }

            /// The variables in order.
            pub fn iter(&self) -> std::slice::Iter<'_, EnvVar> {
                self.0.iter()
            }

            /// The variables as a slice.
            pub fn as_slice(&self) -> &[EnvVar] {
                &self.0
            }

            /// Number of variables.
            pub fn len(&self) -> usize {
                self.0.len()
            }

            /// Whether there are no variables.
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }

            /// The variables, by value.
            pub fn into_vec(self) -> Vec<EnvVar> {
                self.0
            }
        }

        impl TryFrom<Vec<EnvVar>> for $name {
            type Error = TaskError;

            fn try_from(vars: Vec<EnvVar>) -> Result<Self, TaskError> {
                Self::new(vars)
            }
        }

        impl<'a> IntoIterator for &'a $name {
            type Item = &'a EnvVar;
            type IntoIter = std::slice::Iter<'a, EnvVar>;

            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = EnvListRaw::deserialize(deserializer)?;
                Self::new(raw.into_vars()).map_err(serde::de::Error::custom)
            }
        }
    };
}

env_list! {
    /// The environment a task asks for, in order.
    ///
    /// ```
    /// use model_task::TaskEnv;
    /// let env: TaskEnv = serde_json::from_str(r#"[{"key": "MODE", "value": "fast"}]"#)?;
    /// assert_eq!(env.get("MODE"), Some("fast"));
    /// let dup = r#"[{"key": "A", "value": "1"}, {"key": "A", "value": "2"}]"#;
    /// assert!(serde_json::from_str::<TaskEnv>(dup).is_err());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    TaskEnv
}

env_list! {
    /// The environment a runner injects into every task it runs, in order.
    RunnerEnv
}

/// The unvalidated wire form of an environment list, used inside raw twins so that
/// validation can report the full field path.
/// At most [`MAX_ENV_VARS`] entries are read; one more stops the reading with an error.
#[derive(Deserialize, Default)]
#[serde(transparent)]
pub(crate) struct EnvListRaw(BoundedVec<EnvVarRaw, Env>);

impl EnvListRaw {
    fn into_vars(self) -> Vec<EnvVar> {
        self.0
            .into_inner()
            .into_iter()
            .map(|r| EnvVar {
                key: r.key,
                value: r.value,
            })
            .collect()
    }

    /// Validates into a [`TaskEnv`]; paths are relative to the list.
    pub(crate) fn into_task_env(self) -> Result<TaskEnv, TaskError> {
        TaskEnv::new(self.into_vars())
    }

    /// Validates into a [`RunnerEnv`]; paths are relative to the list.
    pub(crate) fn into_runner_env(self) -> Result<RunnerEnv, TaskError> {
        RunnerEnv::new(self.into_vars())
    }
}

/// The environment a task runs with: the runner's variables, overridden by the task's.
///
/// The rule, in order: first every runner variable in the runner's order, with the task's
/// value when the task sets the same key (the task wins); then every task variable whose key
/// the runner does not set, in the task's order. Keys in the result are unique. The result
/// may hold up to twice [`MAX_ENV_VARS`] entries, so it is a plain `Vec`.
///
/// ```
/// use model_task::spec::{RunnerEnv, TaskEnv, merge_env};
/// let runner = RunnerEnv::from_pairs([("PATH", "/bin"), ("ZONE", "eu")])?;
/// let task = TaskEnv::from_pairs([("MODE", "fast"), ("ZONE", "us")])?;
/// let merged = merge_env(&runner, &task);
/// let pairs: Vec<(&str, &str)> = merged.iter().map(|v| (v.key(), v.value())).collect();
/// assert_eq!(pairs, [("PATH", "/bin"), ("ZONE", "us"), ("MODE", "fast")]);
/// # Ok::<(), model_task::TaskError>(())
/// ```
pub fn merge_env(runner: &RunnerEnv, task: &TaskEnv) -> Vec<EnvVar> {
    let mut merged = Vec::with_capacity(runner.len() + task.len());
    for var in runner {
        match task.iter().find(|t| t.key == var.key) {
            Some(over) => merged.push(over.clone()),
            None => merged.push(var.clone()),
        }
    }
    for var in task {
        if runner.get(&var.key).is_none() {
            merged.push(var.clone());
        }
    }
    merged
}

#[cfg(test)]
mod tests;
