//! Measures validating and ordering a flow of 100,000 jobs and 500,000 dependencies (and the same graph with one cycle) against petgraph's toposort, and a job's end at 10 and 10,000 dependents.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use benches::flows::{DEPENDENCIES, JOBS, graph, jobs, layered, name, spec, validate, with_cycle};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use model_flow::{FlowJob, FlowRun, FlowSpec, JobNames, TriggerRule};
use model_task::{RestartDecision, TaskPhase};

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

    use benches::flows::petgraph_graph;
    use criterion::measurement::WallTime;
    use criterion::{BenchmarkGroup, BenchmarkId};
    use model_flow::FlowSpec;
    use model_ids::JobName;
    use petgraph::algo::toposort;

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
        toposort(&petgraph_graph(&resolved), None)
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
        let acyclic = petgraph_graph(deps);
        let with_cycle = petgraph_graph(cyclic);
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
