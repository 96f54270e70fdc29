//! The Task aggregate: metadata, spec, kinds, environment, status, lifecycle, attempts and routing.
//!
//! Layer 2. Depends on: model-ids, model-policy, model-selector.
//!
//! Architecture invariant: no I/O, no hidden clock, no hidden randomness; every change takes `now`.
