//! `docs/retention.md` shows the default retention table as `RetentionPolicy::DEFAULT` has
//! it, cell for cell.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use std::path::Path;

use model_retention::{CascadePolicy, HistoryLimits, ResourceKind, RetentionPolicy};

/// The rows of the first table after the heading `## Defaults`, each as its cells.
fn default_table() -> Vec<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/retention.md");
    let doc = std::fs::read_to_string(path).expect("docs/retention.md");
    doc.lines()
        .skip_while(|line| line.trim() != "## Defaults")
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2) // the header and the separator
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

fn ttl(ms: Option<u64>) -> String {
    ms.map_or("none".to_owned(), |ms| ms.to_string())
}

fn history(limits: Option<HistoryLimits>) -> String {
    limits.map_or("none".to_owned(), |h| {
        format!("{}, {}", h.succeeded(), h.failed())
    })
}

fn cascade(cascade: CascadePolicy) -> &'static str {
    match cascade {
        CascadePolicy::Background => "background",
        CascadePolicy::Foreground => "foreground",
        CascadePolicy::Orphan => "orphan",
    }
}

#[test]
fn the_default_table_is_the_default_policy() {
    let rows = default_table();
    let want: Vec<Vec<String>> = ResourceKind::ALL
        .iter()
        .map(|&kind| {
            let rule = RetentionPolicy::DEFAULT.rule(kind);
            vec![
                kind.to_string(),
                rule.cleanup_priority().to_string(),
                ttl(rule.ttl_after_finished_ms()),
                cascade(rule.cascade()).to_owned(),
                history(rule.history()),
                if rule.hold_while_active() {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
            ]
        })
        .collect();
    assert_eq!(rows, want);
}
