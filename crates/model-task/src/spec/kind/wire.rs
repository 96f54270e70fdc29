//! The wire twins of a task kind, read by hand: one pass over a `"type"`-tagged object,
//! unknown and duplicate fields rejected as they arrive, validation after (in `TryFrom`) so
//! every error names its full field path.

use model_ids::BoundedVec;
use serde::Deserialize;
use serde::de::{Error as _, IgnoredAny, MapAccess};

use super::{ExtensionKind, ExtensionSpec, Interpreter, ScriptBody, SubprocessMode, TaskKind};
use crate::error::TaskError;
use crate::spec::env::EnvListRaw;
use crate::spec::limits::{Args, Command};

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
        fail_on_non_zero: bool,
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
    Extension {
        api_version: String,
        kind: String,
        spec: ExtensionSpec,
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
    Extension,
    Embedded,
}

/// Every field some kind may have, by wire name.
const KIND_FIELDS: &[&str] = &[
    "type",
    "mode",
    "env",
    "cwd",
    "failOnNonZero",
    "image",
    "command",
    "args",
    "module",
    "apiVersion",
    "kind",
    "spec",
];

impl KindType {
    /// The fields this kind allows, in the order an error lists them.
    const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Subprocess => &["type", "mode", "env", "cwd", "failOnNonZero"],
            Self::Container => &["type", "image", "command", "args", "env"],
            Self::Wasm => &["type", "module", "args", "env"],
            Self::Extension => &["type", "apiVersion", "kind", "spec"],
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
        let (mut fail_on_non_zero, mut api_version, mut kind, mut spec) = (None, None, None, None);
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
                Some("failOnNonZero") => fail_on_non_zero = map.next_value::<Option<bool>>()?,
                Some("apiVersion") => api_version = Some(map.next_value::<String>()?),
                Some("kind") => kind = Some(map.next_value::<String>()?),
                Some("spec") => spec = map.next_value::<Option<ExtensionSpec>>()?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        let ty = ty.ok_or_else(|| A::Error::missing_field("type"))?;
        Ok(match ty {
            KindType::Subprocess => TaskKindRaw::Subprocess {
                mode: mode.ok_or_else(|| A::Error::missing_field("mode"))?,
                env: env.unwrap_or_default(),
                cwd,
                fail_on_non_zero: fail_on_non_zero.unwrap_or(true),
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
            KindType::Extension => TaskKindRaw::Extension {
                api_version: api_version.ok_or_else(|| A::Error::missing_field("apiVersion"))?,
                kind: kind.ok_or_else(|| A::Error::missing_field("kind"))?,
                spec: spec.unwrap_or_default(),
            },
            KindType::Embedded => TaskKindRaw::Embedded,
        })
    }
}

/// The keys of a `"type"`-tagged object read so far: duplicates are rejected at once, and a
/// key the type does not allow as soon as the type is known (before that, the first unknown
/// key is kept to be reported when the type arrives).
pub(crate) struct FieldSet {
    all: &'static [&'static str],
    seen: Vec<&'static str>,
    unknown: Option<String>,
}

impl FieldSet {
    pub(crate) const fn new(all: &'static [&'static str]) -> Self {
        Self {
            all,
            seen: Vec::new(),
            unknown: None,
        }
    }

    /// Records `key`; its static name when it is a field some type allows, `None` when it is
    /// not (its value is to be skipped). `allowed` is the type's fields, once known.
    pub(crate) fn note<E: serde::de::Error>(
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
    pub(crate) fn check<E: serde::de::Error>(
        &self,
        allowed: &'static [&'static str],
    ) -> Result<(), E> {
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
            TaskKindRaw::Subprocess {
                mode,
                env,
                cwd,
                fail_on_non_zero,
            } => {
                let mode = SubprocessMode::try_from(mode).map_err(|e| e.at("mode"))?;
                let env = env.into_task_env().map_err(|e| e.at("env"))?;
                Self::subprocess(mode, env, cwd)?.with_fail_on_non_zero(fail_on_non_zero)
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
            TaskKindRaw::Extension {
                api_version,
                kind,
                spec,
            } => Ok(Self::extension(
                ExtensionKind::new(&api_version, &kind)?,
                spec,
            )),
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
pub(crate) struct ScriptBodyRaw(pub(super) Result<ScriptBody, TaskError>);

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
