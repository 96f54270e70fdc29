//! Property tests for the laws of identifiers and base-36 slugs, through the public API only.

use model_ids::{
    AgentId, BASE36_MAX_LEN, Base36, ERROR_INPUT_MAX_CHARS, IdError, IdKind, RunnerId, Slot,
    TaskId, decode_base36, encode_base36,
};
use proptest::prelude::*;

/// The rule, written independently of the crate: the oracle for `validate`.
fn oracle(input: &str, max: usize) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-';
    !input.is_empty()
        && input.len() <= max
        && input.chars().all(allowed)
        && input != "."
        && input != ".."
}

/// The characters an id may hold.
const ALLOWED: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

/// Valid ids of 1 to `max` bytes.
fn valid_id(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALLOWED), 1..=max)
        .prop_map(|bytes| bytes.into_iter().map(char::from).collect::<String>())
        .prop_filter("reserved", |s| s != "." && s != "..")
}

/// Characters an id must not hold.
fn invalid_char() -> impl Strategy<Value = char> {
    any::<char>().prop_filter("allowed", |c| {
        !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    })
}

const ID_KINDS: [(IdKind, usize); 4] = [
    (IdKind::TaskId, 256),
    (IdKind::Slot, 64),
    (IdKind::AgentId, 128),
    (IdKind::RunnerId, 128),
];

