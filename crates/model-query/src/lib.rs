//! Task queries: filters, ordering, keyset pagination and continuation tokens.
//!
//! Layer 3. Depends on: model-ids, model-selector, model-task.
//!
//! Architecture invariant: no I/O and no storage; evaluation runs over any iterator of tasks.
mod error;
mod hash;
mod order;
mod range;
mod select;
mod token;

pub use crate::{
    error::{ERROR_INPUT_MAX_CHARS, QueryError},
    order::{SortKey, SortOrder},
    range::TimeRange,
    token::{ContinueToken, MAX_TOKEN_LEN, TOKEN_VERSION},
};
