//! Measures validating and ordering a flow of 100,000 jobs and 500,000 dependencies (and the same graph with one cycle) against petgraph's toposort, and a job's end at 10 and 10,000 dependents.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use benches::Rng;
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use model_flow::{FlowError, FlowGraph, FlowJob, FlowRun, FlowSpec, JobNames, TriggerRule};
use model_ids::JobName;
use model_task::{RestartDecision, SubprocessMode, TaskEnv, TaskKind, TaskPhase, TaskSpec};

const JOBS: usize = 100_000;
const LAYER: usize = 1_000;
const DEPENDENCIES: usize = 500_000;

/// A layered DAG like a big ETL fan: 100 layers of 1,000 jobs; every job after the first
/// layer depends on 5 jobs (the first 5,000 of them on 6), three in four in the layer just
/// before and the others further back: 500,000 dependencies. Jobs are declared layer by
/// layer (as people and generators write flows) or, with `shuffled`, in a random order,
/// which leaves no locality to the name lookups and gives the order real ties to break.
/// Returns each job's dependencies by declared position.
fn layered(shuffled: bool) -> Vec<Vec<usize>> {
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

fn name(i: usize) -> JobName {
    JobName::new(format!("job-{i:06}")).unwrap()
}

fn spec() -> TaskSpec {
    let mode = SubprocessMode::command("/opt/etl/step".into(), vec!["--fast".into()]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    TaskSpec::builder("etl", kind, 60_000).build().unwrap()
}

/// The flow's jobs; each job's dependencies are its own list of names, built name by name
/// as reading a document builds it.
fn jobs(deps: &[Vec<usize>]) -> Vec<FlowJob> {
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

fn graph(jobs: &[FlowJob]) -> Result<FlowGraph, FlowError> {
    FlowGraph::new(jobs.iter().map(|j| (j.name(), j.depends_on(), j.when())))
}

fn validate(jobs: Vec<FlowJob>) -> Result<FlowSpec, FlowError> {
    FlowSpec::builder("big").jobs(jobs).build()
}

/// The same graph with one cycle: a first-layer job comes to depend on a last-layer job
/// that (through a chain of dependencies) depends on it.
fn with_cycle(deps: &[Vec<usize>], flow: &FlowSpec) -> Vec<Vec<usize>> {
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

fn ordering(c: &mut Criterion) {
    let mut group = c.benchmark_group("flow");
    group.sample_size(20);
    for (case, shuffled) in [("in-layers", false), ("shuffled", true)] {
        let deps = layered(shuffled);
        let jobs = jobs(&deps);
        let flow = validate(jobs.clone()).unwrap();
        let cyclic = with_cycle(&deps, &flow);
        let cyclic_jobs = self::jobs(&cyclic);
        let cycle = graph(&cyclic_jobs).unwrap_err();
        eprintln!(
            "flow bench {case}: {JOBS} jobs, {DEPENDENCIES} dependencies, {} levels; {}",
            flow.graph().levels().len(),
            cycle.to_string().chars().take(100).collect::<String>()
        );
        // The graph's checks and order: names, dependencies, cycles, topological order, levels.
        group.bench_function(
            BenchmarkId::new("validate_and_order/taskmodel", case),
            |b| {
                b.iter_with_large_drop(|| graph(black_box(&jobs)).unwrap());
            },
        );
        group.bench_function(
            BenchmarkId::new("validate_and_order_cycle/taskmodel", case),
            |b| {
                b.iter(|| black_box(graph(black_box(&cyclic_jobs)).unwrap_err()));
            },
        );
        #[cfg(feature = "compare")]
        peer::ordering(&mut group, case, &deps, &cyclic, &flow);
        if !shuffled {
            // The whole flow from its jobs (the graph and the per-job checks), jobs moved in.
            group.bench_function("build_flow/taskmodel", |b| {
                b.iter_batched(
                    || jobs.clone(),
                    |jobs| black_box(validate(jobs).unwrap()),
                    BatchSize::LargeInput,
                );
            });
        }
    }
    group.finish();
}

#[cfg(feature = "compare")]
mod peer {
    use std::collections::HashMap;
    use std::hint::black_box;

    use criterion::measurement::WallTime;
    use criterion::{BenchmarkGroup, BenchmarkId};
    use model_flow::FlowSpec;
    use model_ids::JobName;
    use petgraph::algo::toposort;
    use petgraph::graph::{DiGraph, NodeIndex};

    /// The graph as petgraph holds it: node i is job i, an edge from each dependency.
    fn graph(deps: &[Vec<usize>]) -> DiGraph<(), ()> {
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

    /// What a caller of petgraph does with a flow's names: index them, resolve each
    /// dependency, build the graph, sort.
    fn from_names(names: &[JobName], deps: &[Vec<JobName>]) -> Option<usize> {
        let index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let resolved: Vec<Vec<usize>> = deps
            .iter()
            .map(|ds| ds.iter().map(|d| index[d.as_str()]).collect())
            .collect();
        toposort(&graph(&resolved), None)
            .ok()
            .map(|order| order.len())
    }

    pub(super) fn ordering(
        group: &mut BenchmarkGroup<'_, WallTime>,
        case: &str,
        deps: &[Vec<usize>],
        cyclic: &[Vec<usize>],
        flow: &FlowSpec,
    ) {
        let acyclic = graph(deps);
        let with_cycle = graph(cyclic);
        // Both sides agree on what they were given.
        let sorted = toposort(&acyclic, None).unwrap();
        assert_eq!(sorted.len(), flow.graph().len());
        assert!(toposort(&with_cycle, None).is_err());
        group.bench_function(BenchmarkId::new("toposort/petgraph", case), |b| {
            b.iter(|| black_box(toposort(black_box(&acyclic), None).unwrap()));
        });
        group.bench_function(BenchmarkId::new("toposort_cycle/petgraph", case), |b| {
            b.iter(|| black_box(toposort(black_box(&with_cycle), None).unwrap_err()));
        });
        let names: Vec<JobName> = flow.jobs().iter().map(|j| j.name().clone()).collect();
        let named: Vec<Vec<JobName>> = flow
            .jobs()
            .iter()
            .map(|j| {
                j.depends_on()
                    .iter()
                    .map(|d| JobName::new(d).unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(from_names(&names, &named), Some(names.len()));
        group.bench_function(
            BenchmarkId::new("resolve_build_toposort/petgraph", case),
            |b| {
                b.iter(|| black_box(from_names(&names, &named)));
            },
        );
    }
}

/// A flow of 10,001 jobs: a root job with `fanout` dependents, and independent jobs for
/// the rest, so both sizes of fan-out have the same number of jobs.
fn fan(fanout: usize) -> FlowRun {
    let spec = spec();
    let root = name(0);
    let jobs = (0..=10_000).map(|i| {
        let deps = if i >= 1 && i <= fanout {
            JobNames::from_iter([&root])
        } else {
            JobNames::new()
        };
        FlowJob::new(name(i), spec.clone(), deps, TriggerRule::AllSucceeded)
    });
    let flow = FlowSpec::builder("fan").jobs(jobs).build().unwrap();
    let mut run = FlowRun::new(&flow);
    run.start(root.as_str()).unwrap();
    run
}

fn job_end(c: &mut Criterion) {
    let mut group = c.benchmark_group("flow_job_end");
    let root = name(0);
    for fanout in [10, 10_000] {
        let run = fan(fanout);
        let changes = run
            .clone()
            .end_attempt(
                root.as_str(),
                RestartDecision::Final(TaskPhase::Succeeded),
                None,
            )
            .unwrap();
        assert_eq!(changes.ready().count(), fanout);
        // Each end is timed on its own, on a fresh copy of the run made (and dropped)
        // outside the timing, so the figure is the end alone.
        group.bench_with_input(BenchmarkId::new("dependents", fanout), &run, |b, run| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut run = run.clone();
                    let start = Instant::now();
                    let changes = run
                        .end_attempt(
                            root.as_str(),
                            RestartDecision::Final(TaskPhase::Succeeded),
                            None,
                        )
                        .unwrap();
                    total += start.elapsed();
                    black_box((run, changes));
                }
                total
            });
        });
    }
    group.finish();
}

criterion_group!(benches, ordering, job_end);
criterion_main!(benches);
