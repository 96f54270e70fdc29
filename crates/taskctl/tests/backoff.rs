//! `taskctl backoff`: the schedule it prints is the policy's, for the seed given.

mod common;

use common::run;
use taskmodel::{BackoffPolicy, JitterPolicy, SeededRandom};

#[allow(
    clippy::unwrap_used,
    reason = "a helper of tests: a malformed table fails the test"
)]
fn column(stdout: &str, index: usize) -> Vec<u64> {
    stdout
        .lines()
        .skip(2) // the policy line and the header
        .map(|line| line.split_whitespace().nth(index).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn without_jitter_the_table_is_the_capped_exponential() {
    let out = run(&[
        "backoff",
        "--jitter",
        "none",
        "--first-ms",
        "1000",
        "--max-ms",
        "30000",
        "--retries",
        "7",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        "backoff: jitter none, first 1000 ms, max 30000 ms, factor 2, seed 0"
    );
    assert_eq!(column(&out.stdout, 0), [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        column(&out.stdout, 2),
        [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]
    );
    assert_eq!(
        column(&out.stdout, 3),
        [1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000]
    );
}

#[test]
fn json_output_is_the_library_schedule_for_the_seed() {
    for jitter in JitterPolicy::ALL {
        let out = run(&[
            "backoff",
            "--jitter",
            jitter.as_str(),
            "--first-ms",
            "500",
            "--max-ms",
            "20000",
            "--factor",
            "1.5",
            "--seed",
            "42",
            "--retries",
            "12",
            "--output",
            "json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let json = out.json();
        let policy = BackoffPolicy::new(*jitter, 500, 20_000, 1.5).unwrap();
        let expected: Vec<u64> = policy.schedule(SeededRandom::new(42)).take(12).collect();
        let printed: Vec<u64> = json["retries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["delayMs"].as_u64().unwrap())
            .collect();
        assert_eq!(printed, expected, "{jitter}");
        assert_eq!(json["seed"], 42);
        assert_eq!(
            serde_json::from_value::<BackoffPolicy>(json["policy"].clone()).unwrap(),
            policy
        );
        let bases: Vec<u64> = json["retries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["baseMs"].as_u64().unwrap())
            .collect();
        assert_eq!(bases[..3], [500, 750, 1_125], "{jitter}");
    }
}

#[test]
fn the_same_seed_prints_the_same_schedule_and_another_seed_another() {
    let a = run(&["backoff", "--seed", "7", "--retries", "20"]);
    let b = run(&["backoff", "--seed", "7", "--retries", "20"]);
    let c = run(&["backoff", "--seed", "8", "--retries", "20"]);
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(column(&a.stdout, 2), column(&c.stdout, 2));
}

#[test]
fn an_invalid_policy_names_the_flag_and_exits_two() {
    let check = |args: &[&str], flag: &str| {
        let mut all = vec!["backoff"];
        all.extend_from_slice(args);
        let out = run(&all);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.contains(flag), "{args:?}: {}", out.stderr);
    };
    check(&["--first-ms", "0"], "--first-ms");
    check(&["--first-ms", "2000", "--max-ms", "1000"], "--max-ms");
    check(&["--factor", "0.5"], "--factor");
    check(&["--factor", "NaN"], "--factor");
}
