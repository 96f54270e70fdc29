//! Restart, backoff and admission policies, and the retry delay computation.
//!
//! Layer 1. Depends on: nothing.
//!
//! Architecture invariant: no I/O, no clock, no hidden randomness; random numbers come from the caller.
