//! Unit tests for `kind`: constructors, the script body limits, NUL bytes and field paths.

use super::*;
use crate::spec::MAX_ARGS;

fn parse(json: &str) -> Result<TaskKind, String> {
    serde_json::from_str::<TaskKind>(json).map_err(|e| e.to_string())
}

fn kind_err(raw_json: &str) -> TaskError {
    let raw: TaskKindRaw = serde_json::from_str(raw_json).unwrap();
    TaskKind::try_from(raw).unwrap_err()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn check_invalid(err: &TaskError, want_path: &str, want: &InvalidReason) {
    match err {
        TaskError::Invalid { path, reason, .. } => {
            assert_eq!((path.as_str(), reason), (want_path, want));
        }
        other => panic!("got {other:?}, want invalid {want_path}: {want}"),
    }
}

#[test]
fn encoded_limit_is_four_thirds_of_the_decoded_limit() {
    assert_eq!(MAX_SCRIPT_BODY_ENCODED_BYTES, 2_796_204);
    assert_eq!(
        b64(&vec![b'a'; MAX_SCRIPT_BODY_BYTES]).len(),
        MAX_SCRIPT_BODY_ENCODED_BYTES
    );
}

#[test]
fn script_body_exact_limits() {
    let at_limit = vec![b'a'; MAX_SCRIPT_BODY_BYTES];
    let body = ScriptBody::from_base64(&b64(&at_limit)).unwrap();
    assert_eq!(body.len(), MAX_SCRIPT_BODY_BYTES);

    // One byte over still fits the encoded bound, so it is caught after decoding.
    let over = vec![b'a'; MAX_SCRIPT_BODY_BYTES + 1];
    let encoded = b64(&over);
    assert_eq!(encoded.len(), MAX_SCRIPT_BODY_ENCODED_BYTES);
    let err = ScriptBody::from_base64(&encoded).unwrap_err();
    check_invalid(
        &err,
        "",
        &InvalidReason::TooLong {
            len: MAX_SCRIPT_BODY_BYTES + 1,
            max: MAX_SCRIPT_BODY_BYTES,
        },
    );

    // Longer encoded text is rejected by its length alone, even when it is not base64.
    let too_long = "!".repeat(MAX_SCRIPT_BODY_ENCODED_BYTES + 1);
    let err = ScriptBody::from_base64(&too_long).unwrap_err();
    check_invalid(
        &err,
        "",
        &InvalidReason::TooLong {
            len: MAX_SCRIPT_BODY_ENCODED_BYTES + 1,
            max: MAX_SCRIPT_BODY_ENCODED_BYTES,
        },
    );

    assert!(ScriptBody::from_text("a".repeat(MAX_SCRIPT_BODY_BYTES)).is_ok());
    assert!(ScriptBody::from_text("a".repeat(MAX_SCRIPT_BODY_BYTES + 1)).is_err());
}

#[test]
fn script_body_content_rules() {
    fn check(encoded: &str, want: Result<&str, InvalidReason>) {
        match (ScriptBody::from_base64(encoded), want) {
            (Ok(body), Ok(text)) => {
                assert_eq!(body.as_str(), text);
                assert_eq!(body.to_base64(), encoded, "round trip");
            }
            (Err(TaskError::Invalid { reason, .. }), Err(want)) => match (&reason, &want) {
                (InvalidReason::NotBase64 { .. }, InvalidReason::NotBase64 { .. }) => {}
                _ => assert_eq!(reason, want, "{encoded:?}"),
            },
            (got, want) => panic!("{encoded:?}: got {got:?}, want {want:?}"),
        }
    }
    let not_b64 = || InvalidReason::NotBase64 {
        detail: String::new(),
    };
    check("", Ok(""));
    check("ZWNobyBoaQ==", Ok("echo hi"));
    check(&b64("héllo ✓".as_bytes()), Ok("héllo ✓"));
    check("ZWNobyBoaQ", Err(not_b64()));
    check("ZWNob yBoaQ==", Err(not_b64()));
    check("ZWNobyBoaQ==\n", Err(not_b64()));
    check("ZWNobyBoaQ-_", Err(not_b64()));
    check("not base64!", Err(not_b64()));
    check(
        &b64(&[b'o', b'k', 0xff, 0xfe]),
        Err(InvalidReason::NotUtf8 { valid_up_to: 2 }),
    );
    check(&b64(b"echo\0hi"), Err(InvalidReason::NulByte { index: 4 }));
}

#[test]
fn nul_bytes_are_rejected_in_every_place() {
    fn check(json: &str, want_path: &str) {
        let err = kind_err(json);
        assert!(
            matches!(&err, TaskError::Invalid { reason: InvalidReason::NulByte { .. }, path, .. } if path == want_path),
            "{json}: {err:?}"
        );
    }
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"/bin/e\u0000cho"}}"#,
        "mode.command",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"echo","args":["a","b\u0000"]}}"#,
        "mode.args[1]",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"echo"},"cwd":"/tmp\u0000"}"#,
        "cwd",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"echo"},"env":[{"key":"A\u0000","value":""}]}"#,
        "env[0].key",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"echo"},"env":[{"key":"A","value":"1"},{"key":"B","value":"\u0000"}]}"#,
        "env[1].value",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":"bash","body":"","args":["\u0000"]}}"#,
        "mode.args[0]",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"r\u0000","flag":"-e"}},"body":""}}"#,
        "mode.interpreter.custom.command",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"ruby","flag":"-\u0000"}},"body":""}}"#,
        "mode.interpreter.custom.flag",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":"node","body":"AA=="}}"#,
        "mode.body",
    );
    check(r#"{"type":"container","image":"al\u0000pine"}"#, "image");
    check(
        r#"{"type":"container","image":"alpine","command":["sh","\u0000"]}"#,
        "command[1]",
    );
    check(
        r#"{"type":"container","image":"alpine","args":["\u0000"]}"#,
        "args[0]",
    );
    check(
        r#"{"type":"container","image":"alpine","env":[{"key":"K","value":"\u0000"}]}"#,
        "env[0].value",
    );
    check(r#"{"type":"wasm","module":"m\u0000.wasm"}"#, "module");
    check(
        r#"{"type":"wasm","module":"m.wasm","args":["\u0000"]}"#,
        "args[0]",
    );
    check(
        r#"{"type":"wasm","module":"m.wasm","env":[{"key":"\u0000","value":""}]}"#,
        "env[0].key",
    );
}

#[test]
fn empty_and_oversized_fields_name_their_path() {
    fn check(json: &str, want_path: &str, want: InvalidReason) {
        check_invalid(&kind_err(json), want_path, &want);
    }
    let long_path = "p".repeat(MAX_PATH_BYTES + 1);
    let too_long = InvalidReason::TooLong {
        len: MAX_PATH_BYTES + 1,
        max: MAX_PATH_BYTES,
    };
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":""}}"#,
        "mode.command",
        InvalidReason::Empty,
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"x"},"cwd":""}"#,
        "cwd",
        InvalidReason::Empty,
    );
    check(
        &format!(r#"{{"type":"subprocess","mode":{{"type":"command","command":"{long_path}"}}}}"#),
        "mode.command",
        too_long.clone(),
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"","flag":"-e"}},"body":""}}"#,
        "mode.interpreter.custom.command",
        InvalidReason::Empty,
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"ruby","flag":""}},"body":""}}"#,
        "mode.interpreter.custom.flag",
        InvalidReason::Empty,
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":"bash","body":"%%%%"}}"#,
        "mode.body",
        InvalidReason::NotBase64 {
            detail: "invalid character '%' at offset 0".into(),
        },
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"x"},"env":[{"key":"A","value":""},{"key":"A","value":""}]}"#,
        "env[1].key",
        InvalidReason::DuplicateKey { first: 0 },
    );
    check(
        r#"{"type":"container","image":""}"#,
        "image",
        InvalidReason::Empty,
    );
    check(
        r#"{"type":"container","image":"alpine","command":[""]}"#,
        "command[0]",
        InvalidReason::Empty,
    );
    check(
        &format!(r#"{{"type":"container","image":"{long_path}"}}"#),
        "image",
        too_long,
    );
    check(
        r#"{"type":"wasm","module":""}"#,
        "module",
        InvalidReason::Empty,
    );
}

