//! `TaskKind`, what runs: a subprocess (a command or an interpreted script), a container,
//! a wasm module, an extension workload a runner implements itself, or an embedded
//! in-process task; with `SubprocessMode`, `Interpreter` and `ScriptBody`. Extension names
//! and specs are in `extension`, routable kind names in `name`, the wire twins, read by
//! hand, in `wire`.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::env::TaskEnv;
use super::limits::{
    MAX_ARG_BYTES, MAX_PATH_BYTES, MAX_SCRIPT_BODY_BYTES, MAX_SCRIPT_BODY_ENCODED_BYTES,
};
use super::text::{check_args, check_nonempty_text, check_text};
use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::AttemptOutcome;

mod extension;
mod name;
#[cfg(feature = "schema")]
pub(crate) mod schema;
mod wire;

pub(crate) use self::wire::{FieldSet, TaskKindRaw};
pub use self::{
    extension::{
        ExtensionKind, ExtensionSpec, MAX_API_VERSION_BYTES, MAX_EXTENSION_KIND_BYTES,
        MAX_EXTENSION_SPEC_BYTES, MAX_EXTENSION_SPEC_DEPTH, MAX_EXTENSION_SPEC_VALUES,
    },
    name::KindName,
};

use self::wire::{InterpreterRaw, ScriptBodyRaw, SubprocessModeRaw};

/// What a task runs. Internally tagged by `"type"` on the wire.
///
/// Built in: a subprocess, a container, a wasm module, and an embedded in-process task
/// (never routed). An [`Extension`](Self::Extension) is a workload a runner implements
/// itself, named by `apiVersion` and `kind` as a Kubernetes custom resource is, with a
/// bounded JSON [`ExtensionSpec`]; runners declare the extension kinds they run and routing
/// matches them ([`KindName`]).
///
/// Every string that reaches `execve`, a path or the environment is free of NUL bytes and
/// bounded (see the `MAX_*` constants); commands, images and modules are not empty. Values
/// are built by the validating constructors ([`TaskKind::subprocess`], ...) or by parsing;
/// the struct variants are `#[non_exhaustive]` so they cannot be built unchecked, but they
/// can be matched with `..`.
///
/// ```
/// use model_task::{SubprocessMode, TaskEnv, TaskKind};
/// let json = r#"{"type": "subprocess", "mode": {"type": "command", "command": "/bin/echo", "args": ["hi"]}}"#;
/// let kind: TaskKind = serde_json::from_str(json)?;
/// let TaskKind::Subprocess { mode: SubprocessMode::Command { command, .. }, .. } = &kind else {
///     unreachable!()
/// };
/// assert_eq!(command, "/bin/echo");
/// let bad = r#"{"type": "subprocess", "mode": {"type": "command", "command": ""}}"#;
/// let err = serde_json::from_str::<TaskKind>(bad).unwrap_err();
/// assert!(err.to_string().starts_with("invalid mode.command: must not be empty"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", try_from = "TaskKindRaw")]
#[non_exhaustive]
pub enum TaskKind {
    /// An operating-system process.
    #[non_exhaustive]
    Subprocess {
        /// How the process is started.
        mode: SubprocessMode,
        /// Extra environment, in order.
        env: TaskEnv,
        /// Working directory; the runner's default when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// Whether a non-zero exit status is a failure (the default, `true`); when `false`, a
        /// process that exits on its own has succeeded whatever its status. See
        /// [`TaskKind::outcome_of_exit`]. Written only when `false`.
        #[serde(rename = "failOnNonZero", skip_serializing_if = "is_true")]
        fail_on_non_zero: bool,
    },
    /// An OCI container.
    #[non_exhaustive]
    Container {
        /// Image reference (`registry/name:tag`).
        image: String,
        /// Entrypoint override; the image's entrypoint when empty.
        command: Vec<String>,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment, in order.
        env: TaskEnv,
    },
    /// A WASI module.
    #[non_exhaustive]
    Wasm {
        /// Module reference (path or URL of the `.wasm`).
        module: String,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment, in order.
        env: TaskEnv,
    },
    /// A workload a runner implements itself, named by `apiVersion` and `kind`; on the wire
    /// `{"type": "extension", "apiVersion": ..., "kind": ..., "spec": {...}}`.
    #[non_exhaustive]
    Extension {
        /// Its name: `apiVersion` and `kind`.
        #[serde(flatten)]
        kind: ExtensionKind,
        /// Its spec, a bounded JSON object owned by the runner that implements it.
        spec: ExtensionSpec,
    },
    /// An in-process task. Not routable to a runner, so [`TaskSpec::validate`] rejects it.
    ///
    /// [`TaskSpec::validate`]: crate::TaskSpec::validate
    Embedded,
}

