//! Unit tests for `graph`: every problem with its path, the closest-name hint, the order and levels, cycles and the bounds.

use super::*;
use crate::MAX_REPORTED_CYCLES;

/// Builds a graph of jobs given as `(name, dependencies)`, all with the default rule.
fn graph(jobs: &[(&str, &[&str])]) -> Result<FlowGraph, FlowError> {
    let names = jobs
        .iter()
        .map(|(name, _)| JobName::new(name).unwrap())
        .collect();
    let rules = vec![TriggerRule::default(); jobs.len()];
    let lists: Vec<DependsOnRaw> = jobs
        .iter()
        .map(|(_, deps)| DependsOnRaw::of(*deps))
        .collect();
    FlowGraph::build(names, rules, &lists)
}

/// Jobs as `(name, dependencies)`.
type Jobs<'a> = &'a [(&'a str, &'a [&'a str])];

fn error(jobs: Jobs<'_>) -> String {
    graph(jobs).unwrap_err().to_string()
}

fn names(graph: &FlowGraph, positions: impl IntoIterator<Item = usize>) -> Vec<&str> {
    positions
        .into_iter()
        .map(|p| graph.name(p).unwrap().as_str())
        .collect()
}

#[test]
fn each_problem_names_its_path() {
    let table: &[(Jobs<'_>, &str)] = &[
        (&[], "jobs: a flow has at least one job"),
        (
            &[("a", &[]), ("b", &["c"])],
            r#"jobs[1].dependsOn[0]: unknown job "c""#,
        ),
        (
            &[("extract", &[]), ("load", &["extrakt"])],
            r#"jobs[1].dependsOn[0]: unknown job "extrakt" (did you mean "extract"?)"#,
        ),
        (
            &[("a", &[]), ("b", &["a", "b"])],
            r#"jobs[1].dependsOn[1]: job "b" depends on itself"#,
        ),
        (
            &[("a", &[]), ("b", &[]), ("c", &["a", "b", "a"])],
            r#"jobs[2].dependsOn[2]: "a" is already listed at dependsOn[0]"#,
        ),
        (
            &[("a", &[]), ("b", &[]), ("a", &[])],
            r#"jobs[2].name: duplicate job name "a", first at jobs[0]"#,
        ),
        // A dependency problem in an earlier job comes before a later duplicate name...
        (
            &[("a", &["x"]), ("a", &[])],
            r#"jobs[0].dependsOn[0]: unknown job "x""#,
        ),
        // ... and a job's duplicate name before its own dependencies.
        (
            &[("a", &[]), ("a", &["x"])],
            r#"jobs[1].name: duplicate job name "a", first at jobs[0]"#,
        ),
        (
            &[("a", &["b"]), ("b", &["a"])],
            "jobs[0].dependsOn[0]: jobs form a cycle: a -> b -> a",
        ),
        // Text that is no job name is an unknown job, quoted as written.
        (
            &[("a", &[]), ("b", &["a", "a b"])],
            r#"jobs[1].dependsOn[1]: unknown job "a b""#,
        ),
        (
            &[("extract", &[]), ("load", &["extract!", "x y"])],
            r#"jobs[1].dependsOn[0]: unknown job "extract!" (did you mean "extract"?)"#,
        ),
        (
            &[("a", &[]), ("b", &["b", "a b"])],
            r#"jobs[1].dependsOn[0]: job "b" depends on itself"#,
        ),
        (
            &[("a", &[]), ("b", &["a", "a", ""])],
            r#"jobs[1].dependsOn[1]: "a" is already listed at dependsOn[0]"#,
        ),
        (
            &[("a", &[]), ("b", &["", "a"])],
            r#"jobs[1].dependsOn[0]: unknown job """#,
        ),
    ];
    for (jobs, want) in table {
        assert_eq!(error(jobs), *want, "{jobs:?}");
    }
}

#[test]
fn a_repeat_is_found_among_many_dependencies() {
    let names: Vec<String> = (0..50).map(|i| format!("d{i}")).collect();
    let mut deps: Vec<&str> = names.iter().map(String::as_str).collect();
    deps.push("d7");
    let mut jobs: Vec<(&str, &[&str])> = names.iter().map(|n| (n.as_str(), &[][..])).collect();
    jobs.push(("many", &deps));
    jobs.push(("few", &["d1", "d2", "d1"]));
    assert_eq!(
        error(&jobs),
        r#"jobs[50].dependsOn[50]: "d7" is already listed at dependsOn[7]"#
    );
    jobs[50].1 = &deps[..50];
    assert_eq!(
        error(&jobs),
        r#"jobs[51].dependsOn[2]: "d1" is already listed at dependsOn[0]"#
    );
}

#[test]
fn the_first_repeat_is_reported_before_later_problems() {
    // Repeats are found while the dependents are placed, after the other checks: the
    // reported problem must still be the first in declaration order.
    let table: &[(Jobs<'_>, &str)] = &[
        // Two repeats: the earlier job's, though the placing meets the later one first.
        (
            &[("a", &[]), ("b", &["a", "a"]), ("c", &["b", "a", "b"])],
            r#"jobs[1].dependsOn[1]: "a" is already listed at dependsOn[0]"#,
        ),
        // A repeat before an unknown name, a self-dependency and a duplicate name.
        (
            &[("a", &[]), ("b", &["a", "a"]), ("c", &["x"])],
            r#"jobs[1].dependsOn[1]: "a" is already listed at dependsOn[0]"#,
        ),
        (
            &[("a", &[]), ("b", &["a", "a"]), ("c", &["c"])],
            r#"jobs[1].dependsOn[1]: "a" is already listed at dependsOn[0]"#,
        ),
        (
            &[("a", &[]), ("b", &["a", "a"]), ("a", &[])],
            r#"jobs[1].dependsOn[1]: "a" is already listed at dependsOn[0]"#,
        ),
        // And after them.
        (
            &[("a", &[]), ("c", &["x"]), ("b", &["a", "a"])],
            r#"jobs[1].dependsOn[0]: unknown job "x""#,
        ),
        (
            &[("a", &[]), ("a", &[]), ("b", &["a", "a"])],
            r#"jobs[1].name: duplicate job name "a", first at jobs[0]"#,
        ),
    ];
    for (jobs, want) in table {
        assert_eq!(error(jobs), *want, "{jobs:?}");
    }
}

/// A list's problem is reported before a cycle, whatever the problem, in flows not in
/// declaration order (so sorted, not only read in order), with lists `check` compares
/// among themselves and lists past `FEW_DEPENDENCIES`, which it stamps.
#[test]
fn a_problem_comes_before_a_cycle() {
    // "b" and "c" form a cycle, declared out of order; each flow adds one problem.
    let many: Vec<String> = (0..70).map(|i| format!("m{i}")).collect();
    let mut jobs: Vec<(&str, Vec<&str>)> = vec![("b", vec!["c"]), ("c", vec!["b"])];
    jobs.extend(many.iter().map(|m| (m.as_str(), Vec::new())));
    let with = |job: usize, deps: &[&str]| {
        let mut flow = jobs.clone();
        if let Some((_, list)) = flow.get_mut(job) {
            list.extend_from_slice(deps);
        }
        let flow: Vec<(&str, &[&str])> = flow.iter().map(|(n, d)| (*n, d.as_slice())).collect();
        error(&flow)
    };
    let all: Vec<&str> = many.iter().map(String::as_str).collect();
    let table: &[(usize, Vec<&str>, &str)] = &[
        (1, vec!["x"], r#"jobs[1].dependsOn[1]: unknown job "x""#),
        (
            0,
            vec!["b"],
            r#"jobs[0].dependsOn[1]: job "b" depends on itself"#,
        ),
        (
            2,
            vec!["c", "c"],
            r#"jobs[2].dependsOn[1]: "c" is already listed at dependsOn[0]"#,
        ),
        // A list of 21 entries, compared among themselves, with a repeat at its end...
        (
            30,
            [&all[..20], &["m0"]].concat(),
            r#"jobs[30].dependsOn[20]: "m0" is already listed at dependsOn[0]"#,
        ),
        // ...and one of 71, past `FEW_DEPENDENCIES`, with the job itself at its end.
        (
            1,
            [&all[..], &["c"]].concat(),
            r#"jobs[1].dependsOn[71]: job "c" depends on itself"#,
        ),
    ];
    for (job, deps, want) in table {
        assert_eq!(with(*job, deps), *want, "job {job} with {deps:?}");
    }
    // Without a problem, the cycle.
    assert_eq!(
        with(2, &["m1"]),
        "jobs[0].dependsOn[0]: jobs form a cycle: b -> c -> b"
    );
}

#[test]
fn a_job_placed_next_to_itself_is_no_repeat() {
    // "c" is the last dependent of "a" and the first of "b", whose lists are side by side:
    // placed in "b" first, then at the end of "a", it is next to itself once, and that is
    // no repeat.
    let g = graph(&[("a", &[]), ("b", &[]), ("c", &["b", "a"])]).unwrap();
    assert_eq!(names(&g, g.dependents(0)), ["c"]);
    assert_eq!(names(&g, g.dependents(1)), ["c"]);
    assert_eq!(names(&g, g.order()), ["a", "b", "c"]);
}

#[test]
fn error_kinds_and_paths() {
    let err = graph(&[("a", &["a"])]).unwrap_err();
    assert!(matches!(err, FlowError::SelfDependency { .. }));
    assert_eq!(err.path(), Some("jobs[0].dependsOn[0]"));
    assert_eq!(err.kind(), model_ids::ErrorKind::Invalid);
}

#[test]
fn the_closest_name_is_suggested_only_when_close() {
    let jobs = ["extract", "transform", "load", "publish-report"];
    let names: Vec<JobName> = jobs.iter().map(|n| JobName::new(n).unwrap()).collect();
    let table = [
        ("extrct", Some("extract")),
        ("tranform", Some("transform")),
        ("Load", Some("load")),
        ("lod", Some("load")),
        ("publish-reprot", Some("publish-report")),
        ("deploy", None),
        ("", None),
        ("x", None),
        ("a-much-longer-name-that-matches-nothing-at-all", None),
    ];
    for (input, want) in table {
        let got = closest::closest(input, &names).map(JobName::as_str);
        assert_eq!(got, want, "{input:?}");
    }
    // Ties go to the first declared.
    let names: Vec<JobName> = ["abd", "abe", "abc"]
        .iter()
        .map(|n| JobName::new(n).unwrap())
        .collect();
    assert_eq!(
        closest::closest("abf", &names).map(JobName::as_str),
        Some("abd")
    );
    assert_eq!(
        closest::closest("abc", &names).map(JobName::as_str),
        Some("abc")
    );
    // Input far longer than any job name is not compared.
    let long = "x".repeat(10_000);
    assert_eq!(closest::closest(&long, &names), None);
}

#[test]
fn order_breaks_ties_by_declaration() {
    // d and b are ready first, d declared first; a (after d) comes before c, then e.
    let g = graph(&[
        ("d", &[]),
        ("c", &["a"]),
        ("b", &[]),
        ("a", &["d"]),
        ("e", &["b", "c"]),
    ])
    .unwrap();
    assert_eq!(names(&g, g.order()), ["d", "b", "a", "c", "e"]);
    assert_eq!(g.levels(), [vec![0, 2], vec![3], vec![1], vec![4]]);
    assert_eq!(g.level(4), Some(3));
    assert_eq!(g.level(5), None);
    assert_eq!(names(&g, g.dependencies(4)), ["b", "c"]);
    assert_eq!(names(&g, g.dependents(0)), ["a"]);
    assert_eq!(g.dependencies(99).len(), 0);
    assert_eq!(g.position("e"), Some(4));
    assert_eq!(g.position("zz"), None);
    assert_eq!(g.len(), 5);
    assert!(!g.is_empty());
}

#[test]
fn every_cycle_group_is_reported_with_a_real_path() {
    // Two separate cycles, a job after one of them, and a clean part.
    let g = graph(&[
        ("clean", &[]),
        ("x", &["z"]),
        ("y", &["x"]),
        ("z", &["y"]),
        ("after", &["z"]),
        ("p", &["q", "clean"]),
        ("q", &["p"]),
    ]);
    let Err(FlowError::Cycle { cycles, unreported }) = g else {
        panic!("{g:?}");
    };
    assert_eq!(unreported, 0);
    let shown: Vec<String> = cycles.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "jobs[1].dependsOn[0]: jobs form a cycle: x -> y -> z -> x",
            "jobs[5].dependsOn[0]: jobs form a cycle: p -> q -> p",
        ]
    );
}

#[test]
fn the_shortest_cycle_through_the_first_job_is_shown() {
    // a -> b -> c -> d -> a and the shortcut a -> c -> ... : the shortest cycle through a
    // is a -> c -> d -> a.
    let g = graph(&[
        ("a", &["d"]),
        ("b", &["a"]),
        ("c", &["b", "a"]),
        ("d", &["c"]),
    ]);
    assert_eq!(
        g.unwrap_err().to_string(),
        "jobs[0].dependsOn[0]: jobs form a cycle: a -> c -> d -> a"
    );
}

#[test]
fn of_two_shortest_cycles_the_one_a_search_from_the_first_job_meets_first_is_shown() {
    // s -> x1 -> z -> e -> s and s -> x2 -> y -> e -> s are both shortest. A search from s
    // takes its dependents in order (x1 before x2), so it reaches z before y and e from z,
    // though y is declared before z.
    let g = graph(&[
        ("s", &["e"]),
        ("y", &["x2"]),
        ("z", &["x1"]),
        ("x1", &["s"]),
        ("x2", &["s"]),
        ("e", &["y", "z"]),
    ]);
    assert_eq!(
        g.unwrap_err().to_string(),
        "jobs[0].dependsOn[0]: jobs form a cycle: s -> x1 -> z -> e -> s"
    );
}

#[test]
fn many_cycles_are_counted_past_the_bound() {
    let pairs: Vec<(String, String)> = (0..MAX_REPORTED_CYCLES + 3)
        .map(|i| (format!("a{i}"), format!("b{i}")))
        .collect();
    let mut jobs: Vec<(&str, Vec<&str>)> = Vec::new();
    for (a, b) in &pairs {
        jobs.push((a, vec![b]));
        jobs.push((b, vec![a]));
    }
    let jobs: Vec<(&str, &[&str])> = jobs.iter().map(|(n, d)| (*n, d.as_slice())).collect();
    let Err(FlowError::Cycle { cycles, unreported }) = graph(&jobs) else {
        panic!()
    };
    assert_eq!(cycles.len(), MAX_REPORTED_CYCLES);
    assert_eq!(unreported, 3);
    assert!(
        FlowError::Cycle { cycles, unreported }
            .to_string()
            .ends_with("; and 3 more cycles")
    );
}

#[test]
fn a_long_cycle_is_kept_whole_and_shown_shortened() {
    let names: Vec<String> = (0..100).map(|i| format!("j{i}")).collect();
    let deps: Vec<[&str; 1]> = (0..100).map(|i| [names[(i + 99) % 100].as_str()]).collect();
    let jobs: Vec<(&str, &[&str])> = (0..100)
        .map(|i| (names[i].as_str(), &deps[i][..]))
        .collect();
    let Err(FlowError::Cycle { cycles, .. }) = graph(&jobs) else {
        panic!()
    };
    let [cycle] = &cycles[..] else { panic!() };
    assert_eq!(cycle.jobs().len(), 101);
    assert_eq!(cycle.jobs().first(), cycle.jobs().last());
    let shown = cycle.to_string();
    assert!(shown.starts_with("jobs[0].dependsOn[0]: jobs form a cycle: j0 -> j1 -> "));
    assert!(shown.contains(" -> … 69 more … -> "), "{shown}");
    assert!(shown.ends_with(" -> j99 -> j0"), "{shown}");
}

#[test]
fn bounds_are_exact() {
    let name = |i: usize| JobName::new(format!("j{i}")).unwrap();
    let none: Vec<DependsOnRaw> = Vec::new();
    let empty = |jobs: usize| {
        (0..jobs)
            .map(|_| DependsOnRaw::default())
            .collect::<Vec<_>>()
    };
    // MAX_FLOW_JOBS jobs are accepted, one more is not.
    for (jobs, ok) in [(MAX_FLOW_JOBS, true), (MAX_FLOW_JOBS + 1, false)] {
        let names: Vec<JobName> = (0..jobs).map(name).collect();
        let lists = empty(jobs);
        let result = FlowGraph::build(names, vec![TriggerRule::default(); jobs], &lists);
        assert_eq!(result.is_ok(), ok, "{jobs} jobs");
        if !ok {
            assert!(matches!(
                result,
                Err(FlowError::TooMany {
                    max: MAX_FLOW_JOBS,
                    ..
                })
            ));
        }
    }
    let result = FlowGraph::build(Vec::<JobName>::new(), Vec::new(), &none);
    assert!(matches!(result, Err(FlowError::NoJobs { .. })));
    // MAX_JOB_DEPENDENCIES dependencies of one job are accepted, one more is not.
    for (deps, ok) in [
        (MAX_JOB_DEPENDENCIES, true),
        (MAX_JOB_DEPENDENCIES + 1, false),
    ] {
        let names: Vec<JobName> = (0..=deps).map(name).collect();
        let mut lists = vec![DependsOnRaw::of((1..=deps).map(|i| format!("j{i}")))];
        lists.extend(empty(deps));
        let result = FlowGraph::build(names, vec![TriggerRule::default(); deps + 1], &lists);
        assert_eq!(result.is_ok(), ok, "{deps} dependencies");
        if let Err(err) = result {
            assert_eq!(err.path(), Some("jobs[0].dependsOn"));
        }
    }
    // More than MAX_FLOW_DEPENDENCIES in all is refused before anything is resolved.
    let lists = vec![DependsOnRaw::of(vec!["j0"; MAX_FLOW_DEPENDENCIES + 1])];
    let result = FlowGraph::build(vec![name(0)], vec![TriggerRule::default()], &lists);
    assert!(matches!(
        result,
        Err(FlowError::TooMany {
            max: MAX_FLOW_DEPENDENCIES,
            ..
        })
    ));
}

#[test]
fn the_hash_seed_changes_no_output() {
    // Each build draws a new seed for its name index; the graph, its order and levels, its
    // Debug form and its first error come out the same every time.
    let jobs: Jobs<'_> = &[
        ("load", &["transform"]),
        ("extract", &[]),
        ("transform", &["extract"]),
        ("audit", &["extract"]),
    ];
    let bad: Jobs<'_> = &[("a", &[]), ("b", &["a"]), ("a", &["zz"]), ("b", &[])];
    let first = graph(jobs).unwrap();
    let first_error = error(bad);
    for _ in 0..16 {
        let again = graph(jobs).unwrap();
        assert_eq!(again, first);
        assert_eq!(format!("{again:?}"), format!("{first:?}"));
        assert_eq!(
            again.order().collect::<Vec<_>>(),
            first.order().collect::<Vec<_>>()
        );
        assert_eq!(again.levels(), first.levels());
        assert_eq!(error(bad), first_error);
    }
    assert_eq!(
        first_error,
        r#"jobs[2].name: duplicate job name "a", first at jobs[0]"#
    );
}

#[test]
fn names_sharing_their_first_bytes_resolve_to_themselves() {
    // The index compares a name's first 16 bytes where it keeps them, and only the bytes
    // past those in the name itself: names around that bound, and of every short length.
    let long = "a".repeat(16);
    let mut texts: Vec<String> = (1..=20).map(|len| "b".repeat(len)).collect();
    texts.extend([
        long.clone(),
        format!("{long}x"),
        format!("{long}y"),
        format!("{long}xy"),
        format!("{long}yx"),
        format!("{}z", "a".repeat(15)),
        "abcdefghi".into(),
        "bcdefghij".into(),
        "abcdefgh-bcdefghi".into(),
    ]);
    let jobs: Vec<(&str, &[&str])> = texts.iter().map(|t| (t.as_str(), &[][..])).collect();
    let graph = graph(&jobs).unwrap();
    for (i, text) in texts.iter().enumerate() {
        assert_eq!(graph.position(text), Some(i), "{text}");
    }
    for unknown in [
        format!("{long}z"),
        format!("{long}xx"),
        "a".repeat(15),
        "b".repeat(21),
        "abcdefghj".into(),
        "abcdefgh-bcdefghj".into(),
        // Text no job name can be: non-ASCII, or longer than a job name.
        format!("{}é", "b".repeat(7)),
        "b".repeat(model_ids::JOB_NAME_MAX_LEN + 1),
    ] {
        assert_eq!(graph.position(&unknown), None, "{unknown}");
    }
    // Through the batched lookups too: each name once as a dependency of a last job.
    let mut all = jobs.clone();
    let deps: Vec<&str> = texts.iter().map(String::as_str).collect();
    all.push(("last", &deps));
    let graph = self::graph(&all).unwrap();
    let last = graph.len() - 1;
    assert_eq!(
        graph.dependencies(last).collect::<Vec<_>>(),
        (0..texts.len()).collect::<Vec<_>>()
    );
    let mut with_unknown = deps.clone();
    let unknown = format!("{long}z");
    with_unknown.push(&unknown);
    let mut bad = jobs.clone();
    bad.push(("last", &with_unknown));
    assert!(matches!(
        self::graph(&bad),
        Err(FlowError::UnknownDependency { ref path, .. }) if *path == format!("jobs[{}].dependsOn[{}]", jobs.len(), texts.len())
    ));
}

#[test]
fn names_are_indexed_the_same_in_batches_and_past_the_announced_count() {
    // FlowGraph::new indexes names in batches of BATCH as it reads them, and again at the
    // end when the jobs outnumber what their iterator announced: either way every name
    // resolves, and the first name given twice is the one reported, also across batches.
    // (Batches of 16, as NameIndex's lookups go.)
    const BATCH: usize = 16;
    let jobs = 3 * BATCH + 5;
    let names: Vec<JobName> = (0..jobs)
        .map(|i| JobName::new(format!("job-{i}")).unwrap())
        .collect();
    let lists: Vec<JobNames> = (0..jobs)
        .map(|i| {
            JobNames::from_iter(
                names
                    .get(i.saturating_sub(BATCH + 1)..i / 2)
                    .unwrap_or_default(),
            )
        })
        .collect();
    let rule = TriggerRule::default();
    let exact = || names.iter().zip(&lists).map(|(n, l)| (n, l, rule));
    let built = FlowGraph::new(exact()).unwrap();
    // A filter announces no jobs at all.
    let unannounced = FlowGraph::new(exact().filter(|_| true)).unwrap();
    assert_eq!(built, unannounced);
    for (i, name) in names.iter().enumerate() {
        let want: Vec<usize> = (i.saturating_sub(BATCH + 1)..i / 2).collect();
        assert_eq!(built.dependencies(i).collect::<Vec<_>>(), want, "job {i}");
        assert_eq!(built.position(name.as_str()), Some(i));
    }
    // Job 2 * BATCH + 3 takes the name of job 3: two batches apart.
    let mut twice = names.clone();
    twice[2 * BATCH + 3] = names[3].clone();
    let want = format!(
        "jobs[{}].name: duplicate job name \"job-3\", first at jobs[3]",
        2 * BATCH + 3
    );
    for announced in [true, false] {
        let jobs = twice.iter().zip(&lists).map(|(n, l)| (n, l, rule));
        let err = if announced {
            FlowGraph::new(jobs)
        } else {
            FlowGraph::new(jobs.filter(|_| true))
        };
        assert_eq!(err.unwrap_err().to_string(), want, "announced: {announced}");
    }
}
