//! `OutputEvent`, an attempt's live output: chunks of stdout and stderr, the run's start and
//! finish, and the notice that a reader fell behind; with their bounds.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::AttemptOutcome;
use crate::spec::{FieldSet, base64_detail};

/// Most bytes of output one chunk carries (64 KiB); a runner cuts longer output into chunks
/// or cuts a chunk and marks it truncated ([`OutputChunk::cut`]).
pub const MAX_OUTPUT_CHUNK_BYTES: usize = 64 * 1024;

/// Most characters of base64 a chunk's `data` may hold on the wire:
/// `4 * ceil(MAX_OUTPUT_CHUNK_BYTES / 3)`, checked before anything is decoded.
pub const MAX_OUTPUT_CHUNK_ENCODED_BYTES: usize = MAX_OUTPUT_CHUNK_BYTES.div_ceil(3) * 4;

/// The stream a chunk of output came from: `stdout` or `stderr` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl OutputStream {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Stdout => "stdout",
            Self::Stderr => "stderr",
        }
    }
}

impl fmt::Display for OutputStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A chunk of one attempt's output: bytes as the process wrote them (not necessarily text,
/// not necessarily whole lines), 1 to [`MAX_OUTPUT_CHUNK_BYTES`] of them.
///
/// `sequence` numbers the chunks of one attempt and stream from 0, with no gap: a reader that
/// handled chunk `n` of a stream resumes after it, and a chunk with a later number than the
/// next it expects means chunks were lost (a publisher says so with
/// [`OutputEvent::Lagged`]). `truncated` says output was left out after the end of this
/// chunk (the runner cut a line longer than it forwards). `at` is when the runner read it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OutputChunk {
    attempt: u32,
    stream: OutputStream,
    sequence: u64,
    at: DateTime<Utc>,
    data: Vec<u8>,
    truncated: bool,
}

impl OutputChunk {
    /// A chunk of `data`.
    ///
    /// # Errors
    ///
    /// [`TaskError::Invalid`] at `attempt` (zero) or `data` (empty, or more than
    /// [`MAX_OUTPUT_CHUNK_BYTES`]).
    pub fn new(
        attempt: u32,
        stream: OutputStream,
        sequence: u64,
        at: DateTime<Utc>,
        data: Vec<u8>,
        truncated: bool,
    ) -> Result<Self, TaskError> {
        check_attempt(attempt)?;
        if data.is_empty() {
            return Err(TaskError::invalid("data", InvalidReason::Empty));
        }
        if data.len() > MAX_OUTPUT_CHUNK_BYTES {
            return Err(TaskError::invalid(
                "data",
                InvalidReason::TooLong {
                    len: data.len(),
                    max: MAX_OUTPUT_CHUNK_BYTES,
                },
            ));
        }
        Ok(Self {
            attempt,
            stream,
            sequence,
            at,
            data,
            truncated,
        })
    }

    /// A chunk of the first [`MAX_OUTPUT_CHUNK_BYTES`] of `output`, marked truncated when
    /// `output` is longer: the rule a runner applies to a line too long to forward whole.
    ///
    /// ```
    /// use chrono::DateTime;
    /// use model_task::event::{MAX_OUTPUT_CHUNK_BYTES, OutputChunk, OutputStream};
    ///
    /// let long = vec![b'x'; MAX_OUTPUT_CHUNK_BYTES + 10];
    /// let chunk = OutputChunk::cut(1, OutputStream::Stdout, 0, DateTime::UNIX_EPOCH, &long)?;
    /// assert_eq!(chunk.data().len(), MAX_OUTPUT_CHUNK_BYTES);
    /// assert!(chunk.truncated());
    /// # Ok::<(), model_task::TaskError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`OutputChunk::new`]: attempt zero or empty output.
    pub fn cut(
        attempt: u32,
        stream: OutputStream,
        sequence: u64,
        at: DateTime<Utc>,
        output: &[u8],
    ) -> Result<Self, TaskError> {
        let kept = output.get(..MAX_OUTPUT_CHUNK_BYTES).unwrap_or(output);
        let truncated = kept.len() < output.len();
        Self::new(attempt, stream, sequence, at, kept.to_vec(), truncated)
    }