proptest! {
    #[test]
    fn slot_display_parse_round_trip(s in valid_id(64)) {
        let slot = Slot::new(&s).unwrap();
        prop_assert_eq!(slot.to_string(), s.clone());
        prop_assert_eq!(slot.to_string().parse::<Slot>().unwrap(), slot);
    }

    #[test]
    fn task_id_display_parse_round_trip(s in valid_id(256)) {
        let id: TaskId = s.parse().unwrap();
        prop_assert_eq!(id.as_str(), s.as_str());
        prop_assert_eq!(TaskId::try_from(id.to_string()).unwrap(), id);
    }

    #[test]
    fn serde_round_trip(s in valid_id(128)) {
        let id = AgentId::new(&s).unwrap();
        let json = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(&json, &serde_json::to_string(&s).unwrap());
        prop_assert_eq!(serde_json::from_str::<AgentId>(&json).unwrap(), id);
        let runner = RunnerId::new(&s).unwrap();
        prop_assert_eq!(serde_json::from_str::<RunnerId>(&serde_json::to_string(&runner).unwrap()).unwrap(), runner);
    }

    #[test]
    fn invalid_chars_are_always_rejected(
        prefix in "[A-Za-z0-9._-]{0,20}",
        bad in invalid_char(),
        suffix in "[A-Za-z0-9._-]{0,20}",
    ) {
        let input = format!("{prefix}{bad}{suffix}");
        for (kind, _) in ID_KINDS {
            match kind.validate(&input) {
                Err(IdError::InvalidChar { kind: k, ch, index, .. }) => {
                    prop_assert_eq!((k, ch, index), (kind, bad, prefix.len()));
                }
                other => prop_assert!(false, "{kind} {input:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn validate_agrees_with_the_oracle(input in "\\PC{0,70}|[A-Za-z0-9._ /-]{0,70}|\\.{1,3}") {
        for (kind, max) in ID_KINDS {
            prop_assert_eq!(kind.validate(&input).is_ok(), oracle(&input, max), "{} {:?}", kind, input);
        }
        prop_assert_eq!(Slot::validate(&input), Slot::new(&input).map(|_| ()));
        prop_assert_eq!(TaskId::validate(&input), IdKind::TaskId.validate(&input));
    }

    #[test]
    fn errors_quote_a_bounded_prefix(input in "\\PC{0,400}") {
        if let Err(err) = TaskId::new(&input) {
            let quoted = err.input();
            let body = quoted.strip_suffix('…').unwrap_or(quoted);
            prop_assert!(input.starts_with(body));
            prop_assert!(body.chars().count() <= ERROR_INPUT_MAX_CHARS);
            prop_assert_eq!(quoted.ends_with('…'), input.chars().count() > ERROR_INPUT_MAX_CHARS);
            prop_assert!(err.to_string().starts_with("invalid task id "));
        }
    }

    #[test]
    fn slug_round_trip(n in any::<u64>()) {
        let slug = encode_base36(n);
        prop_assert!(!slug.is_empty() && slug.len() <= BASE36_MAX_LEN);
        prop_assert!(slug == "0" || !slug.starts_with('0'));
        prop_assert!(slug.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        prop_assert_eq!(Base36(n).to_string(), slug.clone());
        prop_assert_eq!(decode_base36(&slug), Ok(n));
        prop_assert_eq!(decode_base36(&slug.to_ascii_uppercase()), Ok(n));
        prop_assert_eq!(u64::from_str_radix(&slug, 36), Ok(n));
    }

    #[test]
    fn slug_decode_agrees_with_std(s in "[0-9a-zA-Z]{1,13}") {
        prop_assert_eq!(decode_base36(&s).ok(), u64::from_str_radix(&s, 36).ok());
    }

    #[test]
    fn slug_decode_never_panics(s in "\\PC{0,40}|[0-9a-zA-Z+-]{0,16}") {
        match decode_base36(&s) {
            Ok(n) => {
                let canonical = s.to_ascii_lowercase();
                let trimmed = canonical.trim_start_matches('0');
                prop_assert_eq!(encode_base36(n), if trimmed.is_empty() { "0" } else { trimmed });
            }
            Err(err) => prop_assert_eq!(err.id_kind(), IdKind::Base36Slug),
        }
    }
}

#[test]
fn slug_exact_pairs_and_overflow() {
    for (n, slug) in [
        (0, "0"),
        (35, "z"),
        (36, "10"),
        (12345, "9ix"),
        (u64::MAX, "3w5e11264sgsf"),
    ] {
        assert_eq!(encode_base36(n), slug);
        assert_eq!(decode_base36(slug), Ok(n));
    }
    assert!(matches!(
        decode_base36("3w5e11264sgsg"),
        Err(IdError::Overflow {
            kind: IdKind::Base36Slug,
            ..
        })
    ));
}

proptest! {
    #[test]
    fn action_id_text_and_json_round_trip(bytes in any::<[u8; 16]>()) {
        let id = model_ids::ActionId::from_bytes(bytes);
        let text = id.to_string();
        prop_assert_eq!(text.len(), model_ids::ACTION_ID_HEX_LEN);
        prop_assert_eq!(text.parse::<model_ids::ActionId>().unwrap(), id);
        prop_assert_eq!(text.to_uppercase().parse::<model_ids::ActionId>().unwrap(), id);
        let json = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(serde_json::from_str::<model_ids::ActionId>(&json).unwrap(), id);
        prop_assert_eq!(model_ids::ActionId::from_u128(id.to_u128()), id);
    }

    #[test]
    fn action_id_order_is_byte_order(a in any::<[u8; 16]>(), b in any::<[u8; 16]>()) {
        let (x, y) = (model_ids::ActionId::from_bytes(a), model_ids::ActionId::from_bytes(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), a.cmp(&b));
    }

    #[test]
    fn action_id_parse_never_panics(input in "\\PC{0,40}|[0-9a-fA-Fg]{30,34}") {
        let _ = input.parse::<model_ids::ActionId>();
    }
}

proptest! {
    #[test]
    fn uid_text_and_json_round_trip(bytes in any::<[u8; 16]>()) {
        let uid = model_ids::Uid::from_bytes(bytes);
        let text = uid.to_string();
        prop_assert_eq!(text.len(), model_ids::UID_TEXT_LEN);
        prop_assert_eq!(text.parse::<model_ids::Uid>().unwrap(), uid);
        let json = serde_json::to_string(&uid).unwrap();
        prop_assert_eq!(serde_json::from_str::<model_ids::Uid>(&json).unwrap(), uid);
        prop_assert_eq!(model_ids::Uid::from_u128(uid.to_u128()), uid);
        // Text order is byte order, so a store may sort uids as text.
        prop_assert_eq!(text.replace('-', ""), model_ids::ActionId::from_bytes(bytes).to_string());
    }

    #[test]
    fn uid_order_is_text_order(a in any::<[u8; 16]>(), b in any::<[u8; 16]>()) {
        let (x, y) = (model_ids::Uid::from_bytes(a), model_ids::Uid::from_bytes(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), a.cmp(&b));
    }

    #[test]
    fn uid_parse_never_panics(input in "\\PC{0,40}|[0-9a-fA-F-]{34,38}") {
        let _ = input.parse::<model_ids::Uid>();
    }
}