/// For `skip_serializing_if`: `failOnNonZero` is written only when it is not the default.
const fn is_true(value: &bool) -> bool {
    *value
}

impl TaskKind {
    /// A subprocess task that fails on a non-zero exit status (see
    /// [`with_fail_on_non_zero`](Self::with_fail_on_non_zero)). Errors name `mode...`,
    /// `env[i]...` or `cwd`.
    pub fn subprocess(
        mode: SubprocessMode,
        env: TaskEnv,
        cwd: Option<String>,
    ) -> Result<Self, TaskError> {
        if let Some(cwd) = &cwd {
            check_nonempty_text("cwd", cwd, MAX_PATH_BYTES)?;
        }
        Ok(Self::Subprocess {
            mode,
            env,
            cwd,
            fail_on_non_zero: true,
        })
    }

    /// The same subprocess kind, failing on a non-zero exit status or not (`failOnNonZero`).
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] at `failOnNonZero` for any other kind: only a subprocess has it.
    pub fn with_fail_on_non_zero(self, fail: bool) -> Result<Self, TaskError> {
        match self {
            Self::Subprocess { mode, env, cwd, .. } => Ok(Self::Subprocess {
                mode,
                env,
                cwd,
                fail_on_non_zero: fail,
            }),
            _ => Err(TaskError::invalid(
                "failOnNonZero",
                InvalidReason::Inconsistent {
                    rule: "only a subprocess kind has failOnNonZero",
                },
            )),
        }
    }

    /// Whether a non-zero exit status is a failure: `failOnNonZero` of a subprocess (default
    /// `true`); `true` for every other kind.
    pub const fn fail_on_non_zero(&self) -> bool {
        match self {
            Self::Subprocess {
                fail_on_non_zero, ..
            } => *fail_on_non_zero,
            _ => true,
        }
    }

    /// The outcome a runner reports for an attempt whose process exited on its own with
    /// `exit_code`: [`AttemptOutcome::Succeeded`] for 0, and for any status when
    /// [`fail_on_non_zero`](Self::fail_on_non_zero) is `false`; [`AttemptOutcome::Failed`]
    /// otherwise.
    ///
    /// The model does not decide outcomes from exit codes: a runner reports an outcome with
    /// its result (`AttemptResult`), and this is the rule it applies to the exit status, so
    /// every runner and the control plane agree. It covers a process that exited; a process
    /// the runner stopped for its timeout is [`AttemptOutcome::Timeout`], one stopped on a
    /// cancel is [`AttemptOutcome::Canceled`], and one that could not start, or was killed
    /// by a signal, is [`AttemptOutcome::Failed`], whatever `failOnNonZero` says.
    ///
    /// ```
    /// use model_task::{AttemptOutcome, SubprocessMode, TaskEnv, TaskKind};
    /// let mode = SubprocessMode::command("/usr/bin/grep".into(), vec!["-q".into(), "x".into()])?;
    /// let strict = TaskKind::subprocess(mode, TaskEnv::empty(), None)?;
    /// assert_eq!(strict.outcome_of_exit(1), AttemptOutcome::Failed);
    /// let lenient = strict.with_fail_on_non_zero(false)?;
    /// assert_eq!(lenient.outcome_of_exit(1), AttemptOutcome::Succeeded);
    /// # Ok::<(), model_task::TaskError>(())
    /// ```
    pub const fn outcome_of_exit(&self, exit_code: i32) -> AttemptOutcome {
        if exit_code == 0 || !self.fail_on_non_zero() {
            AttemptOutcome::Succeeded
        } else {
            AttemptOutcome::Failed
        }
    }

    /// An extension workload (already valid: its name and spec check themselves).
    pub const fn extension(kind: ExtensionKind, spec: ExtensionSpec) -> Self {
        Self::Extension { kind, spec }
    }

    /// The name routing matches runners by, or `None` for an embedded task: [`KindName::of`].
    pub fn name(&self) -> Option<KindName> {
        KindName::of(self)
    }

    /// A container task. Errors name `image`, `command[i]` or `args[i]`.
    pub fn container(
        image: String,
        command: Vec<String>,
        args: Vec<String>,
        env: TaskEnv,
    ) -> Result<Self, TaskError> {
        check_nonempty_text("image", &image, MAX_PATH_BYTES)?;
        check_args(&command).map_err(|e| e.at("command"))?;
        if command.first().is_some_and(String::is_empty) {
            return Err(TaskError::invalid("command[0]", InvalidReason::Empty));
        }
        check_args(&args).map_err(|e| e.at("args"))?;
        Ok(Self::Container {
            image,
            command,
            args,
            env,
        })
    }

    /// A wasm task. Errors name `module` or `args[i]`.
    pub fn wasm(module: String, args: Vec<String>, env: TaskEnv) -> Result<Self, TaskError> {
        check_nonempty_text("module", &module, MAX_PATH_BYTES)?;
        check_args(&args).map_err(|e| e.at("args"))?;
        Ok(Self::Wasm { module, args, env })
    }

    /// The wire tag of the kind: `"subprocess"`, `"container"`, `"wasm"`, `"extension"` or
    /// `"embedded"` ([`name`](Self::name) tells extensions apart).
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::Subprocess { .. } => "subprocess",
            Self::Container { .. } => "container",
            Self::Wasm { .. } => "wasm",
            Self::Extension { .. } => "extension",
            Self::Embedded => "embedded",
        }
    }

    /// Whether a runner can take this kind (everything but [`TaskKind::Embedded`]).
    pub const fn is_routable(&self) -> bool {
        !matches!(self, Self::Embedded)
    }

    /// The task's own environment (empty for extension and embedded tasks).
    pub fn env(&self) -> &TaskEnv {
        static EMPTY: TaskEnv = TaskEnv::empty();
        match self {
            Self::Subprocess { env, .. } | Self::Container { env, .. } | Self::Wasm { env, .. } => {
                env
            }
            Self::Extension { .. } | Self::Embedded => &EMPTY,
        }
    }
}