    /// The attempt that wrote it (from 1).
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Its stream.
    pub const fn stream(&self) -> OutputStream {
        self.stream
    }

    /// Its number among the chunks of its attempt and stream, from 0.
    pub const fn sequence(&self) -> u64 {
        self.sequence
    }

    /// When the runner read it.
    pub const fn at(&self) -> DateTime<Utc> {
        self.at
    }

    /// The bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Whether output was left out after this chunk's end.
    pub const fn truncated(&self) -> bool {
        self.truncated
    }
}

/// An event of an attempt's live output, tagged by `"type"` on the wire.
///
/// ```text
/// {"type": "chunk", "attempt": 1, "stream": "stdout", "sequence": 0, "at": TIME, "data": BASE64, "truncated": true?}
/// {"type": "runStarted", "attempt": 1, "startedAt": TIME}
/// {"type": "runFinished", "attempt": 1, "finishedAt": TIME, "outcome": "failed", "exitCode": 2?}
/// {"type": "lagged", "dropped": 42, "droppedBytes": 65536?}
/// ```
///
/// `data` is standard base64 with padding; its encoded length is checked against
/// [`MAX_OUTPUT_CHUNK_ENCODED_BYTES`] before it is decoded. `truncated` is written only when
/// true, `exitCode` only when known, `droppedBytes` only when not zero. The run markers are
/// not ordering barriers: chunks of an attempt may arrive after its `runFinished`; order
/// chunks by `(attempt, stream, sequence)`.
///
/// ```
/// use model_task::event::OutputEvent;
///
/// let event: OutputEvent = serde_json::from_str(
///     r#"{"type": "chunk", "attempt": 1, "stream": "stderr", "sequence": 0,
///         "at": "2025-01-01T00:00:00Z", "data": "aGk="}"#,
/// )?;
/// let OutputEvent::Chunk(chunk) = &event else { unreachable!() };
/// assert_eq!(chunk.data(), b"hi");
/// let lagged = r#"{"type": "lagged", "dropped": 0}"#;
/// assert!(serde_json::from_str::<OutputEvent>(lagged).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputEvent {
    /// Output bytes of an attempt.
    Chunk(OutputChunk),
    /// An attempt started running.
    #[non_exhaustive]
    RunStarted {
        /// The attempt (from 1).
        attempt: u32,
        /// When it started.
        started_at: DateTime<Utc>,
    },
    /// An attempt ended.
    #[non_exhaustive]
    RunFinished {
        /// The attempt (from 1).
        attempt: u32,
        /// When it ended.
        finished_at: DateTime<Utc>,
        /// How it ended.
        outcome: AttemptOutcome,
        /// The process's exit status, when it has one.
        exit_code: Option<i32>,
    },
    /// The reader fell behind and events were dropped before the next one it gets.
    #[non_exhaustive]
    Lagged {
        /// How many events were dropped (at least 1).
        dropped: u64,
        /// How many bytes of output the dropped chunks held (0 when unknown).
        dropped_bytes: u64,
    },
}

impl OutputEvent {
    /// A run-started marker. Errors name `attempt` (zero).
    pub fn run_started(attempt: u32, started_at: DateTime<Utc>) -> Result<Self, TaskError> {
        check_attempt(attempt)?;
        Ok(Self::RunStarted {
            attempt,
            started_at,
        })
    }

    /// A run-finished marker. Errors name `attempt` (zero).
    pub fn run_finished(
        attempt: u32,
        finished_at: DateTime<Utc>,
        outcome: AttemptOutcome,
        exit_code: Option<i32>,
    ) -> Result<Self, TaskError> {
        check_attempt(attempt)?;
        Ok(Self::RunFinished {
            attempt,
            finished_at,
            outcome,
            exit_code,
        })
    }

    /// A lag notice. Errors name `dropped` (zero: nothing was dropped).
    pub fn lagged(dropped: u64, dropped_bytes: u64) -> Result<Self, TaskError> {
        if dropped == 0 {
            return Err(TaskError::invalid("dropped", InvalidReason::Zero));
        }
        Ok(Self::Lagged {
            dropped,
            dropped_bytes,
        })
    }

