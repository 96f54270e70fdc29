//! The shared data contract of a task execution system: one facade over every taskmodel layer.
//!
//! Layer 4. Depends on: model-ids, model-policy, model-selector, model-task, model-query.
//!
//! Architecture invariant: no logic here; re-exports, the unified error and the prelude only.
