//! Shared fixtures for the taskmodel criterion benchmarks (the bench files live in `benches/`).
