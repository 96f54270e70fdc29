//! Laws of the fleet's values, through the public API: every value this crate writes reads
//! back equal, and a runner's availability agrees with its reasons.
#![allow(clippy::unwrap_used, reason = "test setup fails loudly")]

use chrono::{DateTime, Utc};
use std::cmp::{Ordering, Reverse};

use model_fleet::KindSet;
use model_fleet::{
    Actor, ApiError, Context, ErrorCode, LivenessTtl, LogBatch, LogLine, LogStream,
    MAX_API_ERROR_MESSAGE_BYTES, MAX_LIVENESS_TTL_MS, MAX_LOG_BATCH_LINES, MAX_RUNNER_CAPACITY,
    Operation, QueueKey, Role, Runner, RunnerState, authorize,
};
use model_ids::{AgentId, RunnerId, TaskId, TenantId};
use model_selector::Labels;
use model_task::attempt::{LogCursor, LogKey};
use proptest::prelude::*;

/// Any time chrono can hold, leap seconds included.
fn any_time() -> impl Strategy<Value = DateTime<Utc>> {
    let (min, max) = (DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC);
    (min.timestamp()..=max.timestamp(), 0u32..2_000_000_000)
        .prop_filter_map("a time chrono holds", |(secs, nanos)| {
            DateTime::from_timestamp(secs, nanos)
        })
}

fn any_kinds() -> impl Strategy<Value = KindSet> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(s, c, w)| {
        let mut kinds = KindSet::EMPTY;
        for (on, kind) in [
            (s, KindSet::SUBPROCESS),
            (c, KindSet::CONTAINER),
            (w, KindSet::WASM),
        ] {
            if on {
                kinds = kinds.union(&kind).unwrap();
            }
        }
        kinds
    })
}

fn any_labels() -> impl Strategy<Value = Labels> {
    proptest::collection::btree_map("[a-z]{1,8}", "[a-z0-9]{0,8}", 0..6)
        .prop_map(|pairs| Labels::from_pairs(pairs).unwrap())
}

fn any_state() -> impl Strategy<Value = RunnerState> {
    prop::sample::select(RunnerState::ALL.to_vec())
}

prop_compose! {
    fn any_runner()(
        id in "[A-Za-z0-9][A-Za-z0-9._-]{0,20}",
        labels in any_labels(),
        kinds in any_kinds(),
        capacity in 1..=MAX_RUNNER_CAPACITY,
        state in any_state(),
        seen in proptest::option::of(any_time()),
        ttl in 1..=MAX_LIVENESS_TTL_MS,
    ) -> Runner {
        let runner = Runner::builder(RunnerId::new(id).unwrap(), kinds)
            .labels(labels)
            .max_concurrent(capacity)
            .build()
            .unwrap();
        // Registration sets the last-seen time; the state is then reached by its operations.
        let mut runner = match seen {
            Some(at) => runner.register(None, at, LivenessTtl::from_ms(ttl).unwrap()).unwrap(),
            None => runner,
        };
        match state {
            RunnerState::Draining => drop(runner.drain()),
            RunnerState::Offline => {
                if let Some(at) = seen {
                    let late = at.checked_add_signed(chrono::TimeDelta::milliseconds(ttl as i64));
                    if let Some(late) = late {
                        drop(runner.mark_offline(late, LivenessTtl::from_ms(ttl).unwrap()));
                    }
                }
            }
            _ => {}
        }
        runner
    }
}

proptest! {
    #[test]
    fn runners_read_back_equal(runner in any_runner()) {
        let json = serde_json::to_string(&runner).unwrap();
        let again: Runner = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&again, &runner);
        prop_assert_eq!(serde_json::to_string(&again).unwrap(), json);
    }

    #[test]
    fn free_capacity_is_positive_exactly_when_nothing_stands_in_the_way(
        runner in any_runner(),
        active in prop_oneof![0..=MAX_RUNNER_CAPACITY + 1, Just(u32::MAX)],
        now in any_time(),
        ttl in 1..=MAX_LIVENESS_TTL_MS,
    ) {
        let ttl = LivenessTtl::from_ms(ttl).unwrap();
        let free = runner.free_capacity(active, now, ttl);
        let reasons = runner.unavailable(active, now, ttl);
        prop_assert_eq!(free > 0, reasons.is_empty(), "{:?}", reasons);
        prop_assert!(free <= runner.max_concurrent());
    }
}

