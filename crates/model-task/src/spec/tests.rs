//! Unit tests for `spec`.
