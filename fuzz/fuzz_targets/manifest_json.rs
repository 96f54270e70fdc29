//! A task manifest from JSON, and `Task::apply`.
//!
//! The three ways in (serde, `from_json_slice`, `from_json_reader`) accept the same
//! manifests and read them equal; a manifest serializes to a fixpoint that parses back
//! equal. A task created from it takes it again without any change. Applied to a pending
//! task of the same name, it moves the version by one exactly when something changed and the
//! generation by one exactly when the spec changed, and a second apply changes nothing.
#![no_main]

mod common;

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::task::{ApplyChanges, Task, TaskManifest, TaskSpec};
use taskmodel::{TenantId, Uid};

fuzz_target!(|data: &[u8]| {
    let by_slice = TaskManifest::from_json_slice(data).ok();
    let by_reader = TaskManifest::from_json_reader(data).ok();
    let by_serde = serde_json::from_slice::<TaskManifest>(data).ok();
    assert_eq!(by_slice, by_reader, "from_json_slice and from_json_reader disagree");
    assert_eq!(by_slice, by_serde, "from_json_slice and serde disagree");
    let Some(manifest) = by_slice else {
        return;
    };
    let json = serde_json::to_string(&manifest).expect("a manifest serializes");
    let back = TaskManifest::from_json_slice(json.as_bytes())
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(back, manifest, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);

    let tenant = TenantId::new("fuzz").expect("a valid tenant");
    let uid = Uid::from_u128(0x5f0c_2a9e_7d41_4b8a_9c3e_1a2b_3c4d_5e6f);
    let now = DateTime::<Utc>::UNIX_EPOCH;
    // Creation refuses only an owner that is the task itself.
    let Ok(mut task) = Task::create(manifest.clone(), tenant.clone(), uid, now) else {
        return;
    };
    common::task_round_trip(&task);
    let created = task.clone();
    let again = task.apply(manifest.clone(), Some(1), now);
    assert_eq!(again.ok(), Some(ApplyChanges::default()), "its own manifest changed the task");
    assert_eq!(task, created, "an unchanged apply moved the task");

    let spec: TaskSpec = serde_json::from_str(
        r#"{"slot": "lane", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}"#,
    )
    .expect("a valid spec");
    let base = TaskManifest::named(manifest.metadata().name().clone(), spec);
    let mut other = Task::create(base, tenant, uid, now).expect("a plain manifest creates");
    let later = DateTime::<Utc>::MAX_UTC;
    let changes = other
        .apply(manifest.clone(), Some(1), later)
        .unwrap_or_else(|err| panic!("a pending task refused a manifest of its name: {err}"));
    assert_eq!(other.resource_version(), 1 + u64::from(changes.is_changed()));
    assert_eq!(other.metadata().generation(), 1 + u64::from(changes.spec));
    assert_eq!(other.manifest(), manifest, "the task does not hold what was applied");
    common::task_round_trip(&other);
    let applied = other.clone();
    let twice = other.apply(manifest, None, later);
    assert_eq!(twice.ok(), Some(ApplyChanges::default()), "a second apply changed the task");
    assert_eq!(other, applied);
});
