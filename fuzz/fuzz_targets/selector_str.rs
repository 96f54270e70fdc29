//! A label selector from its string syntax, with labels to match it against.
//!
//! Input: the selector expression, then optionally a newline and `k=v,k=v` labels.
//! A selector that parses must display canonically (parse(display) equal, display a
//! fixpoint), round-trip through JSON, and match exactly as the reference matcher says.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use taskmodel::selector::{LabelSelector, Labels, SelectorError};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (expr, labels) = text.split_once('\n').unwrap_or((text, ""));
    let selector = match expr.parse::<LabelSelector>() {
        Ok(selector) => selector,
        Err(SelectorError::Syntax { position, .. }) => {
            assert!(
                position <= expr.len(),
                "syntax error position {position} past the end"
            );
            return;
        }
        Err(_) => return,
    };
    common::check_selector(&selector);
    if let Ok(labels) = Labels::from_pairs(common::label_pairs(labels)) {
        common::check_labels(&labels);
        common::check_match(&selector, &labels);
    }
});
