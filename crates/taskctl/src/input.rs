//! Reading the documents taskctl checks: files or standard input, with a size bound.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest input taskctl reads, in bytes (16 MiB); a task spec is far smaller.
///
/// Reading stops one byte past it: a larger input is refused unread, never held.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The name under which standard input is reported.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// One document read from a file or standard input.
#[derive(Debug)]
pub(crate) struct Input {
    /// The path as the user gave it, or [`STDIN_NAME`].
    pub(crate) name: String,
    /// The text, or why it is not acceptable (too large, not UTF-8).
    pub(crate) text: Result<String, String>,
}

/// Reads `path`; `-` is `stdin`.
///
/// # Errors
///
/// An I/O error when the file cannot be opened or read: the caller reports it as a usage error.
pub(crate) fn read(path: &Path, stdin: &mut dyn Read) -> io::Result<Input> {
    if path == Path::new("-") {
        return read_from(STDIN_NAME.to_owned(), stdin, 0);
    }
    let name = path.display().to_string();
    let file = open(path, &name)?;
    // The file's length sizes the buffer, so a file is held once and not in a doubled buffer.
    let len = file.metadata().map_or(0, |meta| meta.len());
    read_from(name, file, len)
}

/// Opens `path` as [`read`] will, so that a missing, forbidden or directory path is reported
/// before anything is checked (`-` is always there).
///
/// # Errors
///
/// The error [`read`] would give on opening.
pub(crate) fn probe(path: &Path) -> io::Result<()> {
    if path == Path::new("-") {
        return Ok(());
    }
    open(path, &path.display().to_string()).map(drop)
}

fn open(path: &Path, name: &str) -> io::Result<File> {
    let file =
        File::open(path).map_err(|err| io::Error::new(err.kind(), format!("{name}: {err}")))?;
    if file.metadata().is_ok_and(|meta| meta.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("{name}: is a directory"),
        ));
    }
    Ok(file)
}

/// Reads at most [`MAX_INPUT_BYTES`] and one byte more from `reader`, `len_hint` bytes
/// expected (0 when unknown).
fn read_from(name: String, reader: impl Read, len_hint: u64) -> io::Result<Input> {
    let capacity = usize::try_from(len_hint.min(MAX_INPUT_BYTES) + 1).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| io::Error::new(err.kind(), format!("{name}: {err}")))?;
    let text = if bytes.len() as u64 > MAX_INPUT_BYTES {
        Err(format!("larger than {MAX_INPUT_BYTES} bytes"))
    } else {
        String::from_utf8(bytes).map_err(|err| {
            format!(
                "not UTF-8: invalid byte at offset {}",
                err.utf8_error().valid_up_to()
            )
        })
    };
    Ok(Input { name, text })
}

#[cfg(test)]
mod tests;
