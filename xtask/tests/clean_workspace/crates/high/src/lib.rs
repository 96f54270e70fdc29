//! High: the layer the upward-dependency cases point to.
//!
//! Layer 3. Depends on: nothing.
