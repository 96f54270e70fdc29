//! JSON Schema for the identifier types (feature `schema`).

use schemars::{Schema, json_schema};

use super::kind::{ID_ALLOWED, IdKind};

/// The schema of an identifier of `kind`: a string of 1 to `kind.max_len()` characters
/// from `[A-Za-z0-9._-]` that is neither `.` nor `..`.
pub(crate) fn id_schema(kind: IdKind) -> Schema {
    json_schema!({
        "type": "string",
        "description": format!(
            "A {kind}: {ID_ALLOWED} only, 1 to {} bytes, not \".\" or \"..\".",
            kind.max_len()
        ),
        "minLength": 1,
        "maxLength": kind.max_len(),
        "pattern": "^[A-Za-z0-9._-]+$",
        "not": { "enum": [".", ".."] }
    })
}
