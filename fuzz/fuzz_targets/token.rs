//! A bearer token from text and from JSON.
//!
//! A token that parses verifies exactly itself, reads back equal from the JSON it writes,
//! and never prints its secret in `Debug`, `Display` or an error of a one-byte edit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::task::Token;

fuzz_target!(|data: &[u8]| {
    if let Ok(token) = serde_json::from_slice::<Token>(data) {
        let json = serde_json::to_string(&token).expect("a token serializes");
        assert_eq!(serde_json::from_str::<Token>(&json).expect("parses back"), token);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(token) = taskmodel::task::Token::new(text) else {
        return;
    };
    assert!(token.verify(text));
    assert_eq!(token.expose(), text);
    for shown in [format!("{token:?}"), format!("{token}")] {
        assert!(!shown.contains(text), "{shown} shows the secret");
    }
    let edited = format!("{text} ");
    assert!(!token.verify(&edited));
    let err = Token::new(edited).expect_err("a space is not allowed").to_string();
    assert!(!err.contains(text), "{err} shows the secret");
});
