//! Identity newtypes (`TaskId`, `Slot`, `AgentId`, `RunnerId`), their length limits, and base-36 slugs.
//!
//! Layer 0. Depends on: nothing.
//!
//! Architecture invariant: no I/O, no clock, no randomness; this crate knows nothing about tasks.
