//! Property tests of the events through the public API: every event written reads back
//! equal, a chunk never exceeds its bound, and a watch resumes exactly after what it saw.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeZone, Utc};
use model_ids::{ErrorKind, TaskId, TenantId, Uid};
use model_task::event::{
    MAX_OUTPUT_CHUNK_BYTES, OutputChunk, OutputEvent, OutputStream, TaskWatchEvent, WatchWindow,
};
use model_task::{AttemptOutcome, Task, TaskKind, TaskManifest, TaskSpec};
use proptest::prelude::*;

fn time() -> impl Strategy<Value = DateTime<Utc>> {
    // From 1900 to 2200, to the nanosecond.
    (-2_208_988_800_i64..7_258_118_400, 0..1_000_000_000_u32)
        .prop_map(|(secs, nanos)| Utc.timestamp_opt(secs, nanos).unwrap())
}

fn task() -> impl Strategy<Value = Task> {
    ("[a-z][a-z0-9-]{0,10}", "[a-z]{1,8}", 1..100_000_u64, time()).prop_map(
        |(id, slot, timeout, now)| {
            let spec = TaskSpec::builder(slot, TaskKind::Embedded, timeout)
                .build()
                .unwrap();
            Task::create(
                TaskManifest::named(TaskId::new(id).unwrap(), spec),
                TenantId::new("tenant").unwrap(),
                Uid::from_u128(1),
                now,
            )
            .unwrap()
        },
    )
}

fn watch_event() -> impl Strategy<Value = TaskWatchEvent> {
    prop_oneof![
        (1..=u64::MAX, task()).prop_map(|(v, t)| TaskWatchEvent::added(v, t).unwrap()),
        (1..=u64::MAX, task()).prop_map(|(v, t)| TaskWatchEvent::modified(v, t).unwrap()),
        (1..=u64::MAX, task()).prop_map(|(v, t)| TaskWatchEvent::deleted(v, t).unwrap()),
        (1..=u64::MAX).prop_map(|v| TaskWatchEvent::bookmark(v).unwrap()),
    ]
}

fn outcome() -> impl Strategy<Value = AttemptOutcome> {
    proptest::sample::select(AttemptOutcome::ALL.to_vec())
}

fn output_event() -> impl Strategy<Value = OutputEvent> {
    let stream = prop_oneof![Just(OutputStream::Stdout), Just(OutputStream::Stderr)];
    prop_oneof![
        (
            1..=u32::MAX,
            stream,
            any::<u64>(),
            time(),
            proptest::collection::vec(any::<u8>(), 1..64),
            any::<bool>()
        )
            .prop_map(|(a, s, q, t, d, tr)| OutputEvent::Chunk(
                OutputChunk::new(a, s, q, t, d, tr).unwrap()
            )),
        (1..=u32::MAX, time()).prop_map(|(a, t)| OutputEvent::run_started(a, t).unwrap()),
        (
            1..=u32::MAX,
            time(),
            outcome(),
            proptest::option::of(any::<i32>())
        )
            .prop_map(|(a, t, o, c)| OutputEvent::run_finished(a, t, o, c).unwrap()),
        (1..=u64::MAX, any::<u64>()).prop_map(|(d, b)| OutputEvent::lagged(d, b).unwrap()),
    ]
}

proptest! {
    #[test]
    fn watch_events_round_trip(event in watch_event()) {
        let json = serde_json::to_string(&event).unwrap();
        let back: TaskWatchEvent = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &event);
        prop_assert_eq!(back.version(), event.version());
    }

    #[test]
    fn output_events_round_trip(event in output_event()) {
        let json = serde_json::to_string(&event).unwrap();
        prop_assert_eq!(serde_json::from_str::<OutputEvent>(&json).unwrap(), event);
    }

    #[test]
    fn cut_never_exceeds_the_bound(len in 1..(2 * MAX_OUTPUT_CHUNK_BYTES), byte in any::<u8>()) {
        let output = vec![byte; len];
        let chunk = OutputChunk::cut(1, OutputStream::Stdout, 0, DateTime::UNIX_EPOCH, &output).unwrap();
        prop_assert!(chunk.data().len() <= MAX_OUTPUT_CHUNK_BYTES);
        prop_assert_eq!(chunk.truncated(), len > MAX_OUTPUT_CHUNK_BYTES);
        prop_assert_eq!(chunk.data(), &output[..chunk.data().len()]);
    }

    /// A watcher that resumes from any version it saw gets exactly the changes after it, or
    /// is told to list again exactly when some of them are gone.
    #[test]
    fn a_watch_resumes_right_after_what_it_saw(
        oldest in 1..1_000_u64,
        held in 0..1_000_u64,
        since in 0..3_000_u64,
    ) {
        let latest = oldest + held - 1;
        let window = WatchWindow::new(oldest, latest).unwrap();
        match window.resume(since) {
            Ok(Some(replay)) => {
                prop_assert_eq!(*replay.start(), since + 1);
                prop_assert_eq!(*replay.end(), latest);
                prop_assert!(*replay.start() >= oldest);
            }
            Ok(None) => prop_assert_eq!(since, latest),
            Err(err) if err.kind() == ErrorKind::Gone => prop_assert!(since + 1 < oldest),
            Err(err) => {
                prop_assert_eq!(err.kind(), ErrorKind::Invalid);
                prop_assert!(since > latest);
            }
        }
    }
}
