//! JSON Schema of the identifier types (feature `schema`), through the public API only.
#![cfg(feature = "schema")]

use model_ids::{AgentId, RunnerId, Slot, TaskId};
use serde_json::json;

#[test]
fn each_id_is_a_bounded_string() {
    let table = [
        (
            serde_json::to_value(schemars::schema_for!(TaskId)).unwrap(),
            256,
            "task id",
        ),
        (
            serde_json::to_value(schemars::schema_for!(Slot)).unwrap(),
            64,
            "slot",
        ),
        (
            serde_json::to_value(schemars::schema_for!(AgentId)).unwrap(),
            128,
            "agent id",
        ),
        (
            serde_json::to_value(schemars::schema_for!(RunnerId)).unwrap(),
            128,
            "runner id",
        ),
    ];
    for (schema, max, kind) in table {
        assert_eq!(schema["type"], "string", "{schema}");
        assert_eq!(schema["minLength"], 1, "{schema}");
        assert_eq!(schema["maxLength"], max, "{schema}");
        assert_eq!(schema["pattern"], "^[A-Za-z0-9._-]+$", "{schema}");
        assert_eq!(schema["not"], json!({ "enum": [".", ".."] }), "{schema}");
        let description = schema["description"].as_str().unwrap();
        assert!(description.contains(kind), "{description}");
    }
}

#[test]
fn ids_are_named_definitions() {
    let schema = serde_json::to_value(schemars::schema_for!(Vec<Slot>)).unwrap();
    assert_eq!(schema["items"]["$ref"], "#/$defs/Slot", "{schema}");
    assert_eq!(schema["$defs"]["Slot"]["maxLength"], 64, "{schema}");
}

#[test]
fn error_codes_are_an_enum_of_their_wire_names() {
    let schema = serde_json::to_value(schemars::schema_for!(model_ids::ErrorCode)).unwrap();
    let names: Vec<&str> = model_ids::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert_eq!(schema["type"], "string", "{schema}");
    assert_eq!(schema["enum"], json!(names), "{schema}");
}

#[test]
fn sixteen_byte_ids_are_patterned_strings() {
    let uid = serde_json::to_value(schemars::schema_for!(model_ids::Uid)).unwrap();
    assert_eq!(uid["type"], "string", "{uid}");
    assert_eq!(
        uid["pattern"], "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        "{uid}"
    );
    let action = serde_json::to_value(schemars::schema_for!(model_ids::ActionId)).unwrap();
    assert_eq!(action["pattern"], "^[0-9a-fA-F]{32}$", "{action}");
}