    /// The attempt the event is about; `None` for a lag notice.
    pub const fn attempt(&self) -> Option<u32> {
        match self {
            Self::Chunk(chunk) => Some(chunk.attempt),
            Self::RunStarted { attempt, .. } | Self::RunFinished { attempt, .. } => Some(*attempt),
            Self::Lagged { .. } => None,
        }
    }

    /// The wire tag: `chunk`, `runStarted`, `runFinished` or `lagged`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::Chunk(_) => "chunk",
            Self::RunStarted { .. } => "runStarted",
            Self::RunFinished { .. } => "runFinished",
            Self::Lagged { .. } => "lagged",
        }
    }
}

/// Attempts are numbered from 1.
fn check_attempt(attempt: u32) -> Result<(), TaskError> {
    if attempt == 0 {
        Err(TaskError::invalid("attempt", InvalidReason::Zero))
    } else {
        Ok(())
    }
}

/// The wire form, written field by field.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Written<'a> {
    #[serde(rename_all = "camelCase")]
    Chunk {
        attempt: u32,
        stream: OutputStream,
        sequence: u64,
        at: DateTime<Utc>,
        data: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
    },
    #[serde(rename_all = "camelCase")]
    RunStarted {
        attempt: u32,
        started_at: &'a DateTime<Utc>,
    },
    #[serde(rename_all = "camelCase")]
    RunFinished {
        attempt: u32,
        finished_at: &'a DateTime<Utc>,
        outcome: AttemptOutcome,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    #[serde(rename_all = "camelCase")]
    Lagged {
        dropped: u64,
        #[serde(skip_serializing_if = "is_zero")]
        dropped_bytes: u64,
    },
}

const fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Serialize for OutputEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let written = match self {
            Self::Chunk(chunk) => Written::Chunk {
                attempt: chunk.attempt,
                stream: chunk.stream,
                sequence: chunk.sequence,
                at: chunk.at,
                data: STANDARD.encode(&chunk.data),
                truncated: chunk.truncated,
            },
            Self::RunStarted {
                attempt,
                started_at,
            } => Written::RunStarted {
                attempt: *attempt,
                started_at,
            },
            Self::RunFinished {
                attempt,
                finished_at,
                outcome,
                exit_code,
            } => Written::RunFinished {
                attempt: *attempt,
                finished_at,
                outcome: *outcome,
                exit_code: *exit_code,
            },
            Self::Lagged {
                dropped,
                dropped_bytes,
            } => Written::Lagged {
                dropped: *dropped,
                dropped_bytes: *dropped_bytes,
            },
        };
        written.serialize(serializer)
    }
}

/// Every field some output event may have, by wire name.
const FIELDS: &[&str] = &[
    "type",
    "attempt",
    "stream",
    "sequence",
    "at",
    "data",
    "truncated",
    "startedAt",
    "finishedAt",
    "outcome",
    "exitCode",
    "dropped",
    "droppedBytes",
];

/// The value of an output event's `"type"`.
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum EventType {
    Chunk,
    RunStarted,
    RunFinished,
    Lagged,
}

impl EventType {
    const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Chunk => &[
                "type",
                "attempt",
                "stream",
                "sequence",
                "at",
                "data",
                "truncated",
            ],
            Self::RunStarted => &["type", "attempt", "startedAt"],
            Self::RunFinished => &["type", "attempt", "finishedAt", "outcome", "exitCode"],
            Self::Lagged => &["type", "dropped", "droppedBytes"],
        }
    }
}

/// A chunk's `data` as read: checked by its length, then decoded straight from the borrowed
/// string. The error is kept to be reported with its field name.
struct DataRaw(Result<Vec<u8>, TaskError>);

