//! A task watch event from JSON.
//!
//! An event that parses must write JSON that parses back equal and writes the same bytes;
//! its version is at least 1, and only a bookmark has no task.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::task::TaskWatchEvent;

fuzz_target!(|data: &[u8]| {
    let Ok(event) = serde_json::from_slice::<TaskWatchEvent>(data) else {
        return;
    };
    assert!(event.version() >= 1);
    assert_eq!(event.task().is_none(), event.type_name() == "bookmark");
    let json = serde_json::to_string(&event).expect("an event serializes");
    let back: TaskWatchEvent = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
    assert_eq!(back, event);
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
});
