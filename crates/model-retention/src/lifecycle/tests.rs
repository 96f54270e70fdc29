//! Unit tests of `lifecycle`.
