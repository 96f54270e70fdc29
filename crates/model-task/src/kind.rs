//! `TaskKind`, what runs: a subprocess (a command or an interpreted script), a container,
//! a wasm module, or an embedded in-process task; with `SubprocessMode`, `Interpreter` and
//! `ScriptBody`, and the unvalidated wire twins that parsing goes through.

use base64::Engine as _;
use model_ids::BoundedVec;
use serde::de::{Error as _, IgnoredAny, MapAccess};
use serde::{Deserialize, Serialize};

use crate::bounded::{Args, Command};
use crate::env::{EnvListRaw, TaskEnv};
use crate::error::{InvalidReason, TaskError};
use crate::limits::{
    MAX_ARG_BYTES, MAX_PATH_BYTES, MAX_SCRIPT_BODY_BYTES, MAX_SCRIPT_BODY_ENCODED_BYTES,
};
use crate::text::{check_args, check_nonempty_text, check_text};

/// What a task runs. Internally tagged by `"type"` on the wire.
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
    /// An in-process task. Not routable to a runner, so [`TaskSpec::validate`] rejects it.
    ///
    /// [`TaskSpec::validate`]: crate::TaskSpec::validate
    Embedded,
}

impl TaskKind {
    /// A subprocess task. Errors name `mode...`, `env[i]...` or `cwd`.
    pub fn subprocess(
        mode: SubprocessMode,
        env: TaskEnv,
        cwd: Option<String>,
    ) -> Result<Self, TaskError> {
        if let Some(cwd) = &cwd {
            check_nonempty_text("cwd", cwd, MAX_PATH_BYTES)?;
        }
        Ok(Self::Subprocess { mode, env, cwd })
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

    /// The wire name of the kind: `"subprocess"`, `"container"`, `"wasm"` or `"embedded"`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::Subprocess { .. } => "subprocess",
            Self::Container { .. } => "container",
            Self::Wasm { .. } => "wasm",
            Self::Embedded => "embedded",
        }
    }

    /// Whether a runner can take this kind (everything but [`TaskKind::Embedded`]).
    pub const fn is_routable(&self) -> bool {
        !matches!(self, Self::Embedded)
    }

    /// The task's own environment (empty for embedded tasks).
    pub fn env(&self) -> &TaskEnv {
        static EMPTY: TaskEnv = TaskEnv::empty();
        match self {
            Self::Subprocess { env, .. } | Self::Container { env, .. } | Self::Wasm { env, .. } => {
                env
            }
            Self::Embedded => &EMPTY,
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
/// use model_task::ScriptBody;
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
fn base64_detail(error: &base64::DecodeError) -> String {
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

// ---- Unvalidated wire twins. Parsing goes through these so that validation runs once, in
// ---- `TryFrom`, and reports the full field path.

/// The wire form of [`TaskKind`], unvalidated.
///
/// Read by hand rather than by serde's internally tagged enum, which buffers the whole
/// object before it looks at `"type"` (and cannot deny unknown fields on a unit variant):
/// one pass over the object collects every field any kind may have, then the fields the
/// `"type"` does not allow are rejected as unknown, naming the ones it does allow.
pub(crate) enum TaskKindRaw {
    Subprocess {
        mode: SubprocessModeRaw,
        env: EnvListRaw,
        cwd: Option<String>,
    },
    Container {
        image: String,
        command: Vec<String>,
        args: Vec<String>,
        env: EnvListRaw,
    },
    Wasm {
        module: String,
        args: Vec<String>,
        env: EnvListRaw,
    },
    Embedded,
}

/// The value of a kind's `"type"`.
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum KindType {
    Subprocess,
    Container,
    Wasm,
    Embedded,
}

/// Every field some kind may have, by wire name.
const KIND_FIELDS: &[&str] = &[
    "type", "mode", "env", "cwd", "image", "command", "args", "module",
];

impl KindType {
    /// The fields this kind allows, in the order an error lists them.
    const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Subprocess => &["type", "mode", "env", "cwd"],
            Self::Container => &["type", "image", "command", "args", "env"],
            Self::Wasm => &["type", "module", "args", "env"],
            Self::Embedded => &["type"],
        }
    }
}

impl<'de> Deserialize<'de> for TaskKindRaw {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> serde::de::Visitor<'de> for KindVisitor {
    type Value = TaskKindRaw;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a task kind object tagged by \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TaskKindRaw, A::Error> {
        let mut fields = FieldSet::new(KIND_FIELDS);
        let mut ty: Option<KindType> = None;
        let (mut mode, mut env, mut cwd) = (None, None, None);
        let (mut image, mut command, mut args, mut module) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            let allowed = ty.map(KindType::fields);
            match fields.note::<A::Error>(key, allowed)? {
                Some("type") => {
                    let value: KindType = map.next_value()?;
                    fields.check::<A::Error>(value.fields())?;
                    ty = Some(value);
                }
                Some("mode") => mode = Some(map.next_value::<SubprocessModeRaw>()?),
                Some("env") => env = map.next_value::<Option<EnvListRaw>>()?,
                Some("cwd") => cwd = map.next_value::<Option<String>>()?,
                Some("image") => image = Some(map.next_value::<String>()?),
                Some("command") => {
                    command = map.next_value::<Option<BoundedVec<String, Command>>>()?
                }
                Some("args") => args = map.next_value::<Option<BoundedVec<String, Args>>>()?,
                Some("module") => module = Some(map.next_value::<String>()?),
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        let ty = ty.ok_or_else(|| A::Error::missing_field("type"))?;
        Ok(match ty {
            KindType::Subprocess => TaskKindRaw::Subprocess {
                mode: mode.ok_or_else(|| A::Error::missing_field("mode"))?,
                env: env.unwrap_or_default(),
                cwd,
            },
            KindType::Container => TaskKindRaw::Container {
                image: image.ok_or_else(|| A::Error::missing_field("image"))?,
                command: command.unwrap_or_default().into_inner(),
                args: args.unwrap_or_default().into_inner(),
                env: env.unwrap_or_default(),
            },
            KindType::Wasm => TaskKindRaw::Wasm {
                module: module.ok_or_else(|| A::Error::missing_field("module"))?,
                args: args.unwrap_or_default().into_inner(),
                env: env.unwrap_or_default(),
            },
            KindType::Embedded => TaskKindRaw::Embedded,
        })
    }
}

/// The keys of a `"type"`-tagged object read so far: duplicates are rejected at once, and a
/// key the type does not allow as soon as the type is known (before that, the first unknown
/// key is kept to be reported when the type arrives).
struct FieldSet {
    all: &'static [&'static str],
    seen: Vec<&'static str>,
    unknown: Option<String>,
}

impl FieldSet {
    const fn new(all: &'static [&'static str]) -> Self {
        Self {
            all,
            seen: Vec::new(),
            unknown: None,
        }
    }

    /// Records `key`; its static name when it is a field some type allows, `None` when it is
    /// not (its value is to be skipped). `allowed` is the type's fields, once known.
    fn note<E: serde::de::Error>(
        &mut self,
        key: String,
        allowed: Option<&'static [&'static str]>,
    ) -> Result<Option<&'static str>, E> {
        let known = self.all.iter().copied().find(|name| *name == key);
        if let Some(allowed) = allowed
            && !known.is_some_and(|name| allowed.contains(&name))
        {
            return Err(E::unknown_field(&key, allowed));
        }
        match known {
            Some(name) if self.seen.contains(&name) => Err(E::duplicate_field(name)),
            Some(name) => {
                self.seen.push(name);
                Ok(Some(name))
            }
            None => {
                self.unknown.get_or_insert(key);
                Ok(None)
            }
        }
    }

    /// Checks the keys read before the type against the fields the type allows.
    fn check<E: serde::de::Error>(&self, allowed: &'static [&'static str]) -> Result<(), E> {
        if let Some(key) = &self.unknown {
            return Err(E::unknown_field(key, allowed));
        }
        match self.seen.iter().find(|name| !allowed.contains(name)) {
            Some(name) => Err(E::unknown_field(name, allowed)),
            None => Ok(()),
        }
    }
}