/// A priority: anywhere in `i32`, with the ends and a few small values often, so that
/// ties are common.
fn any_priority() -> impl Strategy<Value = i32> {
    prop_oneof![any::<i32>(), -2..=2, Just(i32::MIN), Just(i32::MAX)]
}

/// A time: anywhere chrono can hold, with the ends, the epoch and a leap second often.
fn any_queue_time() -> impl Strategy<Value = DateTime<Utc>> {
    let fixed = [
        DateTime::<Utc>::MIN_UTC,
        DateTime::<Utc>::MAX_UTC,
        DateTime::from_timestamp(0, 0).unwrap(),
        DateTime::from_timestamp(-1, 999_999_999).unwrap(),
        DateTime::from_timestamp(1_483_228_799, 1_500_000_000).unwrap(),
    ];
    prop_oneof![any_time(), prop::sample::select(fixed.to_vec())]
}

/// A task id: short ids over a small alphabet (ties and prefixes) or any valid id.
fn any_task_id() -> impl Strategy<Value = TaskId> {
    prop_oneof!["[ab.]{1,3}", "[A-Za-z0-9._-]{1,256}"]
        .prop_filter_map("a task id", |id| TaskId::new(id).ok())
}

fn any_key() -> impl Strategy<Value = QueueKey> {
    (any_priority(), any_queue_time(), any_task_id())
        .prop_map(|(priority, at, id)| QueueKey::new(priority, at, id))
}

/// The queue order written plainly: priority descending, then time, then id as text.
fn plain(a: &QueueKey, b: &QueueKey) -> Ordering {
    let tuple = |k: &QueueKey| {
        (
            Reverse(k.priority()),
            k.queued_at(),
            k.id().as_str().to_owned(),
        )
    };
    tuple(a).cmp(&tuple(b))
}

proptest! {
    #[test]
    fn queue_keys_order_as_the_plain_comparator_in_value_and_in_bytes(
        a in any_key(),
        b in any_key(),
    ) {
        let want = plain(&a, &b);
        prop_assert_eq!(a.cmp(&b), want);
        prop_assert_eq!(a.to_bytes().cmp(&b.to_bytes()), want, "{} vs {}", a, b);
        prop_assert_eq!(QueueKey::from_bytes(&a.to_bytes()).unwrap(), a);
    }

    #[test]
    fn a_sorted_queue_sorts_the_same_by_bytes(mut keys in prop::collection::vec(any_key(), 0..40)) {
        let mut by_bytes: Vec<Vec<u8>> = keys.iter().map(QueueKey::to_bytes).collect();
        keys.sort_by(plain);
        by_bytes.sort();
        let decoded: Vec<QueueKey> =
            by_bytes.iter().map(|b| QueueKey::from_bytes(b).unwrap()).collect();
        prop_assert_eq!(decoded, keys);
    }

    #[test]
    fn any_bytes_read_as_a_key_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(key) = QueueKey::from_bytes(&bytes) {
            prop_assert_eq!(key.to_bytes(), bytes);
        }
    }
}

proptest! {
    #[test]
    fn api_errors_read_back_equal_and_stay_bounded(
        code in prop::sample::select(ErrorCode::ALL.to_vec()),
        message in prop_oneof![".*", "[aé€😀]{1000,1400}"],
    ) {
        let answer = ApiError::new(code, message.clone());
        prop_assert!(answer.message().len() <= MAX_API_ERROR_MESSAGE_BYTES);
        prop_assert!(message.starts_with(answer.message()));
        prop_assert_eq!(answer.message().len() == message.len(), message.len() <= MAX_API_ERROR_MESSAGE_BYTES);
        let json = serde_json::to_string(&answer).unwrap();
        prop_assert_eq!(serde_json::from_str::<ApiError>(&json).unwrap(), answer);
    }
}

