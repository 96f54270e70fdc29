//! Identifiers (`TaskId`, `Slot`, `AgentId`, `RunnerId`) and base-36 slugs from text.
//!
//! Each id kind must accept exactly what the written rule says (checked against an
//! independent reference), print as the input and round-trip through `FromStr` and JSON.
//! A slug must decode to what `u64::from_str_radix` reads, and re-encode to its
//! canonical spelling; the first 8 input bytes as a `u64` must survive encode and decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;
use taskmodel::ids::{
    AgentId, BASE36_MAX_LEN, Base36, IdKind, RunnerId, Slot, TaskId, decode_base36, encode_base36,
};

/// The identifier rule as docs/limits.md ("Identifiers") writes it.
fn reference_valid(text: &str, max: usize) -> bool {
    !text.is_empty()
        && text.len() <= max
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && text != "."
        && text != ".."
}

fn check_id<T>(text: &str, kind: IdKind, new: fn(&str) -> Result<T, taskmodel::ids::IdError>)
where
    T: std::fmt::Display
        + std::str::FromStr
        + Serialize
        + DeserializeOwned
        + PartialEq
        + std::fmt::Debug
        + AsRef<str>,
{
    let made = new(text);
    assert_eq!(
        made.is_ok(),
        reference_valid(text, kind.max_len()),
        "{kind} rule disagrees with the reference on {text:?}: {made:?}"
    );
    assert_eq!(kind.validate(text).is_ok(), made.is_ok());
    let parsed = text.parse::<T>();
    assert_eq!(parsed.is_ok(), made.is_ok(), "FromStr disagrees with new");
    let json = serde_json::to_string(text).expect("a string serializes");
    let from_json = serde_json::from_str::<T>(&json);
    assert_eq!(from_json.is_ok(), made.is_ok(), "serde disagrees with new");
    if let Ok(id) = made {
        assert_eq!(id.as_ref(), text);
        assert_eq!(id.to_string(), text);
        assert_eq!(serde_json::to_string(&id).expect("an id serializes"), json);
        assert_eq!(from_json.ok(), Some(id));
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check_id::<TaskId>(text, IdKind::TaskId, |s| TaskId::new(s));
        check_id::<Slot>(text, IdKind::Slot, |s| Slot::new(s));
        check_id::<AgentId>(text, IdKind::AgentId, |s| AgentId::new(s));
        check_id::<RunnerId>(text, IdKind::RunnerId, |s| RunnerId::new(s));

        let decoded = decode_base36(text);
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric());
        let reference = if digits && text.len() <= BASE36_MAX_LEN {
            u64::from_str_radix(text, 36).ok()
        } else {
            None
        };
        assert_eq!(
            decoded.as_ref().ok().copied(),
            reference,
            "slug {text:?}: {decoded:?}"
        );
        if let Ok(value) = decoded {
            let canonical = encode_base36(value);
            let trimmed = text.trim_start_matches('0').to_ascii_lowercase();
            let expected = if trimmed.is_empty() {
                "0".to_owned()
            } else {
                trimmed
            };
            assert_eq!(canonical, expected, "slug {text:?} is not canonicalized");
            assert_eq!(decode_base36(&canonical).ok(), Some(value));
        }
    }
    if let Some(bytes) = data.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
        let value = u64::from_le_bytes(bytes);
        let slug = encode_base36(value);
        assert!(slug.len() <= BASE36_MAX_LEN);
        assert_eq!(Base36(value).to_string(), slug);
        assert_eq!(decode_base36(&slug).ok(), Some(value));
        assert!(
            slug.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        );
        assert!(
            slug == "0" || !slug.starts_with('0'),
            "leading zero in {slug:?}"
        );
    }
});
