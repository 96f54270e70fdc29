//! Log batches: what a runner uploads for an attempt ([`LogBatch`] of [`LogLine`]s), bounded
//! in lines and bytes, and which of its lines are new for a store ([`LogBatch::accept`],
//! with model-task's `LogCursor`).

use std::fmt;

use chrono::{DateTime, Utc};
use model_ids::{BoundedVec, Limit};
use model_task::attempt::{LogCursor, LogKey};
use serde::{Deserialize, Serialize};

use crate::error::FleetError;

/// Most lines in one [`LogBatch`].
pub const MAX_LOG_BATCH_LINES: usize = 100;

/// Most bytes of one [`LogLine`]'s text (8 KiB); a runner splits or cuts a longer line.
pub const MAX_LOG_LINE_BYTES: usize = 8 * 1024;

/// The stream a log line came from: `stdout` or `stderr` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum LogStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl LogStream {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogStream::Stdout => "stdout",
            LogStream::Stderr => "stderr",
        }
    }

    /// The stream whose wire name is `name` (the inverse of [`as_str`](Self::as_str)), or
    /// `None` for any other text.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "stdout" => Some(LogStream::Stdout),
            "stderr" => Some(LogStream::Stderr),
            _ => None,
        }
    }
}

impl fmt::Display for LogStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of an attempt's output: its sequence number within the attempt (the runner
/// numbers the lines of an attempt in increasing order, across both streams), its stream,
/// its text (at most [`MAX_LOG_LINE_BYTES`]) and when the runner read it.
///
/// On the wire: `{"sequence": 17, "stream": "stdout", "line": "copied 12 files",
/// "loggedAt": "2026-11-22T10:00:01Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "LogLineRaw", rename_all = "camelCase")]
pub struct LogLine {
    sequence: u64,
    stream: LogStream,
    line: String,
    logged_at: DateTime<Utc>,
}

impl LogLine {
    /// Line `sequence`, read from `stream` at `logged_at`.
    ///
    /// # Errors
    ///
    /// [`FleetError::TooLong`] for a text over [`MAX_LOG_LINE_BYTES`].
    pub fn new(
        sequence: u64,
        stream: LogStream,
        line: impl Into<String>,
        logged_at: DateTime<Utc>,
    ) -> Result<Self, FleetError> {
        LogLineRaw {
            sequence,
            stream,
            line: line.into(),
            logged_at,
        }
        .check(None)
    }

    /// The sequence number within the attempt.
    pub const fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The stream.
    pub const fn stream(&self) -> LogStream {
        self.stream
    }

    /// The text.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// When the runner read it.
    pub const fn logged_at(&self) -> DateTime<Utc> {
        self.logged_at
    }
}

/// Lines of one attempt, as a runner uploads them: 1 to [`MAX_LOG_BATCH_LINES`] lines, in
/// strictly increasing sequence order.
///
/// A runner resends a batch whole after a lost reply, so a store keeps only the lines that
/// are new: [`accept`](Self::accept) gives them with model-task's `LogCursor`, the dedupe
/// rule of `docs/attempts.md` ("Log dedupe") by `(attempt, sequence)`. Because a batch's
/// sequences increase, the new lines are always a suffix of the batch.
///
/// On the wire: `{"attempt": 2, "lines": [{"sequence": 17, ...}, ...]}`.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use model_fleet::{LogBatch, LogLine, LogStream};
/// use model_task::attempt::LogCursor;
///
/// let at = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
/// let line = |n| LogLine::new(n, LogStream::Stdout, format!("line {n}"), at);
/// let first = LogBatch::new(1, vec![line(0)?, line(1)?])?;
/// let overlapping = LogBatch::new(1, vec![line(1)?, line(2)?])?;
///
/// let mut cursor = LogCursor::new();
/// assert_eq!(first.accept(&mut cursor).len(), 2);
/// assert_eq!(first.accept(&mut cursor).len(), 0, "a resent batch stores nothing");
/// let new = overlapping.accept(&mut cursor);
/// assert_eq!(new.iter().map(LogLine::sequence).collect::<Vec<_>>(), [2]);
/// # Ok::<(), model_fleet::FleetError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "LogBatchRaw")]
pub struct LogBatch {
    attempt: u32,
    lines: Vec<LogLine>,
}

