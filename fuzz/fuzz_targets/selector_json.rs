//! A label selector from JSON (`matchLabels`, `matchExpressions`).
//!
//! A selector that parses must keep the selector laws (see `common::check_selector`).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use taskmodel::selector::LabelSelector;

fuzz_target!(|data: &[u8]| {
    if let Ok(selector) = serde_json::from_slice::<LabelSelector>(data) {
        common::check_selector(&selector);
    }
});
