//! Events a control plane streams to its readers: [`TaskWatchEvent`], the changes of a watch
//! of tasks with the resume rule ([`WatchWindow`]), and [`OutputEvent`], an attempt's live
//! output with its bounds. Both are plain data with a checked wire form; publishing,
//! buffering and delivering them belong to the layers above.

mod output;
#[cfg(feature = "schema")]
mod schema;
mod watch;

pub use self::{
    output::{
        MAX_OUTPUT_CHUNK_BYTES, MAX_OUTPUT_CHUNK_ENCODED_BYTES, OutputChunk, OutputEvent,
        OutputStream,
    },
    watch::{TaskWatchEvent, WatchWindow},
};
