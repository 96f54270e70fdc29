//! The big flow of the flow benches (`benches/flow.rs`, `benches/flow_pair.rs`): 100,000
//! jobs and 500,000 dependencies, declared in layers or shuffled, and the same graph with
//! one cycle.
#![allow(
    clippy::unwrap_used,
    reason = "fixtures built from constants known to be valid, as in the bench files"
)]

use model_flow::{FlowError, FlowGraph, FlowJob, FlowSpec, JobNames, TriggerRule};
use model_ids::JobName;
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};

use crate::Rng;

/// Jobs in the flow.
pub const JOBS: usize = 100_000;
/// Jobs in a layer.
pub const LAYER: usize = 1_000;
/// Dependencies in the flow.
pub const DEPENDENCIES: usize = 500_000;

/// A layered DAG like a big ETL fan: 100 layers of 1,000 jobs; every job after the first
/// layer depends on 5 jobs (the first 5,000 of them on 6), three in four in the layer just
/// before and the others further back: 500,000 dependencies. Jobs are declared layer by
/// layer (as people and generators write flows) or, with `shuffled`, in a random order,
/// which leaves no locality to the name lookups and gives the order real ties to break.
/// Returns each job's dependencies by declared position.
pub fn layered(shuffled: bool) -> Vec<Vec<usize>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // rank (layer-major) -> declared position
    let mut position: Vec<usize> = (0..JOBS).collect();
    if shuffled {
        for i in (1..JOBS).rev() {
            position.swap(i, rng.below(i + 1));
        }
    }
    let mut deps = vec![Vec::new(); JOBS];
    let mut total = 0;
    for rank in LAYER..JOBS {
        let layer = rank / LAYER;
        let count = if rank - LAYER < DEPENDENCIES - 5 * (JOBS - LAYER) {
            6
        } else {
            5
        };
        let mine = &mut deps[position[rank]];
        while mine.len() < count {
            let back = if rng.below(4) == 0 {
                1 + rng.below(layer)
            } else {
                1
            };
            let dep = position[(layer - back) * LAYER + rng.below(LAYER)];
            if !mine.contains(&dep) {
                mine.push(dep);
            }
        }
        total += count;
    }
    assert_eq!(total, DEPENDENCIES);
    deps
}

/// The name of job `i`.
pub fn name(i: usize) -> JobName {
    JobName::new(format!("job-{i:06}")).unwrap()
}

/// The spec every job of the flow runs.
pub fn spec() -> TaskSpec {
    let mode = SubprocessMode::command("/opt/etl/step".into(), vec!["--fast".into()]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    TaskSpec::builder("etl", kind, 60_000).build().unwrap()
}

/// The flow's jobs; each job's dependencies are its own list of names, built name by name
/// as reading a document builds it.
pub fn jobs(deps: &[Vec<usize>]) -> Vec<FlowJob> {
    let spec = spec();
    let names: Vec<JobName> = (0..deps.len()).map(name).collect();
    deps.iter()
        .enumerate()
        .map(|(i, ds)| {
            let mut list = JobNames::new();
            for &d in ds {
                list.push(&names[d]);
            }
            FlowJob::new(
                names[i].clone(),
                spec.clone(),
                list,
                TriggerRule::AllSucceeded,
            )
        })
        .collect()
}

/// The graph of `jobs`: names, dependencies, cycles, order and levels.
pub fn graph(jobs: &[FlowJob]) -> Result<FlowGraph, FlowError> {
    FlowGraph::new(jobs.iter().map(|j| (j.name(), j.depends_on(), j.when())))
}

/// The whole flow of `jobs` (the graph and each job's checks).
pub fn validate(jobs: Vec<FlowJob>) -> Result<FlowSpec, FlowError> {
    FlowSpec::builder("big").jobs(jobs).build()
}

/// The same graph with one cycle: a first-layer job comes to depend on a last-layer job
/// that (through a chain of dependencies) depends on it.
pub fn with_cycle(deps: &[Vec<usize>], flow: &FlowSpec) -> Vec<Vec<usize>> {
    let graph = flow.graph();
    let last = graph.order().last().unwrap();
    let mut root = last;
    while let Some(dep) = graph.dependencies(root).next() {
        root = dep;
    }
    let mut cyclic = deps.to_vec();
    cyclic[root].push(last);
    cyclic
}

/// The graph as petgraph holds it: node `i` is job `i`, an edge from each dependency.
#[cfg(feature = "compare")]
pub fn petgraph_graph(deps: &[Vec<usize>]) -> petgraph::graph::DiGraph<(), ()> {
    use petgraph::graph::{DiGraph, NodeIndex};
    let edges: usize = deps.iter().map(Vec::len).sum();
    let mut graph = DiGraph::with_capacity(deps.len(), edges);
    for _ in 0..deps.len() {
        graph.add_node(());
    }
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            graph.add_edge(NodeIndex::new(d), NodeIndex::new(i), ());
        }
    }
    graph
}