impl LogBatch {
    /// The batch of `lines` of attempt `attempt`.
    ///
    /// # Errors
    ///
    /// [`FleetError::InvalidAttempt`] for attempt 0; [`FleetError::EmptyLogBatch`],
    /// [`FleetError::TooManyEntries`] for more than [`MAX_LOG_BATCH_LINES`];
    /// [`FleetError::LogSequenceOrder`] for a sequence not above the one before.
    pub fn new(attempt: u32, lines: Vec<LogLine>) -> Result<Self, FleetError> {
        if lines.len() > MAX_LOG_BATCH_LINES {
            return Err(FleetError::TooManyEntries {
                field: "lines",
                max: MAX_LOG_BATCH_LINES,
            });
        }
        Self::checked(attempt, lines)
    }

    /// The batch, once its count is known to be within the bound.
    fn checked(attempt: u32, lines: Vec<LogLine>) -> Result<Self, FleetError> {
        if attempt == 0 {
            return Err(FleetError::InvalidAttempt);
        }
        if lines.is_empty() {
            return Err(FleetError::EmptyLogBatch);
        }
        for (index, pair) in lines.windows(2).enumerate() {
            if let [before, line] = pair
                && line.sequence <= before.sequence
            {
                return Err(FleetError::LogSequenceOrder {
                    index: index + 1,
                    sequence: line.sequence,
                    before: before.sequence,
                });
            }
        }
        Ok(Self { attempt, lines })
    }

    /// The attempt the lines belong to.
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The lines, in sequence order.
    pub fn lines(&self) -> &[LogLine] {
        &self.lines
    }

    /// The dedupe key of each line, in order.
    pub fn keys(&self) -> impl Iterator<Item = LogKey> + '_ {
        self.lines
            .iter()
            .map(|line| LogKey::new(self.attempt, line.sequence))
    }

    /// The lines that are new past `cursor` (a suffix of the batch, maybe empty), and
    /// `cursor` moved past them: what a store keeps, with the cursor's last key.
    pub fn accept(&self, cursor: &mut LogCursor) -> &[LogLine] {
        let first_new = self
            .lines
            .partition_point(|line| !cursor.is_new(LogKey::new(self.attempt, line.sequence)));
        let new = self.lines.get(first_new..).unwrap_or_default();
        if let Some(last) = new.last() {
            let _ = cursor.accept(LogKey::new(self.attempt, last.sequence));
        }
        new
    }
}

/// A line as read, before its rules are checked.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LogLineRaw {
    sequence: u64,
    stream: LogStream,
    line: String,
    logged_at: DateTime<Utc>,
}

impl LogLineRaw {
    /// The line, if its text is within [`MAX_LOG_LINE_BYTES`]; `index` is its place in a
    /// batch, for the error's path.
    fn check(self, index: Option<usize>) -> Result<LogLine, FleetError> {
        if self.line.len() > MAX_LOG_LINE_BYTES {
            return Err(FleetError::TooLong {
                field: match index {
                    Some(index) => format!("lines[{index}].line"),
                    None => "line".to_owned(),
                },
                len: self.line.len(),
                max: MAX_LOG_LINE_BYTES,
            });
        }
        Ok(LogLine {
            sequence: self.sequence,
            stream: self.stream,
            line: self.line,
            logged_at: self.logged_at,
        })
    }
}

impl TryFrom<LogLineRaw> for LogLine {
    type Error = FleetError;

    fn try_from(raw: LogLineRaw) -> Result<Self, FleetError> {
        raw.check(None)
    }
}

/// The bound of a batch's `lines`.
enum Lines {}

impl Limit for Lines {
    const FIELD: &'static str = "lines";
    const MAX: usize = MAX_LOG_BATCH_LINES;
}

/// A batch as read, before its rules are checked.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LogBatchRaw {
    attempt: u32,
    lines: BoundedVec<LogLineRaw, Lines>,
}

impl TryFrom<LogBatchRaw> for LogBatch {
    type Error = FleetError;

    fn try_from(raw: LogBatchRaw) -> Result<Self, FleetError> {
        let lines = raw
            .lines
            .into_inner()
            .into_iter()
            .enumerate()
            .map(|(index, line)| line.check(Some(index)))
            .collect::<Result<Vec<_>, _>>()?;
        Self::checked(raw.attempt, lines)
    }
}

#[cfg(test)]
mod tests;
