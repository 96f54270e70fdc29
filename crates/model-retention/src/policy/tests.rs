//! Unit tests of `policy`.
