//! A script body from its base64 wire form (and from plain text).
//!
//! A body that decodes must encode back to the same text, decode again to an equal body,
//! and be accepted as plain text; plain text that is accepted must survive base64.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::task::spec::{MAX_SCRIPT_BODY_BYTES, ScriptBody};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(body) = ScriptBody::from_base64(text) {
        assert!(body.len() <= MAX_SCRIPT_BODY_BYTES);
        assert!(!body.as_str().contains('\0'));
        let encoded = body.to_base64();
        assert_eq!(encoded, text, "the wire form is not canonical");
        assert_eq!(ScriptBody::from_base64(&encoded).ok(), Some(body.clone()));
        assert_eq!(
            ScriptBody::from_text(body.as_str()).ok(),
            Some(body.clone())
        );
        let json = serde_json::to_string(&body).expect("a body serializes");
        let back: ScriptBody = serde_json::from_str(&json).expect("a body parses back");
        assert_eq!(back, body);
    }
    match ScriptBody::from_text(text) {
        Ok(body) => {
            assert_eq!(body.as_str(), text);
            let decoded = ScriptBody::from_base64(&body.to_base64())
                .unwrap_or_else(|err| panic!("valid text does not survive base64: {err}"));
            assert_eq!(decoded, body);
        }
        Err(_) => assert!(text.contains('\0') || text.len() > MAX_SCRIPT_BODY_BYTES),
    }
});
