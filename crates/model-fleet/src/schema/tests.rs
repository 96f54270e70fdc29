//! Unit tests for `schema`: each schema names its type and states the bounds parsing enforces.

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
