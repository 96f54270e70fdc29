//! `taskctl simulate` end to end (docs/performance.md, "Simulation"; here and not in the benches crate, which may not depend on a tool): 10,000 tasks over 2,000 slots on 100 runners, reading the specs and the inventory, every step checked, the summary written; on the sqlite plane (the store on a temporary file) and on the memory plane, the latter also with the SVG timeline.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use taskmodel::{RandomSource as _, SeededRandom};

/// A batch job for any runner: retries failures three times with full jitter.
const BATCH: &str = r#"{
  "slot": "batch",
  "kind": {"type": "subprocess", "mode": {"type": "command", "command": "/usr/bin/batch"}},
  "timeoutMs": 300000,
  "restart": "onFailure",
  "backoff": {"jitter": "full", "firstMs": 1000, "maxMs": 60000, "factor": 2.0},
  "maxRetries": 3
}"#;

/// A report any runner takes, at a higher priority. (Open to every runner, as the measured
/// case has always been; a selector only some runners match no longer starves the others
/// on the sqlite plane, whose claim passes over the tasks they may not take without
/// decoding them.)
const REPORT: &str = r#"{
  "slot": "report",
  "kind": {"type": "subprocess", "mode": {"type": "command", "command": "/usr/bin/report"}},
  "timeoutMs": 300000,
  "restart": "onFailure",
  "backoff": {"jitter": "equal", "firstMs": 5000, "maxMs": 120000, "factor": 2.0},
  "priority": 10,
  "maxRetries": 5
}"#;

/// 100 runners over three zones, most with an SSD, all running subprocesses.
fn inventory() -> String {
    let mut rng = SeededRandom::new(7);
    let runners: Vec<String> = (0..100)
        .map(|i| {
            let zone = ["eu", "us", "ap"][(rng.next_u64() % 3) as usize];
            let ssd = if rng.next_u64().is_multiple_of(5) { "" } else { r#", "ssd": "true""# };
            format!(r#"{{"id": "runner-{i:03}", "labels": {{"zone": "{zone}"{ssd}}}, "kinds": ["subprocess", "container"]}}"#)
        })
        .collect();
    format!("[{}]", runners.join(",\n"))
}

fn write(name: &str, text: &str) -> String {
    let path: PathBuf =
        std::env::temp_dir().join(format!("taskctl-bench-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn bench(c: &mut Criterion) {
    let batch = write("batch.json", BATCH);
    let report = write("report.json", REPORT);
    let runners = write("runners.json", &inventory());
    let svg = std::env::temp_dir()
        .join(format!("taskctl-bench-{}-timeline.svg", std::process::id()))
        .display()
        .to_string();
    // 5,000 copies of each spec over 1,000 slots each (five tasks a slot, run one after
    // another): 10,000 tasks; a minute an attempt; 10% fail, 1% time out; two runners
    // crash, one comes back.
    let args = |plane: &'static str, timeline: bool| {
        let mut args = vec![
            "taskctl",
            "simulate",
            &batch,
            &report,
            "--runners",
            &runners,
            "--copies",
            "5000",
            "--slots",
            "1000",
            "--seed",
            "42",
            "--fail-rate",
            "0.1",
            "--timeout-rate",
            "0.01",
            "--attempt-ms",
            "60000",
            "--crash",
            "runner-003@600000..1200000",
            "--crash",
            "runner-050@1800000",
            "--plane",
            plane,
        ];
        if timeline {
            args.extend(["--timeline", svg.as_str()]);
        }
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    // Both planes print the same summary.
    let mut summaries = Vec::new();
    for plane in ["memory", "sqlite"] {
        let mut summary = Vec::new();
        let outcome = taskctl::run(
            args(plane, false),
            &mut io::empty(),
            &mut summary,
            &mut io::sink(),
        );
        assert_eq!(
            outcome,
            taskctl::Outcome::Valid,
            "{}",
            String::from_utf8_lossy(&summary)
        );
        summaries.push(summary);
    }
    assert_eq!(summaries[0], summaries[1], "the planes agree");
    eprintln!("{}", String::from_utf8_lossy(&summaries[0]));

    let mut group = c.benchmark_group("simulate");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for (name, plane, timeline) in [
        ("10k_tasks_2k_slots_100_runners_sqlite", "sqlite", false),
        ("10k_tasks_2k_slots_100_runners_memory", "memory", false),
        (
            "10k_tasks_2k_slots_100_runners_memory_timeline",
            "memory",
            true,
        ),
    ] {
        let args = args(plane, timeline);
        group.bench_function(name, |b| {
            b.iter(|| {
                let outcome = taskctl::run(
                    args.clone(),
                    &mut io::empty(),
                    &mut io::sink(),
                    &mut io::sink(),
                );
                assert_eq!(outcome, taskctl::Outcome::Valid);
            });
        });
    }
    group.finish();
    for path in [batch, report, runners, svg] {
        let _ = std::fs::remove_file(path);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
