//! Finding citations of outside documents in one line of text.

use super::citations;

#[track_caller]
fn check(line: &str, expected: &[&str]) {
    assert_eq!(citations(line), expected, "line: {line}");
}

#[test]
fn finds_numbered_source_documents() {
    check(
        "//! Base-36 slugs (seed 002, \"ID scheme\").",
        &["seed 002"],
    );
    check("after Seed 003's `RunAttempt`", &["Seed 003"]);
    check("keys of `seeds/004` (timestamp first)", &["seeds/004"]);
    check(
        "seed003 and seed_004 and seed-05",
        &["seed003", "seed_004", "seed-05"],
    );
    check("see SEEDS/README.md", &["SEEDS/README"]);
}

#[test]
fn finds_numbered_parts_of_outside_documents() {
    check("of the test plan (section 11), and", &["section 11"]);
    check("Sections 3 and 4", &["Sections 3"]);
    check("(§11) and § 2", &["§11", "§ 2"]);
    check("invariant 5: the dedupe key", &["invariant 5"]);
    check("Target (issue 8): 3x", &["issue 8"]);
    check("issues 12", &["issues 12"]);
}

#[test]
fn finds_outside_documents_by_name() {
    check("written from DESIGN.md", &["DESIGN.md"]);
    check("as solti's README says", &["solti's README"]);
}

#[test]
fn leaves_ordinary_words_and_random_seeds_alone() {
    check("reproducible from a seed: --seed 42 --retries 10", &[]);
    check("the same seed prints the same schedule; seed 0 too", &[]);
    check("seeds in `fuzz/seeds/<target>/`", &[]);
    check("see the section \"Null\"; an invariant holds", &[]);
    check("Architecture invariant: no I/O", &[]);
    check("reissue 5 tokens; subsection 2; misissue 3", &[]);
    check("the issue is closed; 2 issues", &[]);
    check("seedling 003", &[]);
    check("docs/attempts.md", &[]);
    check("", &[]);
}
