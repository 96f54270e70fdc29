//! An API error envelope from JSON.
//!
//! An envelope that parses must serialize to a fixpoint that parses back equal, keep its
//! message within the bound, and carry a code whose name and HTTP status agree with the
//! code table; any text made into an answer is cut within the bound on a character
//! boundary and reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::fleet::{ApiError, ErrorCode, MAX_API_ERROR_MESSAGE_BYTES};

fn round_trip(answer: &ApiError) {
    let json = serde_json::to_string(answer).expect("an answer serializes");
    let back: ApiError = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, answer, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(answer) = serde_json::from_slice::<ApiError>(data) {
        round_trip(&answer);
        assert!(answer.message().len() <= MAX_API_ERROR_MESSAGE_BYTES);
        let code = answer.code();
        assert_eq!(ErrorCode::from_name(code.as_str()), Some(code));
        assert_eq!(answer.http_status(), code.http_status());
    }
    let text = String::from_utf8_lossy(data);
    for code in ErrorCode::ALL {
        let answer = ApiError::new(code, text.as_ref());
        assert!(answer.message().len() <= MAX_API_ERROR_MESSAGE_BYTES);
        assert!(text.starts_with(answer.message()));
        round_trip(&answer);
    }
});
