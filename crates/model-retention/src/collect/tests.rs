//! Unit tests of `collect`.
