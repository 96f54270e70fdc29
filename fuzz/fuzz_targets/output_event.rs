//! An output event from JSON.
//!
//! An event that parses must keep its bounds (a chunk holds 1 to `MAX_OUTPUT_CHUNK_BYTES`
//! bytes, attempts and lag counts are at least 1) and write JSON that parses back equal and
//! writes the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::task::event::{MAX_OUTPUT_CHUNK_BYTES, OutputEvent};

fuzz_target!(|data: &[u8]| {
    let Ok(event) = serde_json::from_slice::<OutputEvent>(data) else {
        return;
    };
    match &event {
        OutputEvent::Chunk(chunk) => {
            assert!((1..=MAX_OUTPUT_CHUNK_BYTES).contains(&chunk.data().len()));
            assert!(chunk.attempt() >= 1);
        }
        OutputEvent::Lagged { dropped, .. } => assert!(*dropped >= 1),
        other => assert!(other.attempt().is_some_and(|a| a >= 1)),
    }
    let json = serde_json::to_string(&event).expect("an event serializes");
    let back: OutputEvent = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
    assert_eq!(back, event);
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
});
