//! Measures parsing a typical subprocess `TaskSpec` from JSON with full validation, against plain serde parsing of the same JSON into an unvalidated twin, and serializing it.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::expect_used,
    reason = "the bench inputs are constants; a broken one should stop the run"
)]

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use model_task::TaskSpec;
use serde::Deserialize;

/// A typical subprocess spec: a command with arguments, a small environment, a working
/// directory, every policy set, a runner selector with labels and expressions, and labels.
const SPEC: &str = r#"{
  "slot": "reports-eu",
  "kind": {
    "type": "subprocess",
    "mode": { "type": "command", "command": "/usr/local/bin/report", "args": ["--region", "eu", "--format", "parquet", "--since", "24h"] },
    "env": [
      { "key": "RUST_LOG", "value": "info" },
      { "key": "REPORT_BUCKET", "value": "s3://reports/eu" },
      { "key": "TZ", "value": "UTC" }
    ],
    "cwd": "/srv/reports"
  },
  "timeoutMs": 900000,
  "restart": "onFailure",
  "backoff": { "jitter": "equal", "firstMs": 1000, "maxMs": 60000, "factor": 2.0 },
  "admission": "queue",
  "runnerSelector": {
    "matchLabels": { "zone": "eu", "os": "linux" },
    "matchExpressions": [
      { "key": "tier", "operator": "NotIn", "values": ["spot"] },
      { "key": "ssd", "operator": "Exists" }
    ]
  },
  "labels": { "team": "analytics", "schedule": "daily", "cost-center": "cc-42" },
  "maxRetries": 3
}"#;

// ---- The unvalidated twin: the same wire shape, plain serde derives, no checks.

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
struct TwinSpec {
    slot: String,
    kind: TwinKind,
    timeout_ms: u64,
    #[serde(default)]
    restart: Option<String>,
    #[serde(default)]
    backoff: Option<TwinBackoff>,
    #[serde(default)]
    admission: Option<String>,
    #[serde(default)]
    runner_selector: Option<TwinSelector>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    max_retries: Option<u32>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
enum TwinKind {
    Subprocess {
        mode: TwinMode,
        #[serde(default)]
        env: Vec<TwinEnvVar>,
        #[serde(default)]
        cwd: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
enum TwinMode {
    Command {
        command: String,
        #[serde(default)]
        args: Vec<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
struct TwinEnvVar {
    key: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
struct TwinBackoff {
    jitter: Option<String>,
    first_ms: Option<u64>,
    max_ms: Option<u64>,
    factor: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
struct TwinSelector {
    #[serde(default)]
    match_labels: BTreeMap<String, String>,
    #[serde(default)]
    match_expressions: Vec<TwinRequirement>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "fields exist to be parsed")]
struct TwinRequirement {
    key: String,
    operator: String,
    #[serde(default)]
    values: Vec<String>,
}

fn spec(c: &mut Criterion) {
    let parsed: TaskSpec = serde_json::from_str(SPEC).expect("the bench spec is valid");
    let mut group = c.benchmark_group("spec");
    group.bench_function("parse_unvalidated_twin", |b| {
        b.iter(|| serde_json::from_str::<TwinSpec>(black_box(SPEC)).expect("twin parses"));
    });
    group.bench_function("parse_and_validate", |b| {
        b.iter(|| serde_json::from_str::<TaskSpec>(black_box(SPEC)).expect("spec parses"));
    });
    group.bench_function("serialize", |b| {
        b.iter(|| serde_json::to_string(black_box(&parsed)).expect("spec serializes"));
    });
    group.finish();
}

criterion_group!(benches, spec);
criterion_main!(benches);
