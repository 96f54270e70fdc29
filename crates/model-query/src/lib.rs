//! Task queries: filters, ordering, keyset pagination and continuation tokens.
//!
//! Layer 3. Depends on: model-ids, model-selector, model-task.
//!
//! Architecture invariant: no I/O and no storage; evaluation runs over any iterator of tasks.
