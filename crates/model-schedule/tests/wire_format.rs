//! Every schedule-layer example in `docs/wire-format.md` (marked `<!-- schedule-wire: Type -->`)
//! parses as its marker says; accepted ones read back equal, and rejected ones fail with the
//! error written under them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::path::Path;

use model_schedule::{Action, Schedule, Trigger};
use serde::{Serialize, de::DeserializeOwned};

/// One marked example: type, whether rejected, the JSON, the error written under it, line.
struct Example {
    type_name: String,
    rejected: bool,
    json: String,
    error: Option<String>,
    line: usize,
}

fn examples(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(marker) = lines[i]
            .trim()
            .strip_prefix("<!-- schedule-wire:")
            .and_then(|m| m.strip_suffix("-->"))
        else {
            i += 1;
            continue;
        };
        let line = i + 1;
        let mut words = marker.split_whitespace();
        let type_name = words.next().expect("a type name").to_owned();
        let rejected = match words.next() {
            None => false,
            Some("rejected") => true,
            Some(other) => panic!("line {line}: unknown marker word {other:?}"),
        };
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```json"),
            "line {line}"
        );
        i += 2;
        let start = i;
        while lines.get(i).is_some_and(|l| l.trim() != "```") {
            i += 1;
        }
        let json = lines[start..i].join("\n");
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

fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(ex: &Example) {
    let parsed = serde_json::from_str::<T>(&ex.json);
    if ex.rejected {
        let err = parsed
            .expect_err(&format!("line {}: should be rejected", ex.line))
            .to_string();
        let want = ex
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("line {}: no error under it", ex.line));
        assert!(err.starts_with(want), "line {}: {err}", ex.line);
        return;
    }
    let value = parsed.unwrap_or_else(|e| panic!("line {}: {}: {e}", ex.line, ex.type_name));
    let again: T = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(again, value, "line {}: round trip", ex.line);
}

#[test]
fn every_schedule_example_parses_as_marked() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md");
    let markdown = std::fs::read_to_string(path).expect("docs/wire-format.md");
    let examples = examples(&markdown);
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples {
        match ex.type_name.as_str() {
            "Schedule" => check::<Schedule>(ex),
            "Trigger" => check::<Trigger>(ex),
            "Action" => check::<Action>(ex),
            other => panic!("line {}: unknown schedule wire type {other:?}", ex.line),
        }
        seen.insert((ex.type_name.clone(), ex.rejected));
    }
    for name in ["Schedule", "Trigger", "Action"] {
        assert!(
            seen.contains(&(name.to_owned(), false)),
            "no accepted {name} example"
        );
    }
    for name in ["Schedule", "Trigger", "Action"] {
        assert!(
            seen.contains(&(name.to_owned(), true)),
            "no rejected {name} example"
        );
    }
}

#[test]
fn the_design_example_fires_at_two_in_berlin() {
    let markdown = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md"),
    )
    .unwrap();
    let ex = examples(&markdown)
        .into_iter()
        .find(|e| e.type_name == "Schedule")
        .unwrap();
    let schedule: Schedule = serde_json::from_str(&ex.json).unwrap();
    // It keeps a week of succeeded backups and three failed ones.
    assert_eq!(schedule.history_limits(), Some((7, 3)));
    let times = schedule
        .next_fire_times("2026-03-28T12:00:00Z".parse().unwrap(), 2)
        .unwrap();
    // 02:00 does not exist on 29 March 2026 in Berlin: once, at 03:00 CEST.
    assert_eq!(times[0].to_rfc3339(), "2026-03-29T01:00:00+00:00");
    assert_eq!(times[1].to_rfc3339(), "2026-03-30T00:00:00+00:00");
}
