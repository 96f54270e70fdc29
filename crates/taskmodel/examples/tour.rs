//! A short tour of the taskmodel API: run with `cargo run --example tour -p taskmodel`.

use taskmodel::prelude::*;

fn main() -> Result<()> {
    let slot = Slot::new("nightly-backup")?;
    let task = TaskId::new(format!("{slot}.{}", taskmodel::ids::encode_base36(12_345)))?;
    println!("task {task} in slot {slot}");

    match Slot::new("no spaces") {
        Ok(slot) => println!("unexpectedly valid: {slot}"),
        Err(err) => println!("rejected ({:?}): {err}", Error::from(err.clone()).kind()),
    }

    let restart: RestartPolicy = "on-failure".parse()?;
    let backoff = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0)?;
    println!("restart {restart}, backoff {backoff:?}");
    for (retry, delay) in (1..).zip(backoff.schedule(SeededRandom::new(42)).take(8)) {
        println!("  retry {retry}: wait {delay} ms");
    }
    Ok(())
}
