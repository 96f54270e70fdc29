//! Unit tests for `error_kind`: every kind's code and status, every code's wire name.

use super::*;

/// The position of `kind` in [`ErrorKind::ALL`], written as a match without a wildcard, so
/// a new kind fails to compile here until the table below has a row for it.
fn position(kind: ErrorKind) -> usize {
    match kind {
        ErrorKind::UnknownAdmission => 0,
        ErrorKind::UnknownRestart => 1,
        ErrorKind::UnknownJitter => 2,
        ErrorKind::UnknownTaskPhase => 3,
        ErrorKind::Invalid => 4,
        ErrorKind::Conflict => 5,
        ErrorKind::InvalidTransition => 6,
        ErrorKind::Gone => 7,
        ErrorKind::NotFound => 8,
        ErrorKind::Unauthorized => 9,
        ErrorKind::Forbidden => 10,
        ErrorKind::Internal => 11,
    }
}

#[test]
fn all_lists_every_kind_once_in_order() {
    for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
        assert_eq!(position(kind), i, "{kind:?}");
    }
}

#[test]
fn every_kind_has_its_code_and_status() {
    let table = [
        (ErrorKind::UnknownAdmission, "invalid_request", 400),
        (ErrorKind::UnknownRestart, "invalid_request", 400),
        (ErrorKind::UnknownJitter, "invalid_request", 400),
        (ErrorKind::UnknownTaskPhase, "invalid_request", 400),
        (ErrorKind::Invalid, "invalid_request", 400),
        (ErrorKind::Conflict, "conflict", 409),
        (ErrorKind::InvalidTransition, "conflict", 409),
        (ErrorKind::Gone, "gone", 410),
        (ErrorKind::NotFound, "not_found", 404),
        (ErrorKind::Unauthorized, "unauthorized", 401),
        (ErrorKind::Forbidden, "forbidden", 403),
        (ErrorKind::Internal, "internal", 500),
    ];
    assert_eq!(table.len(), ErrorKind::ALL.len());
    for ((kind, code, status), listed) in table.into_iter().zip(ErrorKind::ALL) {
        assert_eq!(kind, listed, "the table follows ErrorKind::ALL");
        assert_eq!(kind.code().as_str(), code, "{kind:?}");
        assert_eq!(kind.code().http_status(), status, "{kind:?}");
    }
}

#[test]
fn every_code_is_reached_by_a_kind() {
    for code in ErrorCode::ALL {
        assert!(
            ErrorKind::ALL.iter().any(|kind| kind.code() == code),
            "{code:?} has no kind"
        );
    }
}

#[test]
fn codes_read_back_by_name_and_on_the_wire() {
    let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        names,
        [
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "conflict",
            "gone",
            "internal"
        ]
    );
    names.dedup();
    assert_eq!(names.len(), ErrorCode::ALL.len());
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_name(code.as_str()), Some(code));
        assert_eq!(code.to_string(), code.as_str());
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, format!("\"{code}\""));
        assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
    }
}

#[test]
fn unknown_codes_are_refused_with_the_input_quoted() {
    let check = |input: &str, message: &str| {
        assert_eq!(ErrorCode::from_name(input), None, "{input:?}");
        let json = serde_json::to_string(input).unwrap();
        let err = serde_json::from_str::<ErrorCode>(&json).unwrap_err();
        assert!(err.to_string().starts_with(message), "{err}");
    };
    check("", r#"unknown error code """#);
    check("Conflict", r#"unknown error code "Conflict""#);
    check("not-found", r#"unknown error code "not-found""#);
    check("conflict ", r#"unknown error code "conflict ""#);
    check(
        &"x".repeat(100),
        &format!("unknown error code \"{}…\"", "x".repeat(64)),
    );
    assert!(serde_json::from_str::<ErrorCode>("409").is_err());
}