/// How a subprocess starts. Internally tagged by `"type"` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", try_from = "SubprocessModeRaw")]
#[non_exhaustive]
pub enum SubprocessMode {
    /// `execve(command, args)`: no shell, no interpreter.
    #[non_exhaustive]
    Command {
        /// Program path or name; not empty.
        command: String,
        /// Arguments after the program.
        args: Vec<String>,
    },
    /// An interpreter running a script given inline.
    #[non_exhaustive]
    Script {
        /// Which interpreter runs the body.
        interpreter: Interpreter,
        /// The script text (base64 on the wire).
        body: ScriptBody,
        /// Arguments after the script.
        args: Vec<String>,
    },
}

impl SubprocessMode {
    /// Command mode. Errors name `command` or `args[i]`.
    pub fn command(command: String, args: Vec<String>) -> Result<Self, TaskError> {
        check_nonempty_text("command", &command, MAX_PATH_BYTES)?;
        check_args(&args).map_err(|e| e.at("args"))?;
        Ok(Self::Command { command, args })
    }

    /// Script mode. Errors name `args[i]` (the interpreter and body are already valid).
    pub fn script(
        interpreter: Interpreter,
        body: ScriptBody,
        args: Vec<String>,
    ) -> Result<Self, TaskError> {
        check_args(&args).map_err(|e| e.at("args"))?;
        Ok(Self::Script {
            interpreter,
            body,
            args,
        })
    }
}

/// The interpreter of a script: `"bash"`, `"python"`, `"node"`, or
/// `{"custom": {"command": "ruby", "flag": "-e"}}` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "InterpreterRaw")]
#[non_exhaustive]
pub enum Interpreter {
    /// `bash -c BODY`.
    Bash,
    /// `python3 -c BODY`.
    Python,
    /// `node -e BODY`.
    Node,
    /// `COMMAND FLAG BODY`.
    #[non_exhaustive]
    Custom {
        /// Interpreter program; not empty.
        command: String,
        /// The flag that makes it run its next argument as a script; not empty.
        flag: String,
    },
}

