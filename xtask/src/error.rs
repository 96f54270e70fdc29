//! The one error type of xtask: what can stop a check before any rule is judged.

use std::{fmt, io, path::PathBuf};

/// Why a command could not do its job (usage and I/O problems, exit code 2).
///
/// A broken rule is not an error: it is reported in the [`Report`](crate::Report); nor is
/// a fuzzing finding: it is reported in the [`FuzzSummary`](crate::FuzzSummary).
#[derive(Debug)]
#[non_exhaustive]
pub enum XtaskError {
    /// `cargo metadata` could not be started or exited with a failure.
    Cargo {
        /// What went wrong, including cargo's own message when there is one.
        message: String,
    },
    /// `cargo metadata` printed something that is not the expected JSON.
    Metadata {
        /// The JSON field path that was missing or malformed, and why.
        message: String,
    },
    /// `[workspace.metadata.layers]` is missing or malformed.
    LayerTable {
        /// The field path inside the table and the reason.
        message: String,
    },
    /// `cargo +nightly fuzz` could not build or run, or a target name is unknown.
    Fuzz {
        /// What went wrong.
        message: String,
    },
    /// The throwaway PostgreSQL server could not be installed, started or used.
    Postgres {
        /// What went wrong, with the failing step's output.
        message: String,
    },
    /// A file or directory could not be read or written.
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl fmt::Display for XtaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cargo { message } => write!(f, "cargo metadata failed: {message}"),
            Self::Metadata { message } => write!(f, "unexpected cargo metadata output: {message}"),
            Self::LayerTable { message } => {
                write!(f, "bad [workspace.metadata.layers] table: {message}")
            }
            Self::Fuzz { message } => write!(f, "fuzzing failed: {message}"),
            Self::Postgres { message } => write!(f, "test server: {message}"),
            Self::Io { path, source } => {
                write!(f, "cannot read or write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for XtaskError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Cargo { .. }
            | Self::Metadata { .. }
            | Self::LayerTable { .. }
            | Self::Fuzz { .. }
            | Self::Postgres { .. } => None,
        }
    }
}
