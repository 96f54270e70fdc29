//! Unit tests for `log`.
