//! Repository automation for taskmodel, run as `cargo xtask <command>`.

fn main() {}
