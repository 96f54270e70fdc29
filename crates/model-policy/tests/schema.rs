//! The JSON Schema of the policy types (feature `schema`): shape, bounds and enumerations.
#![cfg(feature = "schema")]

use model_policy::{
    AdmissionPolicy, BackoffPolicy, JitterPolicy, MAX_BACKOFF_MS, MAX_RESTART_INTERVAL_MS,
    RestartPolicy,
};
use serde_json::{Value, json};

fn schema<T: schemars::JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

#[test]
fn enums_list_their_wire_forms() {
    let restart = schema::<RestartPolicy>();
    assert_eq!(
        restart["oneOf"][0],
        json!({ "type": "string", "enum": ["never", "onFailure", "always"] })
    );
    assert_eq!(
        restart["oneOf"][2]["properties"]["intervalMs"]["maximum"],
        json!(MAX_RESTART_INTERVAL_MS)
    );
    assert_eq!(
        restart["oneOf"][2]["properties"]["intervalMs"]["minimum"],
        1
    );
    assert_eq!(
        schema::<JitterPolicy>()["enum"],
        json!(["none", "full", "equal", "decorrelated"])
    );
    assert_eq!(
        schema::<AdmissionPolicy>()["enum"],
        json!(["dropIfRunning", "replace", "queue"])
    );
    assert_eq!(schema::<JitterPolicy>()["type"], "string");
}

#[test]
fn backoff_schema_states_the_bounds() {
    let schema = schema::<BackoffPolicy>();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    let properties = &schema["properties"];
    for field in ["firstMs", "maxMs"] {
        assert_eq!(properties[field]["type"], "integer", "{field}");
        assert_eq!(properties[field]["minimum"], 1, "{field}");
        assert_eq!(properties[field]["maximum"], MAX_BACKOFF_MS, "{field}");
    }
    assert_eq!(properties["factor"]["minimum"], 1.0);
    assert_eq!(properties["firstMs"]["default"], 1000);
    assert_eq!(properties["maxMs"]["default"], 30000);
    assert_eq!(properties["factor"]["default"], 2.0);
    // The jitter field refers to the JitterPolicy definition.
    let reference = properties["jitter"]["$ref"].as_str().unwrap();
    let name = reference.rsplit('/').next().unwrap();
    assert_eq!(name, "JitterPolicy");
    assert_eq!(
        schema["$defs"][name]["enum"],
        json!(["none", "full", "equal", "decorrelated"])
    );
    assert!(
        schema.get("required").is_none(),
        "every field has a default"
    );
}
