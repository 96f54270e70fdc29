//! Unit tests for `token`: form rules at their exact bounds, redaction, comparison, and
//! generation from the caller's source only.

use model_policy::SeededRandom;

use super::*;

fn reason(text: &str) -> Option<InvalidReason> {
    match Token::new(text) {
        Ok(_) => None,
        Err(TaskError::Invalid {
            path,
            input,
            reason,
            ..
        }) => {
            assert_eq!(path, "token");
            assert_eq!(input, None, "an error never quotes the token");
            Some(reason)
        }
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn form_rules_at_their_bounds() {
    let short = Some(InvalidReason::Format {
        expected: LENGTH_EXPECTED,
    });
    let not_allowed = |index| {
        Some(InvalidReason::NotAllowed {
            index,
            allowed: ALLOWED,
        })
    };
    let min = "a".repeat(MIN_TOKEN_BYTES);
    let max = "a".repeat(MAX_TOKEN_BYTES);
    let cases: Vec<(String, Option<InvalidReason>)> = vec![
        (min.clone(), None),
        (min[1..].to_owned(), short.clone()),
        (String::new(), short),
        (max.clone(), None),
        (
            format!("{max}a"),
            Some(InvalidReason::TooLong {
                len: MAX_TOKEN_BYTES + 1,
                max: MAX_TOKEN_BYTES,
            }),
        ),
        ("AZaz09-._~+/AZaz09".to_owned(), None),
        ("abcdefghijklmnop==".to_owned(), None),
        ("abcdefghijklmnop ".to_owned(), not_allowed(16)),
        (" abcdefghijklmnop".to_owned(), not_allowed(0)),
        ("abcdefgh=ijklmnop".to_owned(), not_allowed(8)),
        ("abcdefghijklmnop\n".to_owned(), not_allowed(16)),
        ("abcdéfghijklmnop".to_owned(), not_allowed(4)),
        ("================".to_owned(), not_allowed(0)),
        ("abcdefgh,ijklmnop".to_owned(), not_allowed(8)),
    ];
    for (text, want) in cases {
        assert_eq!(reason(&text), want, "{text:?}");
        let json = serde_json::to_string(&text).unwrap();
        assert_eq!(
            serde_json::from_str::<Token>(&json).is_ok(),
            want.is_none(),
            "{text:?}"
        );
    }
}

#[test]
fn nothing_prints_the_secret() {
    let secret = "s3cr3t-value-0123456789";
    let token = Token::new(secret).unwrap();
    for shown in [
        format!("{token:?}"),
        format!("{token:#?}"),
        format!("{token}"),
        format!("{:>30}", token),
        format!("{:?}", Some(&token)),
    ] {
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
    assert_eq!(format!("{token:?}"), "Token(redacted)");
    assert_eq!(format!("{token}"), "redacted");
    // Errors do not either, from either way in.
    let bad = format!("{secret} ");
    assert!(
        !Token::new(bad.clone())
            .unwrap_err()
            .to_string()
            .contains("s3cr3t")
    );
    let err = serde_json::from_str::<Token>(&serde_json::to_string(&bad).unwrap()).unwrap_err();
    assert!(!err.to_string().contains("s3cr3t"), "{err}");
    // Serialization hands it over.
    assert_eq!(
        serde_json::to_string(&token).unwrap(),
        format!("\"{secret}\"")
    );
}

#[test]
fn comparison_is_exact() {
    let token = Token::new("abcdefghijklmnopqrstuvwx").unwrap();
    for (candidate, want) in [
        ("abcdefghijklmnopqrstuvwx", true),
        ("abcdefghijklmnopqrstuvwX", false),
        ("Abcdefghijklmnopqrstuvwx", false),
        ("abcdefghijklmnopqrstuvw", false),
        ("abcdefghijklmnopqrstuvwxy", false),
        ("", false),
    ] {
        assert_eq!(token.verify(candidate), want, "{candidate:?}");
    }
    assert_eq!(token, Token::new("abcdefghijklmnopqrstuvwx").unwrap());
    assert_ne!(token, Token::new("abcdefghijklmnopqrstuvwy").unwrap());
}

#[test]
fn generation_uses_only_the_callers_source() {
    // A fixed sequence gives a fixed token: nothing else is drawn.
    let mut draws = 0;
    let mut zeros = || {
        draws += 1;
        0_u64
    };
    let token = Token::generate(&mut zeros);
    assert_eq!(draws, TOKEN_ENTROPY_BYTES / 8);
    assert_eq!(
        token.expose(),
        "tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    );
    let ones = Token::generate(&mut || u64::MAX);
    assert_eq!(
        ones.expose(),
        "tm___________________________________________8"
    );
    // The bytes are the draws, little-endian, in order.
    let mut next = 0_u64;
    let counting = Token::generate(&mut || {
        next += 1;
        next
    });
    let decoded = URL_SAFE_NO_PAD
        .decode(
            counting
                .expose()
                .strip_prefix(GENERATED_TOKEN_PREFIX)
                .unwrap(),
        )
        .unwrap();
    let mut want = Vec::new();
    for i in 1..=4_u64 {
        want.extend_from_slice(&i.to_le_bytes());
    }
    assert_eq!(decoded, want);
    // Same seed, same token; another seed, another token; every one valid and 46 long.
    let a = Token::generate(&mut SeededRandom::new(1));
    assert_eq!(a, Token::generate(&mut SeededRandom::new(1)));
    assert_ne!(a, Token::generate(&mut SeededRandom::new(2)));
    for token in [&token, &ones, &counting, &a] {
        assert_eq!(token.len(), 46);
        assert_eq!(Token::new(token.expose()).unwrap(), *token);
    }
}
