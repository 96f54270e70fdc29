//! Unit tests for `run`.
