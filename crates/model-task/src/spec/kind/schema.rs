//! JSON Schema (feature `schema`) for extension kinds, their specs and kind names.
//!
//! What only parsing checks: the lengths of each DNS label of the group (at most 63 bytes),
//! and the spec's total values and bytes of text.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::{
    ExtensionKind, ExtensionSpec, KindName, MAX_API_VERSION_BYTES, MAX_EXTENSION_KIND_BYTES,
    MAX_EXTENSION_SPEC_BYTES, MAX_EXTENSION_SPEC_DEPTH, MAX_EXTENSION_SPEC_VALUES,
};

/// `group/version`: a lowercase DNS subdomain with a dot, a lowercase DNS label starting with
/// a letter.
pub(crate) const API_VERSION_PATTERN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$";

/// A kind: an ASCII letter, then letters, digits or inner `-`.
pub(crate) const KIND_PATTERN: &str = "^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$";

/// The `apiVersion` property.
pub(crate) fn api_version() -> Schema {
    json_schema!({
        "description": "group/version, as a Kubernetes custom resource (images.example.com/v1).",
        "type": "string",
        "maxLength": MAX_API_VERSION_BYTES,
        "pattern": API_VERSION_PATTERN,
    })
}

/// The `kind` property.
pub(crate) fn kind() -> Schema {
    json_schema!({
        "description": "The kind within its apiVersion (Resize).",
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_EXTENSION_KIND_BYTES,
        "pattern": KIND_PATTERN,
    })
}

impl JsonSchema for ExtensionKind {
    fn schema_name() -> Cow<'static, str> {
        "ExtensionKind".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_task::ExtensionKind".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The name of an extension workload: apiVersion and kind.",
            "type": "object",
            "required": ["apiVersion", "kind"],
            "properties": { "apiVersion": api_version(), "kind": kind() },
            "additionalProperties": false,
        })
    }
}

impl JsonSchema for ExtensionSpec {
    fn schema_name() -> Cow<'static, str> {
        "ExtensionSpec".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_task::ExtensionSpec".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": format!(
                "The spec of an extension workload: a JSON object owned by the runner that \
                 implements it; at most {MAX_EXTENSION_SPEC_DEPTH} levels deep, \
                 {MAX_EXTENSION_SPEC_VALUES} values and {MAX_EXTENSION_SPEC_BYTES} bytes of \
                 keys and strings."
            ),
            "type": "object",
        })
    }
}

impl JsonSchema for KindName {
    fn schema_name() -> Cow<'static, str> {
        "KindName".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "model_task::KindName".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let extension = generator.subschema_for::<ExtensionKind>();
        json_schema!({
            "description": "A routable task kind: a built-in kind's type tag, or an \
                extension's apiVersion and kind.",
            "oneOf": [
                { "type": "string", "enum": ["subprocess", "container", "wasm"] },
                extension,
            ],
        })
    }
}
