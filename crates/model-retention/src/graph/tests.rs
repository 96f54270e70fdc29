//! Unit tests of `graph`.
