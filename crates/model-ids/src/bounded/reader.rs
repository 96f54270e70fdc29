//! `BoundedReader`: a reader that gives at most a limit of bytes and fails at the first
//! byte past it, so a document read from outside costs at most the limit, however long it is.

use std::io::{self, Read};

/// Reads at most `limit` bytes of `inner`; the first read after them that finds more input
/// fails with [`io::ErrorKind::InvalidData`] and marks the reader [`exceeded`](Self::exceeded),
/// so a parser reading through it stops at once. A document of exactly `limit` bytes reads
/// whole. The reader pulls one byte past the limit to tell the two apart, never more.
///
/// ```
/// use std::io::Read;
/// use model_ids::BoundedReader;
///
/// let mut text = String::new();
/// let mut fits = BoundedReader::new(&b"four"[..], 4);
/// fits.read_to_string(&mut text)?;
/// assert_eq!(text, "four");
///
/// let mut over = BoundedReader::new(&b"fives"[..], 4);
/// assert!(over.read_to_string(&mut String::new()).is_err());
/// assert!(over.exceeded());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct BoundedReader<R> {
    inner: R,
    limit: usize,
    remaining: usize,
    exceeded: bool,
}

impl<R> BoundedReader<R> {
    /// A reader of at most `limit` bytes of `inner`.
    pub const fn new(inner: R, limit: usize) -> Self {
        Self {
            inner,
            limit,
            remaining: limit,
            exceeded: false,
        }
    }

    /// The limit in bytes.
    pub const fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the input went past the limit.
    pub const fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Read for BoundedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.remaining == 0 {
            // At the limit: one more byte means the input is too long.
            let mut probe = [0u8; 1];
            if self.exceeded || self.inner.read(&mut probe)? > 0 {
                self.exceeded = true;
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the input is longer than {} bytes", self.limit),
                ));
            }
            return Ok(0);
        }
        let end = buf.len().min(self.remaining);
        let read = match buf.get_mut(..end) {
            Some(part) => self.inner.read(part)?,
            None => 0,
        };
        self.remaining = self.remaining.saturating_sub(read);
        Ok(read)
    }
}

#[cfg(test)]
mod tests;
