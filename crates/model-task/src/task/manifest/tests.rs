//! Unit tests for `TaskManifest` and `ManifestMeta`: the type fields, the metadata rules,
//! what a manifest leaves out, and the round trip.

use serde_json::{Value, json};

use super::*;

fn manifest() -> Value {
    json!({
        "apiVersion": "taskmodel.io/v1",
        "kind": "Task",
        "metadata": { "name": "thumbs-1" },
        "spec": { "slot": "thumbs", "kind": { "type": "wasm", "module": "t.wasm" }, "timeoutMs": 1000 },
    })
}

#[track_caller]
fn check(edit: impl FnOnce(&mut Value), want: Result<(), &str>) {
    let mut value = manifest();
    edit(&mut value);
    match (serde_json::from_value::<TaskManifest>(value.clone()), want) {
        (Ok(manifest), Ok(())) => {
            let json = serde_json::to_value(&manifest).unwrap();
            assert_eq!(
                json["metadata"], value["metadata"],
                "the metadata reads back as given"
            );
            assert_eq!(
                serde_json::from_value::<TaskManifest>(json).unwrap(),
                manifest
            );
        }
        (Err(err), Err(needle)) => assert!(err.to_string().contains(needle), "{value}: {err}"),
        (got, want) => panic!("{value}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn parsing_checks_the_type_and_each_part() {
    check(|_| {}, Ok(()));
    check(
        |v| v["apiVersion"] = json!("taskmodel.io/v2"),
        Err(r#"invalid apiVersion "taskmodel.io/v2": expected taskmodel.io/v1"#),
    );
    check(
        |v| v["kind"] = json!("task"),
        Err(r#"invalid kind "task": expected Task"#),
    );
    check(
        |v| drop(v.as_object_mut().unwrap().remove("kind")),
        Err("missing field `kind`"),
    );
    check(|v| v["status"] = json!({}), Err("unknown field `status`"));
    check(
        |v| v["metadata"]["uid"] = json!("x"),
        Err("unknown field `uid`"),
    );
    check(
        |v| v["metadata"]["labels"] = json!({"team": "media"}),
        Ok(()),
    );
    check(
        |v| v["metadata"]["annotations"] = json!({"example.com/note": "any text"}),
        Ok(()),
    );
    check(
        |v| v["metadata"]["name"] = json!("a b"),
        Err("invalid task id"),
    );
    check(
        |v| v["spec"]["timeoutMs"] = json!(0),
        Err("invalid spec.timeoutMs: must be greater than zero"),
    );
    check(
        |v| v["metadata"]["ownerReferences"] = json!([{"kind": "Task", "name": "thumbs-1", "uid": "00000000-0000-0000-0000-000000000001"}]),
        Err("invalid metadata.ownerReferences[0]: a task cannot own itself"),
    );
    check(
        |v| {
            v["metadata"]["ownerReferences"] = json!([
                {"kind": "Schedule", "name": "thumbs", "uid": "00000000-0000-0000-0000-000000000001", "controller": true}
            ])
        },
        Ok(()),
    );
}

#[test]
fn the_submit_boundary_refuses_an_embedded_task() {
    let mut value = manifest();
    value["spec"]["kind"] = json!({"type": "embedded"});
    let manifest: TaskManifest = serde_json::from_value(value).unwrap();
    let err = manifest.validate().unwrap_err();
    assert_eq!(err.path(), Some("spec.kind.type"));
}

#[test]
fn metadata_builders_keep_the_rules() {
    let name = TaskId::new("job").unwrap();
    let uid = model_ids::Uid::from_u128(3);
    let me = OwnerReference::new(crate::task::OwnerKind::Task, "job", uid).unwrap();
    let err = ManifestMeta::new(name.clone())
        .with_owner_references(vec![me])
        .unwrap_err();
    assert_eq!(err.path(), Some("ownerReferences[0]"));
    let flow = OwnerReference::new(crate::task::OwnerKind::Flow, "job", uid).unwrap();
    let meta = ManifestMeta::new(name)
        .with_owner_references(vec![flow.clone()])
        .unwrap();
    assert_eq!(meta.owner_references(), [flow]);
}

/// `manifest()` as text, padded with spaces to exactly `len` bytes.
fn padded(len: usize) -> Vec<u8> {
    let mut text = manifest().to_string().into_bytes();
    assert!(text.len() <= len);
    text.resize(len, b' ');
    text
}

#[test]
fn a_document_at_the_limit_reads_and_one_byte_more_is_refused() {
    let at = padded(MAX_TASK_MANIFEST_BYTES);
    let over = padded(MAX_TASK_MANIFEST_BYTES + 1);
    assert!(TaskManifest::from_json_reader(at.as_slice()).is_ok());
    assert!(TaskManifest::from_json_slice(&at).is_ok());
    for err in [
        TaskManifest::from_json_reader(over.as_slice()).unwrap_err(),
        TaskManifest::from_json_slice(&over).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                TaskError::TooLarge {
                    max: MAX_TASK_MANIFEST_BYTES
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.kind(), model_ids::ErrorKind::Invalid);
    }
}

#[test]
fn reading_stops_at_the_first_byte_past_the_limit() {
    /// A stream of spaces that counts what was read from it.
    struct Counted(usize);
    impl std::io::Read for Counted {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b' ');
            self.0 += buf.len();
            Ok(buf.len())
        }
    }
    let mut stream = Counted(0);
    let err = TaskManifest::from_json_reader(&mut stream).unwrap_err();
    assert!(matches!(err, TaskError::TooLarge { .. }), "{err:?}");
    assert_eq!(stream.0, MAX_TASK_MANIFEST_BYTES + 1);
}

#[test]
fn shape_errors_have_a_position_and_rule_errors_a_path() {
    let text = "{\n  \"apiVersion\": \"taskmodel.io/v1\",\n  \"kind\": 7\n}";
    let err = TaskManifest::from_json_slice(text.as_bytes()).unwrap_err();
    let TaskError::Unreadable {
        line,
        column,
        message,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((*line, *column), (3, 11));
    assert!(
        message.starts_with("invalid type: integer `7`"),
        "{message}"
    );
    assert!(!message.contains("at line"), "{message}");
    for read in [
        TaskManifest::from_json_slice(b"not json"),
        TaskManifest::from_json_reader(&b"{\"apiVersion\": "[..]),
    ] {
        assert!(
            matches!(read, Err(TaskError::Unreadable { .. })),
            "{read:?}"
        );
    }
    let mut bad = manifest();
    bad["spec"]["timeoutMs"] = json!(0);
    let err = TaskManifest::from_json_slice(bad.to_string().as_bytes()).unwrap_err();
    assert_eq!(err.path(), Some("spec.timeoutMs"));
    let read = TaskManifest::from_json_reader(manifest().to_string().as_bytes()).unwrap();
    assert_eq!(
        read,
        serde_json::from_value::<TaskManifest>(manifest()).unwrap()
    );
}
