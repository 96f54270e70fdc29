//! Unit tests for `attempt`.
