//! Labels, label selectors with their string syntax, matching and explanation, and an index of labeled runners.
//!
//! Layer 1. Depends on: model-ids.
//!
//! Architecture invariant: no I/O, no clock, no randomness; matching never allocates.
