//! The real workspace keeps every rule of `cargo xtask check-layering`, so
//! `cargo test --workspace` enforces them.

use std::path::Path;

#[test]
fn workspace_keeps_every_rule() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let report = match xtask::check_layering(Some(&manifest)) {
        Ok(report) => report,
        Err(err) => panic!("cargo xtask check-layering could not run: {err}"),
    };
    assert!(
        report.is_clean(),
        "rules broken: {:?}\n{report}",
        report.broken_rules()
    );
}
