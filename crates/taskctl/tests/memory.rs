//! taskctl's peak memory stays a few times the input, counted in process with a counting
//! allocator (docs/limits.md, "taskctl"): files are checked one at a time, and neither a
//! document's diagnosis nor an inventory costs more than a few times its text.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail on any error")]

use std::io;
use std::path::PathBuf;

use taskctl::{MAX_INPUT_BYTES, Outcome};

/// What one in-process run concluded, and the most bytes it held at once.
fn peak(args: &[&str], stdin: &[u8]) -> (Outcome, u64) {
    let args = std::iter::once("taskctl").chain(args.iter().copied());
    let mut outcome = Outcome::Usage;
    let counted = allocation_counter::measure(|| {
        outcome = taskctl::run(args, &mut &stdin[..], &mut io::sink(), &mut io::sink());
    });
    (outcome, counted.bytes_max)
}

/// Writes `text` to a fresh file in the temp directory and returns its path.
fn temp_file(name: &str, text: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("taskctl-memory-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

const MIB: u64 = 1024 * 1024;

#[test]
fn files_are_checked_one_at_a_time() {
    // A spec missing every field, padded with spaces to the input limit.
    let mut text = vec![b' '; usize::try_from(MAX_INPUT_BYTES).unwrap()];
    text[..2].copy_from_slice(b"{}");
    let path = temp_file("padded.json", &text);
    let path = path.to_str().unwrap();
    let (outcome, one) = peak(&["check", path], b"");
    assert_eq!(outcome, Outcome::Invalid);
    let (outcome, six) = peak(&["check", path, path, path, path, path, path], b"");
    assert_eq!(outcome, Outcome::Invalid);
    // Six files cost what one costs; all six were held at once before.
    assert!(six <= one + MIB, "six files: {six} bytes, one file: {one}");
    // A file is read into a buffer of its size, once.
    assert!(one <= MAX_INPUT_BYTES + MIB, "one file: {one} bytes");
}

/// `n` empty arrays, comma-separated: `[],[],...,[]`.
fn empty_arrays(n: usize) -> String {
    let mut text = "[],".repeat(n);
    text.pop();
    text
}

/// The most `[],` units that fit in `room` bytes.
fn units(room: u64, unit: usize) -> usize {
    usize::try_from(room).unwrap() / unit
}

#[test]
fn a_document_costs_a_few_times_its_text() {
    let limit = MAX_INPUT_BYTES - 64;
    let keys: Vec<String> = (0..units(limit, 13))
        .map(|i| format!("\"k{i:07}\":0"))
        .collect();
    let documents = [
        ("arrays", format!("[{}]", empty_arrays(units(limit, 3)))),
        (
            "labels",
            format!("{{\"labels\":[{}]}}", empty_arrays(units(limit, 3))),
        ),
        (
            "task",
            format!(
                "{{\"spec\":{{\"runnerSelector\":[{}]}}}}",
                empty_arrays(units(limit, 3))
            ),
        ),
        ("keys", format!("{{{}}}", keys.join(","))),
    ];
    drop(keys);
    for (name, text) in documents {
        let len = text.len() as u64;
        assert!(
            len <= MAX_INPUT_BYTES && len > MAX_INPUT_BYTES - MIB,
            "{name}: {len}"
        );
        let (outcome, held) = peak(&["check", "-"], text.as_bytes());
        assert_eq!(outcome, Outcome::Invalid, "{name}");
        // The text once (read from stdin), and at most two more copies' worth; a JSON value
        // of `[[],[],...]` alone was 22 times the text.
        assert!(
            held <= 3 * len,
            "{name}: {held} bytes held for {len} bytes of text"
        );
    }
}

#[test]
fn route_holds_the_router_and_about_twice_the_inventory() {
    use taskmodel::fleet::KindSet;
    use taskmodel::selector::Labels;
    use taskmodel::{RunnerId, TaskId, TaskSpec};

    const RUNNERS: usize = 100_000;
    let id = |i: usize| format!("runner-{i:06}");
    let docs: Vec<String> = (0..RUNNERS)
        .map(|i| {
            format!(
                r#"{{"id":"{}","labels":{{"zone":"eu"}},"kinds":["subprocess"]}}"#,
                id(i)
            )
        })
        .collect();
    let inventory = format!("[{}]", docs.join(","));
    drop(docs);
    let spec_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/spec-command.json");
    let spec: TaskSpec =
        serde_json::from_str(&std::fs::read_to_string(&spec_path).unwrap()).unwrap();
    let task = TaskId::new(spec.slot().as_ref()).unwrap();

    // What the router alone holds for these runners: its index, and the explanation.
    let router_alone = allocation_counter::measure(|| {
        let router = taskmodel::RunnerRouter::new();
        // Each runner's id and labels made on their own, as reading them does.
        let runners = (0..RUNNERS).map(|i| {
            let zone = Labels::from_pairs([("zone", "eu")]).unwrap();
            (RunnerId::new(id(i)).unwrap(), zone, KindSet::ALL)
        });
        router.replace_all(runners).unwrap();
        let explained = router.explain(&spec, &task).unwrap();
        assert_eq!(explained.runners.len(), RUNNERS);
    })
    .bytes_max;

    for output in ["text", "json"] {
        let args = [
            "route",
            "-o",
            output,
            spec_path.to_str().unwrap(),
            "--runners",
            "-",
        ];
        let (outcome, held) = peak(&args, inventory.as_bytes());
        // No runner has the `ssd` label the spec asks for.
        assert_eq!(outcome, Outcome::Invalid);
        let text = inventory.len() as u64;
        assert!(
            held <= router_alone + 2 * text,
            "{output}: {held} bytes held; the router alone {router_alone}, the inventory {text}"
        );
    }
}
