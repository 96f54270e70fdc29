//! A log batch from JSON, then its dedupe against cursors around it.
//!
//! A batch that parses must serialize to a fixpoint that parses back equal, hold 1 to
//! `MAX_LOG_BATCH_LINES` lines of at most `MAX_LOG_LINE_BYTES` in increasing sequence order;
//! `accept` keeps exactly what the cursor lets through line by line, a suffix of the batch,
//! and the same batch again keeps nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::fleet::{LogBatch, MAX_LOG_BATCH_LINES, MAX_LOG_LINE_BYTES};
use taskmodel::task::attempt::{LogCursor, LogKey};

fuzz_target!(|data: &[u8]| {
    let Ok(batch) = serde_json::from_slice::<LogBatch>(data) else {
        return;
    };
    let json = serde_json::to_string(&batch).expect("a batch serializes");
    let back: LogBatch = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(back, batch, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
    let lines = batch.lines();
    assert!((1..=MAX_LOG_BATCH_LINES).contains(&lines.len()));
    assert!(lines.iter().all(|l| l.line().len() <= MAX_LOG_LINE_BYTES));
    assert!(lines.windows(2).all(|p| p[0].sequence() < p[1].sequence()));
    let attempt = batch.attempt();
    let mut cursors = vec![LogCursor::new()];
    for line in lines.iter().take(3).chain(lines.last()) {
        let s = line.sequence();
        for key in [
            LogKey::new(attempt, s),
            LogKey::new(attempt, s.saturating_sub(1)),
            LogKey::new(attempt.saturating_sub(1), u64::MAX),
            LogKey::new(attempt.saturating_add(1), 0),
        ] {
            cursors.push(LogCursor::after(key));
        }
    }
    for start in cursors {
        let (mut cursor, mut reference) = (start, start);
        let kept: Vec<LogKey> = batch
            .accept(&mut cursor)
            .iter()
            .map(|line| LogKey::new(attempt, line.sequence()))
            .collect();
        let want: Vec<LogKey> = batch.keys().filter(|k| reference.accept(*k)).collect();
        assert_eq!(kept, want);
        assert_eq!(cursor, reference);
        let suffix: Vec<LogKey> = batch.keys().skip(lines.len() - kept.len()).collect();
        assert_eq!(kept, suffix, "the new lines are a suffix");
        assert!(batch.accept(&mut cursor).is_empty(), "a resent batch keeps nothing");
    }
});
