//! Validating and ordering the big flow (`benches::flows`) and petgraph's toposort of the
//! same graph, measured in pairs: each round times one call of each, one after the other,
//! and the figure is the median of the rounds' ratios (ours over petgraph's). On a shared
//! machine two separate criterion runs drift apart by a fifth or more between them; a pair
//! sees the same machine. `FLOW_PAIR_ROUNDS` sets the rounds (default 41).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;
use std::time::Instant;

use benches::flows::{graph, jobs, layered, petgraph_graph, validate, with_cycle};
use petgraph::algo::toposort;

fn main() {
    let rounds: usize = std::env::var("FLOW_PAIR_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(41)
        .max(1);
    println!(
        "| case | ours / petgraph (median of {rounds} rounds) | first to third quartile | ours, median | petgraph, median |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (case, shuffled) in [("in-layers", false), ("shuffled", true)] {
        let deps = layered(shuffled);
        let acyclic = jobs(&deps);
        let flow = validate(acyclic.clone()).unwrap();
        let cyclic = with_cycle(&deps, &flow);
        let cyclic_jobs = jobs(&cyclic);
        let peer_acyclic = petgraph_graph(&deps);
        let peer_cyclic = petgraph_graph(&cyclic);
        // Both sides agree on what they were given.
        assert_eq!(
            toposort(&peer_acyclic, None).map(|order| order.len()).ok(),
            Some(flow.graph().len())
        );
        assert!(graph(&cyclic_jobs).is_err() && toposort(&peer_cyclic, None).is_err());
        for (kind, ours, peer) in [
            ("", &acyclic, &peer_acyclic),
            (", one cycle", &cyclic_jobs, &peer_cyclic),
        ] {
            let (mut ratios, mut own, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
            // Two rounds to warm up, not counted.
            for round in 0..rounds + 2 {
                let start = Instant::now();
                let built = black_box(graph(black_box(ours)));
                let a = start.elapsed().as_secs_f64() * 1e3;
                drop(built);
                let start = Instant::now();
                let sorted = black_box(toposort(black_box(peer), None));
                let b = start.elapsed().as_secs_f64() * 1e3;
                drop(sorted);
                if round >= 2 {
                    ratios.push(a / b);
                    own.push(a);
                    theirs.push(b);
                }
            }
            for v in [&mut ratios, &mut own, &mut theirs] {
                v.sort_by(f64::total_cmp);
            }
            let at = |v: &[f64], q: usize| v[(v.len() - 1) * q / 4];
            println!(
                "| {case}{kind} | {:.3} | {:.3} to {:.3} | {:.2} ms | {:.2} ms |",
                at(&ratios, 2),
                at(&ratios, 1),
                at(&ratios, 3),
                at(&own, 2),
                at(&theirs, 2)
            );
        }
    }
}
