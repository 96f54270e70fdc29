//! An adapter: I/O above the model crates; may use any crate, and only tools and adapters use it.
