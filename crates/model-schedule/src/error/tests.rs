//! Unit tests for `ScheduleError`: kinds, and inputs quoted to the shared limit.

use model_ids::{ActionId, ErrorKind};

use super::ScheduleError;
use crate::{ActionState, CronExpr, Zone};

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
    let err = CronExpr::parse(&format!("{} * * * *", "9".repeat(70))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(r#"cron: minute "{}…" is out of range 0-59"#, "9".repeat(64))
    );
}