impl TryFrom<TaskKindRaw> for TaskKind {
    type Error = TaskError;

    fn try_from(raw: TaskKindRaw) -> Result<Self, TaskError> {
        match raw {
            TaskKindRaw::Subprocess { mode, env, cwd } => {
                let mode = SubprocessMode::try_from(mode).map_err(|e| e.at("mode"))?;
                let env = env.into_task_env().map_err(|e| e.at("env"))?;
                Self::subprocess(mode, env, cwd)
            }
            TaskKindRaw::Container {
                image,
                command,
                args,
                env,
            } => {
                let env = env.into_task_env().map_err(|e| e.at("env"))?;
                Self::container(image, command, args, env)
            }
            TaskKindRaw::Wasm { module, args, env } => {
                let env = env.into_task_env().map_err(|e| e.at("env"))?;
                Self::wasm(module, args, env)
            }
            TaskKindRaw::Embedded => Ok(Self::Embedded),
        }
    }
}

/// The wire form of [`SubprocessMode`], unvalidated; read in one pass like [`TaskKindRaw`].
pub(crate) enum SubprocessModeRaw {
    Command {
        command: String,
        args: Vec<String>,
    },
    Script {
        interpreter: InterpreterRaw,
        body: ScriptBodyRaw,
        args: Vec<String>,
    },
}