#[test]
fn argument_bounds_are_exact() {
    let ok = vec!["a".to_owned(); MAX_ARGS];
    assert!(SubprocessMode::command("x".into(), ok).is_ok());
    let err = SubprocessMode::command("x".into(), vec![String::new(); MAX_ARGS + 1]).unwrap_err();
    check_invalid(
        &err,
        "args",
        &InvalidReason::TooMany {
            len: MAX_ARGS + 1,
            max: MAX_ARGS,
        },
    );
    assert!(SubprocessMode::command("x".into(), vec!["a".repeat(MAX_ARG_BYTES)]).is_ok());
    let err = SubprocessMode::command("x".into(), vec!["a".repeat(MAX_ARG_BYTES + 1)]).unwrap_err();
    check_invalid(
        &err,
        "args[0]",
        &InvalidReason::TooLong {
            len: MAX_ARG_BYTES + 1,
            max: MAX_ARG_BYTES,
        },
    );
}

#[test]
fn wire_shapes() {
    let kind = parse(r#"{"type":"subprocess","mode":{"type":"script","interpreter":"python","body":"cHJpbnQoMSk=","args":["-v"]},"env":[{"key":"A","value":"1"}],"cwd":"/srv"}"#).unwrap();
    let TaskKind::Subprocess {
        mode:
            SubprocessMode::Script {
                interpreter,
                body,
                args,
            },
        env,
        cwd,
        fail_on_non_zero: true,
    } = &kind
    else {
        panic!("{kind:?}")
    };
    assert_eq!(
        (interpreter, body.as_str(), args.as_slice()),
        (
            &Interpreter::Python,
            "print(1)",
            ["-v".to_owned()].as_slice()
        )
    );
    assert_eq!((env.get("A"), cwd.as_deref()), (Some("1"), Some("/srv")));
    assert_eq!(kind.type_name(), "subprocess");
    let back = serde_json::to_string(&kind).unwrap();
    assert_eq!(parse(&back).unwrap(), kind);

    let custom = parse(r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"ruby","flag":"-e"}},"body":"cHV0cyAx"}}"#).unwrap();
    let TaskKind::Subprocess {
        mode: SubprocessMode::Script { interpreter, .. },
        ..
    } = &custom
    else {
        panic!()
    };
    assert_eq!((interpreter.program(), interpreter.flag()), ("ruby", "-e"));
    assert_eq!(
        (Interpreter::Bash.program(), Interpreter::Node.flag()),
        ("bash", "-e")
    );

    let embedded = parse(r#"{"type":"embedded"}"#).unwrap();
    assert_eq!(embedded, TaskKind::Embedded);
    assert!(!embedded.is_routable());
    assert_eq!(
        serde_json::to_string(&embedded).unwrap(),
        r#"{"type":"embedded"}"#
    );
    assert!(embedded.env().is_empty());

    assert!(
        parse(r#"{"type":"ssh","host":"x"}"#)
            .unwrap_err()
            .contains("unknown variant")
    );
    assert!(
        parse(r#"{"type":"wasm","module":"m.wasm","extra":1}"#)
            .unwrap_err()
            .contains("unknown field")
    );
    assert!(
        parse(r#"{"type":"subprocess","mode":{"type":"command","command":"x","shell":true}}"#)
            .unwrap_err()
            .contains("unknown field")
    );
    assert!(
        parse(r#"{"type":"subprocess","mode":{"type":"script","interpreter":"perl","body":""}}"#)
            .unwrap_err()
            .contains("unknown variant")
    );
    assert!(
        parse(r#"{"type":"subprocess","mode":{"type":"script","interpreter":"bash","body":7}}"#)
            .is_err()
    );
}

#[test]
fn constructors_validate_like_parsing() {
    let env = TaskEnv::from_pairs([("A", "1")]).unwrap();
    let mode = SubprocessMode::script(
        Interpreter::Bash,
        ScriptBody::from_text("echo hi").unwrap(),
        vec![],
    )
    .unwrap();
    let kind = TaskKind::subprocess(mode, env.clone(), Some("/tmp".into())).unwrap();
    assert_eq!(kind.env(), &env);
    assert!(
        TaskKind::subprocess(
            SubprocessMode::command("x".into(), vec![]).unwrap(),
            TaskEnv::empty(),
            Some(String::new())
        )
        .is_err()
    );
    assert!(TaskKind::container("alpine".into(), vec![], vec![], TaskEnv::empty()).is_ok());
    assert!(TaskKind::wasm("m.wasm".into(), vec!["\0".into()], TaskEnv::empty()).is_err());
    assert!(Interpreter::custom("ruby".into(), "-e".into()).is_ok());
    assert!(ScriptBody::from_text("a\0").is_err());
}

#[test]
fn unknown_and_misplaced_fields_are_rejected() {
    #[track_caller]
    fn check(json: &str, want: &str) {
        let err = parse(json).unwrap_err();
        assert!(err.starts_with(want), "{json}: got {err:?}, want {want:?}");
    }
    check(
        r#"{"type":"embedded","image":"x"}"#,
        "unknown field `image`, expected `type`",
    );
    check(
        r#"{"image":"x","type":"embedded"}"#,
        "unknown field `image`, expected `type`",
    );
    check(
        r#"{"type":"embedded","extra":null}"#,
        "unknown field `extra`, expected `type`",
    );
    check(
        r#"{"type":"wasm","module":"m.wasm","mode":{"type":"command","command":"x"}}"#,
        "unknown field `mode`, expected one of `type`, `module`, `args`, `env`",
    );
    check(
        r#"{"type":"container","image":"i","cwd":"/"}"#,
        "unknown field `cwd`, expected one of `type`, `image`, `command`, `args`, `env`",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"command","command":"x","body":"eA=="}}"#,
        "unknown field `body`, expected one of `type`, `command`, `args`",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":{"custom":{"command":"ruby","flag":"-e","shell":true}},"body":"eA=="}}"#,
        "unknown field `shell`, expected `command` or `flag`",
    );
    check(
        r#"{"type":"subprocess","mode":{"type":"script","interpreter":"bash","body":"eA=="},"mode":{"type":"command","command":"x"}}"#,
        "duplicate field `mode`",
    );
    check(r#"{"type":"container"}"#, "missing field `image`");
    check(r#"{"module":"m.wasm"}"#, "missing field `type`");
    check(
        r#"{"type":"subprocess","mode":{"type":"script","body":"eA=="}}"#,
        "missing field `interpreter`",
    );
    // The wire form of an embedded kind stays `{"type":"embedded"}`.
    assert_eq!(parse(r#"{"type":"embedded"}"#), Ok(TaskKind::Embedded));
}

#[test]
fn fail_on_non_zero_wire_and_default() {
    let json = |extra: &str| {
        format!(
            r#"{{"type":"subprocess","mode":{{"type":"command","command":"/bin/x","args":[]}}{extra}}}"#
        )
    };
    let default = parse(&json("")).unwrap();
    assert!(default.fail_on_non_zero());
    assert_eq!(parse(&json(r#","failOnNonZero":true"#)).unwrap(), default);
    assert_eq!(parse(&json(r#","failOnNonZero":null"#)).unwrap(), default);
    // The default is not written; `false` is.
    assert_eq!(
        serde_json::to_string(&default).unwrap(),
        json(r#","env":[]"#)
    );
    let lenient = parse(&json(r#","failOnNonZero":false"#)).unwrap();
    assert!(!lenient.fail_on_non_zero());
    assert_eq!(
        serde_json::to_string(&lenient).unwrap(),
        json(r#","env":[],"failOnNonZero":false"#)
    );
    assert_eq!(
        default.clone().with_fail_on_non_zero(false).unwrap(),
        lenient
    );
    // Other kinds have no such field.
    let err = parse(r#"{"type":"wasm","module":"m.wasm","failOnNonZero":false}"#).unwrap_err();
    assert!(err.starts_with("unknown field `failOnNonZero`"), "{err}");
    let wasm = TaskKind::wasm("m.wasm".into(), vec![], TaskEnv::empty()).unwrap();
    assert!(wasm.fail_on_non_zero());
    check_invalid(
        &wasm.with_fail_on_non_zero(false).unwrap_err(),
        "failOnNonZero",
        &InvalidReason::Inconsistent {
            rule: "only a subprocess kind has failOnNonZero",
        },
    );
}

#[test]
fn outcome_of_exit_follows_fail_on_non_zero() {
    let strict =
        parse(r#"{"type":"subprocess","mode":{"type":"command","command":"/bin/x"}}"#).unwrap();
    let lenient = strict.clone().with_fail_on_non_zero(false).unwrap();
    let container = TaskKind::container("alpine".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    for (code, strict_wants, lenient_wants) in [
        (0, AttemptOutcome::Succeeded, AttemptOutcome::Succeeded),
        (1, AttemptOutcome::Failed, AttemptOutcome::Succeeded),
        (-1, AttemptOutcome::Failed, AttemptOutcome::Succeeded),
        (255, AttemptOutcome::Failed, AttemptOutcome::Succeeded),
        (i32::MIN, AttemptOutcome::Failed, AttemptOutcome::Succeeded),
    ] {
        assert_eq!(strict.outcome_of_exit(code), strict_wants, "{code}");
        assert_eq!(lenient.outcome_of_exit(code), lenient_wants, "{code}");
        assert_eq!(container.outcome_of_exit(code), strict_wants, "{code}");
    }
}

#[test]
fn extension_kind_wire() {
    let json = r#"{"type":"extension","apiVersion":"images.example.com/v1","kind":"Resize","spec":{"width":640}}"#;
    let kind = parse(json).unwrap();
    let TaskKind::Extension { kind: name, spec } = &kind else {
        panic!("{kind:?}")
    };
    assert_eq!(
        (name.api_version(), name.kind()),
        ("images.example.com/v1", "Resize")
    );
    assert_eq!(spec.as_object()["width"], 640);
    assert_eq!(serde_json::to_string(&kind).unwrap(), json);
    assert_eq!(kind.type_name(), "extension");
    assert!(kind.is_routable());
    assert!(kind.env().is_empty());
    assert_eq!(
        kind.name().map(|n| n.to_string()).as_deref(),
        Some("images.example.com/v1/Resize")
    );
    // `spec` absent or null is the empty spec, written as `{}`.
    for json in [
        r#"{"type":"extension","apiVersion":"a.io/v1","kind":"K"}"#,
        r#"{"type":"extension","apiVersion":"a.io/v1","kind":"K","spec":null}"#,
    ] {
        let kind = parse(json).unwrap();
        assert_eq!(
            serde_json::to_string(&kind).unwrap(),
            r#"{"type":"extension","apiVersion":"a.io/v1","kind":"K","spec":{}}"#
        );
    }
    for (json, want) in [
        (
            r#"{"type":"extension","kind":"K"}"#,
            "missing field `apiVersion`".to_owned(),
        ),
        (
            r#"{"type":"extension","apiVersion":"a.io/v1"}"#,
            "missing field `kind`".to_owned(),
        ),
        (
            r#"{"type":"extension","apiVersion":"a.io/v1","kind":"K","env":[]}"#,
            "unknown field `env`, expected one of `type`, `apiVersion`, `kind`, `spec`".to_owned(),
        ),
        (
            r#"{"apiVersion":"a.io/v1","type":"subprocess"}"#,
            "unknown field `apiVersion`".to_owned(),
        ),
        (
            r#"{"type":"extension","apiVersion":"v1","kind":"K"}"#,
            r#"invalid apiVersion "v1": expected group/version"#.to_owned(),
        ),
        (
            r#"{"type":"extension","apiVersion":"a.io/v1","kind":"K","spec":[1]}"#,
            "invalid spec: expected a JSON object".to_owned(),
        ),
    ] {
        let err = parse(json).unwrap_err();
        assert!(err.starts_with(&want), "{json}: {err}");
    }
    // Inside a spec, the error path names the kind's field.
    let err = serde_json::from_str::<crate::TaskSpec>(
        r#"{"slot":"s","timeoutMs":1,"kind":{"type":"extension","apiVersion":"a.io/v1","kind":"K_"}}"#,
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with(r#"invalid kind.kind "K_""#),
        "{err}"
    );
}
