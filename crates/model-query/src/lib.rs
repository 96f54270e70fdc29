//! Task queries and run-history pages: filters, ordering, keyset pagination and continuation
//! tokens.
//!
//! Layer 3. Depends on: model-ids, model-selector, model-task.
//!
//! Architecture invariant: no I/O and no storage; evaluation runs over any iterator of tasks
//! or attempts.
//!
//! A [`TaskQuery`] says which tasks of one tenant a listing returns (the tenant is
//! required; filters on slot, phases, a label selector over the task's labels, creation and
//! update time ranges), in which order ([`SortOrder`] over
//! the [`SortKey`] `(created_at, id)`), and how many per page (`limit`, [`DEFAULT_LIMIT`],
//! at most [`MAX_LIMIT`]). It comes from [`TaskQuery::builder`], from decoded URL query
//! pairs ([`TaskQuery::from_pairs`]) or from camelCase JSON, and every way validates.
//!
//! [`TaskQuery::evaluate`] is the reference evaluation over any iterator of
//! [`Queryable`] tasks: it picks the page with a bounded heap in O(n log limit) and
//! returns a [`TaskPage`] with a [`ContinueToken`] when more follow. Pages are
//! keyset-based: the next page starts strictly after the last key returned, so a task
//! that exists for the whole listing is returned exactly once while others come and go.
//! `docs/keyset-pagination.md` shows how a SQL or key-value store gives the same order.
//!
//! Tokens are opaque URL-safe strings bound to the query's filters and order; a token that
//! is damaged, forged carelessly, or used with another query is a [`QueryError`], never a
//! panic. They are tamper-evident, not secret: see [`ContinueToken`].
//!
//! A [`TaskRunQuery`] lists one task's attempts (its run history) the same way: filters on
//! the attempt's state and runner, ordered by attempt number, in [`TaskRunPage`]s with a
//! [`RunContinueToken`] made by the same token machinery. A token of one listing is refused
//! by the other ([`QueryError::TokenListingMismatch`]).
//!
//! Every input is bounded by a public constant: [`MAX_QUERY_PAIRS`],
//! [`MAX_RUN_QUERY_PAIRS`], [`MAX_VALUE_LEN`], [`MAX_PHASES`], [`MAX_STATES`],
//! [`MAX_TOKEN_LEN`].
//!
//! With the `schema` feature, [`TaskQuery`] and [`TaskRunQuery`] (their JSON forms),
//! [`SortOrder`], [`ContinueToken`] and [`RunContinueToken`] implement `schemars::JsonSchema`.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod error;
mod filter;
mod hash;
mod item;
mod order;
mod pairs;
mod query;
mod range;
mod run;
#[cfg(feature = "schema")]
mod schema;
mod select;
mod token;
mod values;
mod wire;

pub use crate::{
    error::QueryError,
    item::{Queryable, QueryableRun},
    order::{SortKey, SortOrder},
    pairs::MAX_QUERY_PAIRS,
    query::{TaskPage, TaskQuery, TaskQueryBuilder},
    range::TimeRange,
    run::{MAX_RUN_QUERY_PAIRS, MAX_STATES, TaskRunPage, TaskRunQuery, TaskRunQueryBuilder},
    token::{ContinueToken, MAX_TOKEN_LEN, RunContinueToken, TOKEN_VERSION},
    values::{DEFAULT_LIMIT, MAX_LIMIT, MAX_PHASES, MAX_VALUE_LEN},
};
