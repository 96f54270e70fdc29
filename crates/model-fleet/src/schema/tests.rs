//! Unit tests for `schema`: each schema names its type and states the bounds parsing enforces.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::*;

fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap()
}

#[test]
fn the_runner_schema_states_its_fields_and_bounds() {
    let schema = schema_of::<Runner>();
    assert_eq!(schema["title"], "Runner");
    assert_eq!(schema["required"], json!(["id", "kinds"]));
    assert_eq!(schema["additionalProperties"], false);
    let max = &schema["properties"]["maxConcurrent"];
    assert_eq!(
        (max["minimum"].clone(), max["maximum"].clone()),
        (json!(1), json!(1024))
    );
    assert_eq!(
        schema["$defs"]["RunnerState"]["enum"],
        json!(["online", "draining", "offline"])
    );
    assert_eq!(schema["properties"]["lastSeenAt"]["format"], "date-time");
}

#[test]
fn the_api_error_schema_is_the_envelope() {
    let schema = schema_of::<ApiError>();
    let body = &schema["properties"]["error"];
    assert_eq!(schema["required"], json!(["error"]));
    assert_eq!(body["required"], json!(["code", "message"]));
    assert_eq!(body["properties"]["message"]["maxLength"], 4096);
    assert_eq!(body["additionalProperties"], false);
    assert_eq!(
        schema["$defs"]["ErrorCode"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(7)
    );
}

#[test]
fn the_context_schema_bounds_each_list() {
    let schema = schema_of::<Context>();
    assert_eq!(schema["required"], json!(["tenant"]));
    for list in ["admins", "readers", "executors"] {
        let list = &schema["properties"][list];
        assert_eq!(list["maxItems"], 1000, "{list}");
        assert_eq!(list["uniqueItems"], true, "{list}");
        assert_eq!(list["items"]["$ref"], "#/$defs/Actor", "{list}");
    }
    assert_eq!(schema["$defs"]["Actor"]["maxLength"], 128);
}

#[test]
fn the_log_batch_schema_bounds_lines_and_text() {
    let schema = schema_of::<LogBatch>();
    let lines = &schema["properties"]["lines"];
    assert_eq!(
        (lines["minItems"].clone(), lines["maxItems"].clone()),
        (json!(1), json!(100))
    );
    assert_eq!(
        schema["$defs"]["LogLine"]["properties"]["line"]["maxLength"],
        8192
    );
    assert_eq!(
        schema["$defs"]["LogStream"]["enum"],
        json!(["stdout", "stderr"])
    );
    assert_eq!(schema["properties"]["attempt"]["minimum"], 1);
}