fn any_actors() -> impl Strategy<Value = Vec<Actor>> {
    prop::collection::btree_set("[a-e]", 0..5).prop_map(|ids| {
        ids.into_iter()
            .map(|id| Actor::new(AgentId::new(id).unwrap()))
            .collect()
    })
}

prop_compose! {
    fn any_context()(admins in any_actors(), readers in any_actors(), executors in any_actors())
        -> Context
    {
        let mut builder = Context::builder(TenantId::new("acme").unwrap());
        for actor in admins {
            builder = builder.admin(actor);
        }
        for actor in readers {
            builder = builder.reader(actor);
        }
        for actor in executors {
            builder = builder.executor(actor);
        }
        builder.build().unwrap()
    }
}

proptest! {
    #[test]
    fn contexts_read_back_equal(context in any_context()) {
        let json = serde_json::to_string(&context).unwrap();
        prop_assert_eq!(serde_json::from_str::<Context>(&json).unwrap(), context);
    }

    #[test]
    fn an_operation_is_allowed_exactly_when_a_held_role_allows_it(
        context in any_context(),
        id in "[a-f]",
        operation in prop::sample::select(Operation::ALL.to_vec()),
    ) {
        let actor = Actor::new(AgentId::new(id).unwrap());
        let held: Vec<Role> = Role::ALL
            .into_iter()
            .filter(|role| {
                let list = match role {
                    Role::Admin => context.admins(),
                    Role::Executor => context.executors(),
                    _ => context.readers(),
                };
                list.contains(&actor)
            })
            .collect();
        let decision = authorize(&actor, operation, &context);
        let first_allowing = held.iter().copied().find(|role| role.allows(operation));
        prop_assert_eq!(decision.into_result().ok(), first_allowing);
    }
}

prop_compose! {
    fn any_batch()(
        attempt in 1..4u32,
        first in prop_oneof![0..20u64, Just(u64::MAX - 200)],
        gaps in prop::collection::vec(1..3u64, 0..MAX_LOG_BATCH_LINES),
        stderr in any::<bool>(),
        at in any_time(),
    ) -> LogBatch {
        let stream = if stderr { LogStream::Stderr } else { LogStream::Stdout };
        let sequences = gaps.iter().scan(first, |s, gap| {
            *s += gap;
            Some(*s)
        });
        let lines = std::iter::once(first)
            .chain(sequences)
            .map(|s| LogLine::new(s, stream, s.to_string(), at).unwrap())
            .collect();
        LogBatch::new(attempt, lines).unwrap()
    }
}

proptest! {
    #[test]
    fn log_batches_read_back_equal(batch in any_batch()) {
        let json = serde_json::to_string(&batch).unwrap();
        prop_assert_eq!(serde_json::from_str::<LogBatch>(&json).unwrap(), batch);
    }

    /// Uploads (resent, overlapping, of other attempts) store each line once: what `accept`
    /// keeps is what the cursor lets through line by line.
    #[test]
    fn accepting_a_batch_keeps_what_the_cursor_lets_through_line_by_line(
        batches in prop::collection::vec(any_batch(), 1..6),
        resend in prop::collection::vec(0..6usize, 0..6),
    ) {
        let mut cursor = LogCursor::new();
        let mut reference = LogCursor::new();
        let uploads = batches.iter().chain(resend.iter().filter_map(|i| batches.get(*i)));
        for batch in uploads {
            let kept: Vec<LogKey> = batch
                .accept(&mut cursor)
                .iter()
                .map(|line| LogKey::new(batch.attempt(), line.sequence()))
                .collect();
            let want: Vec<LogKey> = batch.keys().filter(|key| reference.accept(*key)).collect();
            prop_assert_eq!(kept, want);
            prop_assert_eq!(cursor, reference);
        }
    }
}
