//! docs/ARCHITECTURE.md quotes the layer table of the root Cargo.toml, and the quote stays exact.
#![allow(
    clippy::expect_used,
    reason = "a test helper that cannot find its input should fail the test with that message"
)]

use std::{fs, path::Path};

/// The meaningful lines of a TOML fragment: no blank lines, no comment lines, trimmed.
fn meaningful(lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The `[workspace.metadata.layers*]` tables of a manifest, up to the next other table.
fn layer_table(manifest: &str) -> Vec<String> {
    let lines: Vec<&str> = manifest.lines().collect();
    let start = lines
        .iter()
        .position(|line| line.trim() == "[workspace.metadata.layers]")
        .expect("the root Cargo.toml has a [workspace.metadata.layers] table");
    let end = lines[start..]
        .iter()
        .position(|line| {
            let line = line.trim();
            line.starts_with('[') && !line.starts_with("[workspace.metadata.layers")
        })
        .map_or(lines.len(), |offset| start + offset);
    meaningful(&lines[start..end])
}

/// The first ```toml block after the heading "## The layer table".
fn quoted_table(doc: &str) -> Vec<String> {
    let lines: Vec<&str> = doc.lines().collect();
    let heading = lines
        .iter()
        .position(|line| line.trim() == "## The layer table")
        .expect("docs/ARCHITECTURE.md has a section \"## The layer table\"");
    let open = heading
        + lines[heading..]
            .iter()
            .position(|line| line.trim() == "```toml")
            .expect("the layer table section quotes the table in a ```toml block");
    let close = open
        + 1
        + lines[open + 1..]
            .iter()
            .position(|line| line.trim() == "```")
            .expect("the ```toml block is closed");
    meaningful(&lines[open + 1..close])
}

#[test]
fn architecture_doc_quotes_the_layer_table_exactly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("read Cargo.toml");
    let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let table = layer_table(&manifest);
    assert!(table.len() > 2, "the layer table looks empty: {table:?}");
    assert_eq!(
        quoted_table(&doc),
        table,
        "docs/ARCHITECTURE.md must quote [workspace.metadata.layers] as the root Cargo.toml has it \
         (comments and blank lines aside); update the quote in the same change as the table"
    );
}
