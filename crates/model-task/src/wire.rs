//! Reading and describing every wire type at once: [`Parsed`], a value read with its broken
//! rule kept as a typed [`TaskError`](crate::TaskError), and, with the `schema` feature,
//! the JSON Schema of each wire type.
//!
//! Each concept keeps its own raw twin (the unvalidated form serde reads) beside its type;
//! this module only ties them together.

mod parsed;
#[cfg(feature = "schema")]
mod schema;

pub use self::parsed::Parsed;
