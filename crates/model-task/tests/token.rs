//! Property tests of `Token` through the public API: valid tokens read back equal, generated
//! tokens are valid and depend only on the source, and a token verifies exactly itself.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use model_policy::SeededRandom;
use model_task::{MAX_TOKEN_BYTES, Token};
use proptest::prelude::*;

fn token_text() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._~+/-]{16,80}={0,2}"
}

proptest! {
    #[test]
    fn tokens_round_trip(text in token_text()) {
        let token = Token::new(text.clone()).unwrap();
        prop_assert_eq!(token.expose(), text.as_str());
        let json = serde_json::to_string(&token).unwrap();
        prop_assert_eq!(serde_json::from_str::<Token>(&json).unwrap(), token);
    }

    #[test]
    fn a_token_verifies_exactly_itself(text in token_text(), other in "[ -~]{0,90}") {
        let token = Token::new(text.clone()).unwrap();
        prop_assert!(token.verify(&text));
        prop_assert_eq!(token.verify(&other), other == text);
    }

    #[test]
    fn generated_tokens_are_valid_and_seeded(seed in any::<u64>()) {
        let token = Token::generate(&mut SeededRandom::new(seed));
        prop_assert!(token.len() <= MAX_TOKEN_BYTES);
        prop_assert_eq!(Token::new(token.expose()).unwrap(), token.clone());
        prop_assert_eq!(Token::generate(&mut SeededRandom::new(seed)), token);
    }
}
