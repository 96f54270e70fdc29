//! Every `<!-- wire(fleet): Type -->` example in `docs/wire-format.md` parses as the type it
//! names (or is rejected when the marker says so), and accepted examples survive a round
//! trip.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, check, markdown};

use model_fleet::{ApiError, Context, KindSet, LogBatch, Runner};

/// The `<!-- wire(fleet): Type [rejected] -->` examples of `markdown`.
fn examples(markdown: &str) -> Vec<Example> {
    wire_examples::examples(markdown, "wire(fleet)")
}

/// Reads `ex` as the type its marker names with the shared check (a rejected example must
/// fail, an accepted one read back equal): the error's text, or `Ok` for an accepted one.
fn parse_as_marked(ex: &Example) -> Result<(), String> {
    let error = match ex.type_name.as_str() {
        "Runner" => check::<Runner>(ex),
        "ApiError" => check::<ApiError>(ex),
        "Context" => check::<Context>(ex),
        "LogBatch" => check::<LogBatch>(ex),
        "KindSet" => check::<KindSet>(ex),
        other => panic!("line {}: unknown wire type {other:?}", ex.line),
    };
    error.map_or(Ok(()), Err)
}

/// The types with at least one accepted and one rejected example.
const REQUIRED: &[&str] = &["Runner", "KindSet", "ApiError", "Context", "LogBatch"];

#[test]
fn every_fleet_example_parses_as_marked() {
    let examples = examples(&markdown());
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples {
        let parsed = parse_as_marked(ex);
        assert_eq!(
            parsed.is_err(),
            ex.rejected,
            "line {}: {} example: {parsed:?}",
            ex.line,
            ex.type_name
        );
        seen.insert((ex.type_name.as_str(), ex.rejected));
    }
    for required in REQUIRED {
        assert!(
            seen.contains(&(*required, false)),
            "no accepted {required} example"
        );
        assert!(
            seen.contains(&(*required, true)),
            "no rejected {required} example"
        );
    }
}

#[test]
fn the_rejected_examples_fail_for_the_reason_the_docs_give() {
    let errors: Vec<String> = examples(&markdown())
        .iter()
        .filter(|e| e.rejected)
        .filter_map(|e| parse_as_marked(e).err())
        .collect();
    let want = [
        "invalid maxConcurrent: 0 is out of range (1 to 1024)",
        r#"unknown task kind "embedded""#,
        r#"unknown error code "teapot""#,
        r#"invalid readers: actor "bob" is listed twice"#,
        "invalid lines[1].sequence: 17 is not above the line before it (18)",
    ];
    assert_eq!(errors.len(), want.len(), "{errors:?}");
    for (error, want) in errors.iter().zip(want) {
        assert!(error.starts_with(want), "{error}");
    }
}
