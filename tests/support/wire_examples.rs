//! The marked JSON examples of `docs/wire-format.md`, read one way for every crate.
//!
//! Each crate's `tests/wire_format.rs` includes this file with `#[path]` and asks for its own
//! marker (`wire`, `wire(query)`, `wire(flow)`, `schedule-wire`, ...). It is a file rather
//! than a crate because a test-support crate would be a tool, and the layer rules forbid a
//! model crate to depend on a tool, even for its tests.
#![allow(dead_code, reason = "each crate's tests use the parts they need")]

use std::path::Path;

/// One marked example: the type it is marked as, whether it must be rejected, the JSON, the
/// error written under it (a line `` error: `...` `` right after the block), and the line of
/// its marker (1-based).
pub(crate) struct Example {
    pub(crate) type_name: String,
    pub(crate) rejected: bool,
    pub(crate) json: String,
    pub(crate) error: Option<String>,
    pub(crate) line: usize,
}

/// The text of `docs/wire-format.md`, found from the including crate's directory.
pub(crate) fn markdown() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `<!-- MARKER: Type [rejected] -->` of `markdown` and the ```` ```json ```` block
/// that must follow it. Panics (the test fails) on a marker with an unknown word or without a
/// block.
pub(crate) fn examples(markdown: &str, marker: &str) -> Vec<Example> {
    let prefix = format!("<!-- {marker}:");
    let lines: Vec<&str> = markdown.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(text) = lines.get(i) {
        let Some(words) = text
            .trim()
            .strip_prefix(prefix.as_str())
            .and_then(|m| m.strip_suffix("-->"))
        else {
            i += 1;
            continue;
        };
        let line = i + 1;
        let mut words = words.split_whitespace();
        let type_name = words
            .next()
            .unwrap_or_else(|| panic!("line {line}: a type name after `{marker}:`"))
            .to_owned();
        let rejected = match words.next() {
            None => false,
            Some("rejected") => true,
            Some(other) => panic!("line {line}: unknown marker word {other:?}"),
        };
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```json"),
            "line {line}: marker not followed by a json block"
        );
        i += 2;
        let start = i;
        while lines.get(i).is_some_and(|l| l.trim() != "```") {
            i += 1;
        }
        let json = lines.get(start..i).unwrap_or_default().join("\n");
        let error = lines
            .get(i + 1)
            .and_then(|l| l.strip_prefix("error: `"))
            .and_then(|l| l.strip_suffix('`'))
            .map(str::to_owned);
        found.push(Example {
            type_name,
            rejected,
            json,
            error,
            line,
        });
    }
    found
}

/// Reads `ex` as a `T`: a rejected example gives its error's text (and fails the test when it
/// parses); an accepted one must parse and read back equal after writing, and gives `None`.
pub(crate) fn check<T>(ex: &Example) -> Option<String>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let parsed = serde_json::from_str::<T>(&ex.json);
    if ex.rejected {
        return Some(
            parsed
                .err()
                .unwrap_or_else(|| panic!("line {}: should be rejected", ex.line))
                .to_string(),
        );
    }
    let value =
        parsed.unwrap_or_else(|e| panic!("line {}: {} example: {e}", ex.line, ex.type_name));
    let json = serde_json::to_string(&value).unwrap_or_else(|e| panic!("line {}: {e}", ex.line));
    let again: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("line {}: {e}", ex.line));
    assert_eq!(again, value, "line {}: round trip", ex.line);
    None
}
