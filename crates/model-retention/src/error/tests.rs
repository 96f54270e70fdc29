//! Unit tests of `error`.
