//! Unit tests for `ScheduleError`: kinds and how inputs are quoted.

use model_ids::{ActionId, ErrorKind};

use super::{ERROR_INPUT_MAX_CHARS, ScheduleError, shorten};
use crate::{ActionState, CronExpr, Zone};

#[test]
fn shorten_table() {
    assert_eq!(shorten("abc"), "abc");
    assert_eq!(shorten(&"a".repeat(48)), "a".repeat(48));
    assert_eq!(shorten(&"a".repeat(49)), format!("{}…", "a".repeat(48)));
    assert_eq!(shorten(&"é".repeat(49)), format!("{}…", "é".repeat(48)));
    assert_eq!(ERROR_INPUT_MAX_CHARS, 48);
}

#[test]
fn kinds() {
    let transition = ScheduleError::ActionTransition {
        id: ActionId::from_u128(1),
        from: ActionState::Completed,
        to: ActionState::Running,
    };
    assert_eq!(transition.kind(), ErrorKind::InvalidTransition);
    assert_eq!(CronExpr::parse("x").unwrap_err().kind(), ErrorKind::Invalid);
    assert_eq!(
        Zone::parse("Nowhere/Else").unwrap_err().kind(),
        ErrorKind::Invalid
    );
}

#[test]
fn long_inputs_are_quoted_short() {
    let long = format!("Europe/{}", "x".repeat(50));
    let err = Zone::parse(&long).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            r#"timeZone: unknown time zone "{}…" (expected an IANA name such as "Europe/Berlin" or "UTC")"#,
            &long[..48]
        )
    );
}