impl<'de> Deserialize<'de> for DataRaw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Data;
        impl Visitor<'_> for Data {
            type Value = DataRaw;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string")
            }

            fn visit_str<E: serde::de::Error>(self, encoded: &str) -> Result<DataRaw, E> {
                if encoded.len() > MAX_OUTPUT_CHUNK_ENCODED_BYTES {
                    return Ok(DataRaw(Err(TaskError::invalid(
                        "data",
                        InvalidReason::TooLong {
                            len: encoded.len(),
                            max: MAX_OUTPUT_CHUNK_ENCODED_BYTES,
                        },
                    ))));
                }
                Ok(DataRaw(STANDARD.decode(encoded).map_err(|e| {
                    TaskError::invalid_input(
                        "data",
                        encoded,
                        InvalidReason::NotBase64 {
                            detail: base64_detail(&e),
                        },
                    )
                })))
            }
        }
        deserializer.deserialize_str(Data)
    }
}

/// Read by hand in one pass: unknown and duplicate fields are refused as they arrive.
impl<'de> Deserialize<'de> for OutputEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OutputVisitor)
    }
}

struct OutputVisitor;

/// The fields of an output event as read, before the type says which it needs.
#[derive(Default)]
struct Read {
    attempt: Option<u32>,
    stream: Option<OutputStream>,
    sequence: Option<u64>,
    at: Option<DateTime<Utc>>,
    data: Option<DataRaw>,
    truncated: Option<bool>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
    outcome: Option<AttemptOutcome>,
    exit_code: Option<i32>,
    dropped: Option<u64>,
    dropped_bytes: Option<u64>,
}

/// A required field, or serde's missing-field error naming it.
fn required<T, E: serde::de::Error>(value: Option<T>, name: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(name))
}

impl<'de> Visitor<'de> for OutputVisitor {
    type Value = OutputEvent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an output event tagged by \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OutputEvent, A::Error> {
        let mut fields = FieldSet::new(FIELDS);
        let mut ty: Option<EventType> = None;
        let mut read = Read::default();
        while let Some(key) = map.next_key::<String>()? {
            match fields.note::<A::Error>(key, ty.map(EventType::fields))? {
                Some("type") => {
                    let value: EventType = map.next_value()?;
                    fields.check::<A::Error>(value.fields())?;
                    ty = Some(value);
                }
                Some("attempt") => read.attempt = Some(map.next_value()?),
                Some("stream") => read.stream = Some(map.next_value()?),
                Some("sequence") => read.sequence = Some(map.next_value()?),
                Some("at") => read.at = Some(map.next_value()?),
                Some("data") => read.data = Some(map.next_value()?),
                Some("truncated") => read.truncated = map.next_value()?,
                Some("startedAt") => read.started_at = Some(map.next_value()?),
                Some("finishedAt") => read.finished_at = Some(map.next_value()?),
                Some("outcome") => read.outcome = Some(map.next_value()?),
                Some("exitCode") => read.exit_code = map.next_value()?,
                Some("dropped") => read.dropped = Some(map.next_value()?),
                Some("droppedBytes") => read.dropped_bytes = map.next_value()?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        let ty = ty.ok_or_else(|| A::Error::missing_field("type"))?;
        let event = match ty {
            EventType::Chunk => {
                let data = required(read.data, "data")?.0.map_err(A::Error::custom)?;
                OutputChunk::new(
                    required(read.attempt, "attempt")?,
                    required(read.stream, "stream")?,
                    required(read.sequence, "sequence")?,
                    required(read.at, "at")?,
                    data,
                    read.truncated.unwrap_or(false),
                )
                .map(OutputEvent::Chunk)
            }
            EventType::RunStarted => OutputEvent::run_started(
                required(read.attempt, "attempt")?,
                required(read.started_at, "startedAt")?,
            ),
            EventType::RunFinished => OutputEvent::run_finished(
                required(read.attempt, "attempt")?,
                required(read.finished_at, "finishedAt")?,
                required(read.outcome, "outcome")?,
                read.exit_code,
            ),
            EventType::Lagged => OutputEvent::lagged(
                required(read.dropped, "dropped")?,
                read.dropped_bytes.unwrap_or(0),
            ),
        };
        event.map_err(A::Error::custom)
    }
}

#[cfg(test)]
mod tests;
