//! Continuation tokens: parsing arbitrary text, and issuing then parsing arbitrary keys.
//!
//! Text that parses as a token must print as itself and be accepted or refused (with a
//! token error) by a query. Independently, the input's bytes make a sort key
//! (8 bytes of seconds, 4 of nanoseconds, then the id): a token issued for it must parse
//! back equal, carry the same key, stay within `MAX_TOKEN_LEN`, and be accepted by the
//! query that issued it and refused by another (of another order, or another tenant).
#![no_main]

use chrono::DateTime;
use libfuzzer_sys::fuzz_target;
use taskmodel::{TaskId, TenantId};
use taskmodel::query::{ContinueToken, MAX_TOKEN_LEN, SortKey, SortOrder, TaskQuery};

fuzz_target!(|data: &[u8]| {
    let tenant = |name: &str| TenantId::new(name).expect("a valid tenant");
    let ascending = TaskQuery::builder(tenant("fuzz"))
        .build()
        .expect("the default query is valid");
    let other_tenant = TaskQuery::builder(tenant("other"))
        .build()
        .expect("the default query is valid");
    let descending = TaskQuery::builder(tenant("fuzz"))
        .order(SortOrder::Descending)
        .build()
        .expect("a descending query is valid");

    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(token) = ContinueToken::parse(text)
    {
        assert_eq!(token.as_str(), text);
        assert_eq!(token.to_string(), text);
        let again = ContinueToken::parse(token.as_str()).expect("a token reparses");
        assert_eq!(again, token);
        assert!(text.len() <= MAX_TOKEN_LEN);
        for query in [&ascending, &descending, &other_tenant] {
            match query.with_continue(token.clone()) {
                Ok(next) => {
                    assert_eq!(next.continue_token(), Some(&token));
                    let pairs = next.to_pairs();
                    let back = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
                        .unwrap_or_else(|err| panic!("{pairs:?} does not parse back: {err}"));
                    assert_eq!(back, next);
                }
                Err(err) => assert!(err.is_token_error(), "not a token error: {err}"),
            }
        }
    }

    let (Some(secs), Some(nanos), Some(id)) = (
        data.get(..8)
            .and_then(|b| b.try_into().ok())
            .map(i64::from_le_bytes),
        data.get(8..12)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes),
        data.get(12..),
    ) else {
        return;
    };
    let (Some(created_at), Ok(id)) = (
        DateTime::from_timestamp(secs, nanos),
        std::str::from_utf8(id)
            .map_err(drop)
            .and_then(|id| TaskId::new(id).map_err(drop)),
    ) else {
        return;
    };
    let key = SortKey::new(created_at, id);
    let token = ascending.continue_after(key.clone());
    assert!(
        token.as_str().len() <= MAX_TOKEN_LEN,
        "issued token too long"
    );
    let parsed = ContinueToken::parse(token.as_str())
        .unwrap_or_else(|err| panic!("an issued token does not parse: {err}"));
    assert_eq!(parsed, token);
    assert_eq!(parsed.after(), &key);
    let next = ascending
        .with_continue(parsed.clone())
        .unwrap_or_else(|err| panic!("the issuing query refuses its token: {err}"));
    assert_eq!(next.after(), Some(&key));
    let pairs = next.to_pairs();
    let back = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .unwrap_or_else(|err| panic!("{pairs:?} does not parse back: {err}"));
    assert_eq!(back, next);
    for other in [&descending, &other_tenant] {
        let refused = other.with_continue(parsed.clone());
        assert!(
            refused.as_ref().is_err_and(|err| err.is_token_error()),
            "another query accepted the token: {refused:?}"
        );
    }
});
