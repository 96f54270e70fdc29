//! `Parsed`, a flow or a flow run read with its rule errors kept as typed [`FlowError`]s, for
//! callers that report field paths on their own (an API's field-level causes, `taskctl check`).

use serde::{Deserialize, Deserializer};

use crate::error::FlowError;
use crate::run::{FlowRun, FlowRunRaw};
use crate::spec::{FlowSpec, FlowSpecRaw};

/// A value read from the wire whose shape serde accepted, holding either the valid value or
/// the [`FlowError`] of the first rule it breaks (all the cycles, for a cycle error): the flow
/// layer's counterpart of model-task's `Parsed`.
///
/// Deserializing a `FlowSpec` directly reports a broken rule through the deserializer's
/// error type, which keeps only its text. Deserializing a `Parsed<FlowSpec>` fails only for
/// what the deserializer itself checks (JSON syntax, wrong types, unknown or missing fields,
/// lists over their bounds); a broken rule comes back typed, with its
/// [`path`](FlowError::path) and its [`message`](FlowError::message). Implemented for
/// [`FlowSpec`] and [`FlowRun`].
///
/// ```
/// use model_flow::{FlowError, FlowSpec, Parsed};
///
/// let json = r#"{"name": "f", "jobs": [
///     {"name": "a", "dependsOn": ["b"], "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1}},
///     {"name": "b", "dependsOn": ["a"], "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1}}
/// ]}"#;
/// let parsed: Parsed<FlowSpec> = serde_json::from_str(json)?;
/// let Err(FlowError::Cycle { cycles, .. }) = parsed.into_result() else { panic!() };
/// assert_eq!(cycles[0].path(), "jobs[0].dependsOn[0]");
/// assert_eq!(cycles[0].message(), "jobs form a cycle: a -> b -> a");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Parsed<T>(Result<T, FlowError>);

impl<T> Parsed<T> {
    /// The valid value, or the error of the first rule it breaks.
    pub fn into_result(self) -> Result<T, FlowError> {
        self.0
    }

    /// The valid value or the error, by reference.
    pub fn as_result(&self) -> Result<&T, &FlowError> {
        self.0.as_ref()
    }
}

impl<'de> Deserialize<'de> for Parsed<FlowSpec> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        FlowSpecRaw::deserialize(deserializer).map(|raw| Parsed(FlowSpec::try_from(raw)))
    }
}

impl<'de> Deserialize<'de> for Parsed<FlowRun> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        FlowRunRaw::deserialize(deserializer).map(|raw| Parsed(FlowRun::try_from(raw)))
    }
}
