//! Unit tests for `RestartPolicy`: spellings, the interval at its bounds, both wire shapes,
//! and errors.

use super::*;

fn check(input: &str, expected: Option<RestartPolicy>) {
    assert_eq!(
        input.parse::<RestartPolicy>().ok(),
        expected,
        "parse {input:?}"
    );
}

#[test]
fn spellings() {
    use RestartPolicy::*;
    let always = RestartPolicy::always();
    check("never", Some(Never));
    check("NEVER", Some(Never));
    check("onFailure", Some(OnFailure));
    check("OnFailure", Some(OnFailure));
    check("onfailure", Some(OnFailure));
    check("ONFAILURE", Some(OnFailure));
    check("on-failure", Some(OnFailure));
    check("On-Failure", Some(OnFailure));
    check("on_failure", Some(OnFailure));
    check("ON_FAILURE", Some(OnFailure));
    check("always", Some(always));
    check("Always", Some(always));
    check("always:1", Some(RestartPolicy::periodic(1).unwrap()));
    check(
        &format!("ALWAYS:{MAX_RESTART_INTERVAL_MS}"),
        Some(RestartPolicy::periodic(MAX_RESTART_INTERVAL_MS).unwrap()),
    );
    for bad in [
        "",
        "on",
        "failure",
        "o-nfailure",
        "on--failure",
        "on-_failure",
        "on failure",
        " never",
        "never ",
        "on-failure-",
        "-on-failure",
        "onfailures",
        "nevér",
        "always:",
        "always:x",
        "always: 5",
        "always:-5",
        "always:0",
        "always:5:5",
        "never:5",
    ] {
        check(bad, None);
    }
}

#[test]
fn errors_say_what_is_wrong() {
    assert_eq!(
        "x".parse::<RestartPolicy>(),
        Err(PolicyError::UnknownRestart { input: "x".into() })
    );
    assert_eq!(
        "always:x".parse::<RestartPolicy>(),
        Err(PolicyError::UnknownRestart {
            input: "always:x".into()
        })
    );
    let zero = "always:0".parse::<RestartPolicy>().unwrap_err();
    assert_eq!(zero, PolicyError::InvalidInterval { value: 0 });
    assert_eq!(
        zero.to_string(),
        "invalid restart policy: intervalMs must be from 1 to 31622400000, got 0"
    );
    let never = "never:5".parse::<RestartPolicy>().unwrap_err();
    assert_eq!(
        never.to_string(),
        "invalid restart policy: never takes no intervalMs, only always does"
    );
    assert_eq!(never.kind(), model_ids::ErrorKind::Invalid);
    assert_eq!(
        RestartPolicy::periodic(MAX_RESTART_INTERVAL_MS + 1),
        Err(PolicyError::InvalidInterval {
            value: MAX_RESTART_INTERVAL_MS + 1
        })
    );
}

#[test]
fn names_intervals_display_and_defaults() {
    let names: Vec<_> = RestartPolicy::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names, ["never", "onFailure", "always"]);
    assert_eq!(RestartPolicy::default(), RestartPolicy::Never);
    assert_eq!(format!("[{:>9}]", RestartPolicy::always()), "[   always]");
    let hourly = RestartPolicy::periodic(3_600_000).unwrap();
    assert_eq!(format!("[{:>16}]", hourly), "[  always:3600000]");
    assert_eq!(
        hourly.interval().map(RestartInterval::as_ms),
        Some(3_600_000)
    );
    assert_eq!(RestartPolicy::OnFailure.interval(), None);
    assert_eq!(RestartPolicy::always().interval(), None);
}

#[test]
fn both_wire_shapes_read_and_the_string_is_written_when_it_can() {
    let read = |json: &str| serde_json::from_str::<RestartPolicy>(json);
    assert_eq!(read(r#""onFailure""#).unwrap(), RestartPolicy::OnFailure);
    assert_eq!(
        read(r#"{"type": "onFailure"}"#).unwrap(),
        RestartPolicy::OnFailure
    );
    assert_eq!(
        read(r#"{"type": "always"}"#).unwrap(),
        RestartPolicy::always()
    );
    assert_eq!(
        read(r#"{"type": "always", "intervalMs": null}"#).unwrap(),
        RestartPolicy::always()
    );
    assert_eq!(
        read(r#"{"intervalMs": 5, "type": "always"}"#).unwrap(),
        RestartPolicy::periodic(5).unwrap()
    );
    for (json, needle) in [
        (r#""OnFailure""#, "unknown restart policy"),
        (r#"{"type": "on-failure"}"#, "unknown restart policy"),
        (
            r#"{"type": "always", "intervalMs": 0}"#,
            "intervalMs must be from 1",
        ),
        (r#"{"type": "always", "intervalMs": -1}"#, "invalid value"),
        (
            r#"{"type": "never", "intervalMs": 5}"#,
            "never takes no intervalMs",
        ),
        (r#"{"intervalMs": 5}"#, "missing field `type`"),
        (r#"{"type": "always", "every": 5}"#, "unknown field `every`"),
        (
            r#"{"type": "always", "type": "never"}"#,
            "duplicate field `type`",
        ),
        ("5", "a restart policy"),
    ] {
        let err = read(json).unwrap_err().to_string();
        assert!(err.contains(needle), "{json}: {err}");
    }
    let write = |policy: RestartPolicy| serde_json::to_string(&policy).unwrap();
    assert_eq!(write(RestartPolicy::Never), r#""never""#);
    assert_eq!(write(RestartPolicy::always()), r#""always""#);
    assert_eq!(
        write(RestartPolicy::periodic(60_000).unwrap()),
        r#"{"type":"always","intervalMs":60000}"#
    );
}
