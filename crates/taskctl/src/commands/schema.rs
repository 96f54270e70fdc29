//! `taskctl schema`: the JSON Schema of a wire type, or the list of wire types.

use std::collections::BTreeMap;
use std::io::Write;

use crate::cli::{Output, SchemaArgs};
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json};
use crate::wire::{WIRE_TYPES, find};

/// Prints one schema, the list of types (text), or every schema by name (JSON).
pub(crate) fn run(
    args: &SchemaArgs,
    output: Output,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    match (&args.type_name, output) {
        (Some(name), _) => {
            // clap accepts only the names in the table, so this is always found.
            let wire = find(name)
                .ok_or_else(|| CommandError::Argument(format!("unknown type {name:?}")))?;
            write_json(out, &(wire.schema)())?;
        }
        (None, Output::Json) => {
            let all: BTreeMap<&str, _> = WIRE_TYPES
                .iter()
                .map(|wire| (wire.name, (wire.schema)()))
                .collect();
            write_json(out, &all)?;
        }
        (None, Output::Text) => {
            let width = WIRE_TYPES
                .iter()
                .map(|wire| wire.name.len())
                .max()
                .unwrap_or(0);
            for wire in WIRE_TYPES {
                writeln!(out, "{:<width$}  {}", wire.name, wire.about)?;
            }
            writeln!(
                out,
                "\nrun `taskctl schema TYPE` for one schema, `taskctl schema --output json` for all"
            )?;
        }
    }
    Ok(Outcome::Valid)
}