impl Interpreter {
    /// A custom interpreter. Errors name `custom.command` or `custom.flag`.
    pub fn custom(command: String, flag: String) -> Result<Self, TaskError> {
        check_nonempty_text("custom.command", &command, MAX_PATH_BYTES)?;
        check_nonempty_text("custom.flag", &flag, MAX_ARG_BYTES)?;
        Ok(Self::Custom { command, flag })
    }

    /// The conventional program: `bash`, `python3`, `node`, or the custom command.
    pub fn program(&self) -> &str {
        match self {
            Self::Bash => "bash",
            Self::Python => "python3",
            Self::Node => "node",
            Self::Custom { command, .. } => command,
        }
    }

    /// The flag placed before the body: `-c`, `-c`, `-e`, or the custom flag.
    pub fn flag(&self) -> &str {
        match self {
            Self::Bash | Self::Python => "-c",
            Self::Node => "-e",
            Self::Custom { flag, .. } => flag,
        }
    }
}

/// The text of a script: UTF-8, no NUL byte (it is passed as an argument), at most
/// [`MAX_SCRIPT_BODY_BYTES`] bytes. On the wire, standard base64 with padding; the encoded
/// length is checked against [`MAX_SCRIPT_BODY_ENCODED_BYTES`] before anything is decoded.
///
/// ```
/// use model_task::spec::ScriptBody;
/// let body = ScriptBody::from_base64("ZWNobyBoaQ==")?;
/// assert_eq!(body.as_str(), "echo hi");
/// assert_eq!(body.to_base64(), "ZWNobyBoaQ==");
/// assert!(ScriptBody::from_base64("not base64!").is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScriptBody(String);

impl ScriptBody {
    /// Validates plain script text.
    pub fn from_text(text: impl Into<String>) -> Result<Self, TaskError> {
        let text = text.into();
        check_text("", &text, MAX_SCRIPT_BODY_BYTES)?;
        Ok(Self(text))
    }

    /// Decodes and validates base64 text: length first, then the alphabet, UTF-8, size and NUL.
    pub fn from_base64(encoded: &str) -> Result<Self, TaskError> {
        if encoded.len() > MAX_SCRIPT_BODY_ENCODED_BYTES {
            return Err(TaskError::invalid(
                "",
                InvalidReason::TooLong {
                    len: encoded.len(),
                    max: MAX_SCRIPT_BODY_ENCODED_BYTES,
                },
            ));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| {
                TaskError::invalid_input(
                    "",
                    encoded,
                    InvalidReason::NotBase64 {
                        detail: base64_detail(&e),
                    },
                )
            })?;
        if bytes.len() > MAX_SCRIPT_BODY_BYTES {
            return Err(TaskError::invalid(
                "",
                InvalidReason::TooLong {
                    len: bytes.len(),
                    max: MAX_SCRIPT_BODY_BYTES,
                },
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            TaskError::invalid(
                "",
                InvalidReason::NotUtf8 {
                    valid_up_to: e.utf8_error().valid_up_to(),
                },
            )
        })?;
        if let Some(index) = text.bytes().position(|b| b == 0) {
            return Err(TaskError::invalid("", InvalidReason::NulByte { index }));
        }
        Ok(Self(text))
    }

    /// The script text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The script text, by value.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Size of the text in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The wire form: standard base64 with padding.
    pub fn to_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.0)
    }
}

impl Serialize for ScriptBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for ScriptBody {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ScriptBodyRaw::deserialize(deserializer)?
            .0
            .map_err(serde::de::Error::custom)
    }
}

/// The decoder's complaint in this crate's message style (lowercase, no trailing period).
pub(crate) fn base64_detail(error: &base64::DecodeError) -> String {
    match error {
        base64::DecodeError::InvalidByte(offset, byte) => {
            format!(
                "invalid character {:?} at offset {offset}",
                char::from(*byte)
            )
        }
        base64::DecodeError::InvalidLength(len) => format!("invalid length {len}"),
        base64::DecodeError::InvalidLastSymbol(offset, byte) => {
            format!(
                "invalid last character {:?} at offset {offset}",
                char::from(*byte)
            )
        }
        base64::DecodeError::InvalidPadding => "missing or invalid padding".to_owned(),
    }
}

#[cfg(test)]
mod tests;
