//! Unit tests for `error`.
