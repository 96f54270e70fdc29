//! A label set from JSON, matched by the selector made of the same labels.
//!
//! Labels that parse must round-trip through JSON and through their pairs, and the
//! selector requiring exactly those labels must match them.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use taskmodel::selector::{LabelSelector, Labels};

fuzz_target!(|data: &[u8]| {
    let Ok(labels) = serde_json::from_slice::<Labels>(data) else {
        return;
    };
    common::check_labels(&labels);
    if let Ok(selector) = LabelSelector::from_parts(&labels, &[]) {
        common::check_selector(&selector);
        assert!(
            selector.matches(&labels),
            "{selector} does not match its own labels"
        );
        common::check_match(&selector, &labels);
    }
});