/// The value of a subprocess mode's `"type"`.
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum ModeType {
    Command,
    Script,
}

/// Every field some mode may have, by wire name.
const MODE_FIELDS: &[&str] = &["type", "command", "interpreter", "body", "args"];

impl ModeType {
    /// The fields this mode allows, in the order an error lists them.
    const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Command => &["type", "command", "args"],
            Self::Script => &["type", "interpreter", "body", "args"],
        }
    }
}

impl<'de> Deserialize<'de> for SubprocessModeRaw {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ModeVisitor)
    }
}

struct ModeVisitor;

impl<'de> serde::de::Visitor<'de> for ModeVisitor {
    type Value = SubprocessModeRaw;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a subprocess mode object tagged by \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SubprocessModeRaw, A::Error> {
        let mut fields = FieldSet::new(MODE_FIELDS);
        let mut ty: Option<ModeType> = None;
        let (mut command, mut interpreter, mut body, mut args) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            let allowed = ty.map(ModeType::fields);
            match fields.note::<A::Error>(key, allowed)? {
                Some("type") => {
                    let value: ModeType = map.next_value()?;
                    fields.check::<A::Error>(value.fields())?;
                    ty = Some(value);
                }
                Some("command") => command = Some(map.next_value::<String>()?),
                Some("interpreter") => interpreter = Some(map.next_value::<InterpreterRaw>()?),
                Some("body") => body = Some(map.next_value::<ScriptBodyRaw>()?),
                Some("args") => args = map.next_value::<Option<BoundedVec<String, Args>>>()?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        let ty = ty.ok_or_else(|| A::Error::missing_field("type"))?;
        Ok(match ty {
            ModeType::Command => SubprocessModeRaw::Command {
                command: command.ok_or_else(|| A::Error::missing_field("command"))?,
                args: args.unwrap_or_default().into_inner(),
            },
            ModeType::Script => SubprocessModeRaw::Script {
                interpreter: interpreter.ok_or_else(|| A::Error::missing_field("interpreter"))?,
                body: body.ok_or_else(|| A::Error::missing_field("body"))?,
                args: args.unwrap_or_default().into_inner(),
            },
        })
    }
}

impl TryFrom<SubprocessModeRaw> for SubprocessMode {
    type Error = TaskError;

    fn try_from(raw: SubprocessModeRaw) -> Result<Self, TaskError> {
        match raw {
            SubprocessModeRaw::Command { command, args } => Self::command(command, args),
            SubprocessModeRaw::Script {
                interpreter,
                body,
                args,
            } => {
                let interpreter =
                    Interpreter::try_from(interpreter).map_err(|e| e.at("interpreter"))?;
                let body = body.0.map_err(|e| e.at("body"))?;
                Self::script(interpreter, body, args)
            }
        }
    }
}

/// The wire form of [`Interpreter`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum InterpreterRaw {
    Bash,
    Python,
    Node,
    Custom { command: String, flag: String },
}

impl TryFrom<InterpreterRaw> for Interpreter {
    type Error = TaskError;

    fn try_from(raw: InterpreterRaw) -> Result<Self, TaskError> {
        match raw {
            InterpreterRaw::Bash => Ok(Self::Bash),
            InterpreterRaw::Python => Ok(Self::Python),
            InterpreterRaw::Node => Ok(Self::Node),
            InterpreterRaw::Custom { command, flag } => Self::custom(command, flag),
        }
    }
}

/// A script body as parsed: decoded straight from the borrowed JSON string, so an oversized
/// body is rejected by its length without being copied or decoded. The error is kept so the
/// caller can report it with the full field path.
pub(crate) struct ScriptBodyRaw(Result<ScriptBody, TaskError>);

impl<'de> Deserialize<'de> for ScriptBodyRaw {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ScriptBodyRaw;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a base64 string")
            }

            fn visit_str<E: serde::de::Error>(self, encoded: &str) -> Result<Self::Value, E> {
                Ok(ScriptBodyRaw(ScriptBody::from_base64(encoded)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests;
