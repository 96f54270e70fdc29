//! Unit tests of `resource`.
