//! Unit tests for `restart`.
