//! Unit tests for `route`: kinds, rendezvous hashing, pick, candidates and explain.

use model_selector::FailureReason;

use super::*;
use crate::spec::{ExtensionSpec, KindName, SubprocessMode, TaskEnv, TaskKind};

fn id(s: &str) -> RunnerId {
    RunnerId::new(s).unwrap()
}

fn task(s: &str) -> TaskId {
    TaskId::new(s).unwrap()
}

fn kind(name: &str) -> TaskKind {
    match name {
        "subprocess" => TaskKind::subprocess(
            SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
            TaskEnv::default(),
            None,
        )
        .unwrap(),
        "container" => {
            TaskKind::container("alpine:3".into(), vec![], vec![], TaskEnv::default()).unwrap()
        }
        "wasm" => TaskKind::wasm("m.wasm".into(), vec![], TaskEnv::default()).unwrap(),
        extension if extension.contains('/') => {
            TaskKind::extension(extension.parse().unwrap(), ExtensionSpec::empty())
        }
        _ => TaskKind::Embedded,
    }
}

fn spec(kind_name: &str, selector: &str) -> TaskSpec {
    TaskSpec::builder("slot", kind(kind_name), 1_000)
        .runner_selector(selector.parse().unwrap())
        .build()
        .unwrap()
}

fn labels(s: &str) -> Labels {
    Labels::from_pairs(s.split(',').filter_map(|kv| kv.split_once('='))).unwrap()
}

/// The fleet of examples/runners.json.
fn router() -> RunnerRouter {
    let r = RunnerRouter::new();
    r.replace_all(
        [
            (
                id("eu-ssd-1"),
                labels("zone=eu,ssd=true,tier=prod"),
                "subprocess,container",
            ),
            (
                id("eu-spot-1"),
                labels("zone=eu,ssd=true,tier=spot"),
                "subprocess,container",
            ),
            (id("eu-hdd-1"), labels("zone=eu,tier=prod"), "subprocess"),
            (
                id("us-ssd-1"),
                labels("zone=us,ssd=true,tier=prod"),
                "subprocess,container",
            ),
            (
                id("gpu-h100-1"),
                labels("zone=eu,gpu=h100,tier=prod"),
                "container",
            ),
            (id("edge-wasm-1"), labels("zone=eu,arch=wasm32"), "wasm"),
        ]
        .map(|(i, l, k)| (i, l, k.parse().unwrap())),
    )
    .unwrap();
    r
}

#[test]
fn kind_sets_parse_and_print() {
    let check = |input: &str, want: Result<&str, &str>| {
        let got = input
            .parse::<KindSet>()
            .map(|k| k.to_string())
            .map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(String::as_str), want, "{input:?}");
    };
    check("", Ok(""));
    check("wasm", Ok("wasm"));
    check("container, subprocess", Ok("subprocess,container"));
    check("wasm,wasm", Ok("wasm"));
    check("subprocess,container,wasm", Ok("subprocess,container,wasm"));
    check(
        "embedded",
        Err(
            r#"unknown task kind "embedded", expected subprocess, container, wasm or an extension's apiVersion/kind"#,
        ),
    );
    check(
        "Wasm",
        Err(
            r#"unknown task kind "Wasm", expected subprocess, container, wasm or an extension's apiVersion/kind"#,
        ),
    );
    assert_eq!(KindSet::of(&kind("embedded")), None);
    assert_eq!(KindSet::of(&kind("wasm")), Some(KindSet::WASM));
    let two = KindSet::SUBPROCESS.union(&KindSet::WASM).unwrap();
    assert!(KindSet::ALL.contains(&two));
    assert!(!KindSet::CONTAINER.contains(&KindSet::ALL));
    assert!(KindSet::EMPTY.is_empty());
}

#[test]
fn kind_sets_serde() {
    let set: KindSet = serde_json::from_str(r#"["wasm","subprocess"]"#).unwrap();
    assert_eq!(set, KindSet::WASM.union(&KindSet::SUBPROCESS).unwrap());
    assert_eq!(
        serde_json::to_string(&set).unwrap(),
        r#"["subprocess","wasm"]"#
    );
    let err = serde_json::from_str::<KindSet>(r#"["gpu"]"#).unwrap_err();
    assert!(
        err.to_string().starts_with(r#"unknown task kind "gpu""#),
        "{err}"
    );
    assert!(serde_json::from_str::<KindSet>(r#""wasm""#).is_err());
}

#[test]
fn kind_sets_with_extensions() {
    let set: KindSet = "b.io/v1/Y, wasm, a.io/v2/X, a.io/v1/Z, wasm, b.io/v1/Y"
        .parse()
        .unwrap();
    // Built-in kinds first, then extensions by apiVersion and kind; repeats dropped.
    assert_eq!(set.to_string(), "wasm,a.io/v1/Z,a.io/v2/X,b.io/v1/Y");
    assert_eq!(set.len(), 4);
    let json = serde_json::to_string(&set).unwrap();
    assert_eq!(
        json,
        r#"["wasm",{"apiVersion":"a.io/v1","kind":"Z"},{"apiVersion":"a.io/v2","kind":"X"},{"apiVersion":"b.io/v1","kind":"Y"}]"#
    );
    assert_eq!(serde_json::from_str::<KindSet>(&json).unwrap(), set);
    for (name, want) in [
        ("wasm", true),
        ("subprocess", false),
        ("a.io/v1/Z", true),
        ("a.io/v1/X", false),
        ("a.io/v2/X", true),
        ("b.io/v1/Y", true),
        ("b.io/v1/y", false),
        ("c.io/v1/Y", false),
    ] {
        let name: KindName = name.parse().unwrap();
        assert_eq!(set.contains_kind(&name), want, "{name}");
        assert_eq!(set.contains(&KindSet::one(name.clone())), want, "{name}");
    }
    let sub: KindSet = "a.io/v2/X,wasm".parse().unwrap();
    assert!(set.contains(&sub));
    assert!(!sub.contains(&set));
    let both = sub.union(&KindSet::SUBPROCESS).unwrap();
    assert_eq!(both.to_string(), "subprocess,wasm,a.io/v2/X");
    assert_eq!(
        both.union(&set).unwrap().to_string(),
        "subprocess,wasm,a.io/v1/Z,a.io/v2/X,b.io/v1/Y"
    );
    // A malformed extension name is the extension's error.
    let err = "wasm,example/v1/X".parse::<KindSet>().unwrap_err();
    assert_eq!(err.path(), Some("apiVersion"));
}

#[test]
fn kind_set_extension_bound_is_exact() {
    let names =
        |n: usize| (0..n).map(|i| KindName::Extension(format!("k.io/v1/K{i}").parse().unwrap()));
    let at = KindSet::from_names(names(MAX_KIND_SET_EXTENSIONS).chain([KindName::Wasm])).unwrap();
    assert_eq!(at.len(), MAX_KIND_SET_EXTENSIONS + 1);
    // Repeats do not count.
    assert!(KindSet::from_names(names(MAX_KIND_SET_EXTENSIONS).chain(names(10))).is_ok());
    let err = KindSet::from_names(names(MAX_KIND_SET_EXTENSIONS + 1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid kinds: 257 entries, at most 256 allowed"
    );
    let json = serde_json::to_string(&KindSet::from_names(names(MAX_KIND_SET_EXTENSIONS)).unwrap())
        .unwrap()
        .replace(']', r#",{"apiVersion":"k.io/v1","kind":"Extra"}]"#);
    let err = serde_json::from_str::<KindSet>(&json).unwrap_err();
    assert!(
        err.to_string().starts_with("invalid kinds: 257 entries"),
        "{err}"
    );
    let one_more = at.union(&KindSet::one(KindName::Extension(
        "k.io/v1/Extra".parse().unwrap(),
    )));
    assert!(one_more.is_err());
}

#[test]
fn extension_tasks_go_to_runners_that_declare_the_kind() {
    let r = RunnerRouter::new();
    r.replace_all(
        [
            (
                "resize-eu",
                "zone=eu",
                "images.example.com/v1/Resize,subprocess",
            ),
            ("resize-us", "zone=us", "images.example.com/v1/Resize"),
            ("resize-v2", "zone=eu", "images.example.com/v2/Resize"),
            ("plain-eu", "zone=eu", "subprocess,container,wasm"),
        ]
        .map(|(i, l, k)| (id(i), labels(l), k.parse().unwrap())),
    )
    .unwrap();
    let resize = "images.example.com/v1/Resize";
    let got = r.candidates(&spec(resize, "")).unwrap();
    assert_eq!(got, [id("resize-eu"), id("resize-us")]);
    assert_eq!(
        r.pick(&spec(resize, "zone=eu"), &task("t")).unwrap().runner,
        id("resize-eu")
    );
    let err = r
        .pick(&spec("images.example.com/v3/Resize", "zone=eu"), &task("t"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"no runner for a images.example.com/v3/Resize task with runnerSelector "zone=eu": 4 registered, 0 run images.example.com/v3/Resize, 3 match the selector, none both"#
    );
    let ex = r.explain(&spec(resize, "zone=eu"), &task("t")).unwrap();
    assert_eq!(ex.kind.to_string(), resize);
    let verdicts: Vec<(String, String)> = ex
        .runners
        .iter()
        .map(|v| (v.runner.to_string(), ex.reason(v).to_string()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("plain-eu", "kind not supported"),
            ("resize-eu", "picked"),
            (
                "resize-us",
                "matchLabels[\"zone\"] (zone=eu): value \"us\" is not listed"
            ),
            ("resize-v2", "kind not supported"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
}

#[test]
fn hash_functions_are_the_documented_ones() {
    // Published constants: FNV-1a 64 of "" is the offset basis, of "a" is 0xaf63dc4c8601ec8c;
    // the first splitmix64 output from state 0 is 0xe220a8397b1dcdaf.
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    let (t, r) = (task("t"), id("r"));
    assert_eq!(
        rendezvous_weight(&t, &r),
        splitmix64(fnv1a64(b"t") ^ splitmix64(fnv1a64(b"r")))
    );
}

#[test]
fn pick_keeps_the_kind_and_the_selector() {
    let r = router();
    let check = |kind: &str, selector: &str, want: &[&str]| {
        let got = r.candidates(&spec(kind, selector)).unwrap();
        let got: Vec<&str> = got.iter().map(AsRef::as_ref).collect();
        assert_eq!(got, want, "{kind} {selector:?}");
        for t in ["a", "b", "c", "d"] {
            let pick = r.pick(&spec(kind, selector), &task(t));
            match want {
                [] => assert!(matches!(pick, Err(TaskError::NoRunner { .. }))),
                _ => {
                    let pick = pick.unwrap();
                    assert!(want.contains(&pick.runner.as_ref()));
                    assert_eq!(pick.eligible, want.len());
                }
            }
        }
    };
    check(
        "container",
        "",
        &["eu-spot-1", "eu-ssd-1", "gpu-h100-1", "us-ssd-1"],
    );
    check("container", "zone=eu,ssd", &["eu-spot-1", "eu-ssd-1"]);
    check(
        "subprocess",
        "tier notin (spot)",
        &["eu-hdd-1", "eu-ssd-1", "us-ssd-1"],
    );
    check("wasm", "", &["edge-wasm-1"]);
    check("wasm", "zone=us", &[]);
    check("container", "gpu=h100", &["gpu-h100-1"]);
    check("subprocess", "gpu=h100", &[]);
}

#[test]
fn embedded_is_not_routable() {
    let r = router();
    let s = spec("embedded", "");
    let want = "task kind embedded is not routable: it runs in process";
    for err in [
        r.pick(&s, &task("t")).unwrap_err(),
        r.candidates(&s).unwrap_err(),
        r.explain(&s, &task("t")).unwrap_err(),
    ] {
        assert!(matches!(err, TaskError::NotRoutable { kind: "embedded" }));
        assert_eq!(err.to_string(), want);
    }
}

#[test]
fn no_runner_says_which_rule_failed() {
    let err = router()
        .pick(&spec("wasm", "zone=us"), &task("t"))
        .unwrap_err();
    assert!(matches!(
        err,
        TaskError::NoRunner {
            kind: KindName::Wasm,
            runners: 6,
            supporting: 1,
            matching: 1,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        r#"no runner for a wasm task with runnerSelector "zone=us": 6 registered, 1 run wasm, 1 match the selector, none both"#
    );
    let err = RunnerRouter::new()
        .pick(&spec("wasm", ""), &task("t"))
        .unwrap_err();
    assert!(matches!(
        err,
        TaskError::NoRunner {
            runners: 0,
            supporting: 0,
            matching: 0,
            ..
        }
    ));
}

#[test]
fn explain_gives_every_runner_a_reason() {
    let r = router();
    let s = spec("container", "zone=eu,ssd");
    let t = task("job-42");
    let ex = r.explain(&s, &t).unwrap();
    let picked = r.pick(&s, &t).unwrap().runner;
    assert_eq!(ex.picked.as_ref(), Some(&picked));
    assert_eq!(ex.kind, KindName::Container);
    let ids: Vec<&str> = ex.runners.iter().map(|v| v.runner.as_ref()).collect();
    assert_eq!(
        ids,
        [
            "edge-wasm-1",
            "eu-hdd-1",
            "eu-spot-1",
            "eu-ssd-1",
            "gpu-h100-1",
            "us-ssd-1"
        ]
    );
    let outcome = |rid: &str| {
        &ex.runners
            .iter()
            .find(|v| v.runner.as_ref() == rid)
            .unwrap()
            .outcome
    };
    // Both eligible runners: one picked, the other outranked with its own weight.
    for rid in ["eu-spot-1", "eu-ssd-1"] {
        match outcome(rid) {
            RouteOutcome::Picked => assert_eq!(rid, picked.as_ref()),
            RouteOutcome::Outranked { weight } => {
                assert_eq!(*weight, rendezvous_weight(&t, &id(rid)));
                assert!(*weight < rendezvous_weight(&t, &picked));
            }
            other => panic!("{rid}: {other:?}"),
        }
    }
    let verdict = |rid: &str| {
        ex.runners
            .iter()
            .find(|v| v.runner.as_ref() == rid)
            .unwrap()
    };
    let failures = |rid: &str| {
        ex.failures(verdict(rid))
            .map(|f| (f.requirement.key.as_str(), f.reason))
            .collect::<Vec<_>>()
    };
    // The requirements, once, in canonical order.
    let texts: Vec<(&str, &str)> = ex
        .requirements
        .iter()
        .map(|r| (r.path.as_str(), r.requirement.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("matchExpressions[0]", "ssd"),
            (r#"matchLabels["zone"]"#, "zone=eu")
        ]
    );
    // Wrong kind and a missing key.
    assert!(matches!(
        outcome("edge-wasm-1"),
        RouteOutcome::Rejected { kind_supported: false, failed } if failed.len() == 1 && failed.contains(0)
    ));
    assert_eq!(
        failures("edge-wasm-1"),
        [("ssd", FailureReason::KeyMissing)]
    );
    // Kind not supported only.
    assert!(
        matches!(outcome("eu-hdd-1"), RouteOutcome::Rejected { kind_supported: false, failed } if failed.len() == 1)
    );
    assert!(matches!(
        outcome("gpu-h100-1"),
        RouteOutcome::Rejected {
            kind_supported: true,
            ..
        }
    ));
    assert_eq!(failures("gpu-h100-1"), [("ssd", FailureReason::KeyMissing)]);
    // Right kind, wrong zone.
    assert_eq!(
        failures("us-ssd-1"),
        [("zone", FailureReason::ValueNotListed { value: "us".into() })]
    );
    assert_eq!(
        ex.reason(verdict("us-ssd-1")).to_string(),
        r#"matchLabels["zone"] (zone=eu): value "us" is not listed"#
    );
    assert_eq!(
        ex.reason(verdict("edge-wasm-1")).to_string(),
        r#"kind not supported; matchExpressions[0] (ssd): key missing"#
    );
    assert_eq!(
        outcome("edge-wasm-1").to_string(),
        "kind not supported; 1 selector requirement fail"
    );
    assert_eq!(ex.reason(verdict(&picked)).to_string(), "picked");
    assert_eq!(ex.failures(verdict(&picked)).count(), 0);
}

#[test]
fn explained_failures_are_the_selectors_own_explanation() {
    // Labels and expressions on shared keys, every operator, values that pass and fail.
    let selectors = [
        "zone=eu,ssd",
        "zone=eu,zone in (eu,us),zone notin (ap),!draining,cores>4,cores<64",
        "a=1,b in (x,y),b notin (z),c,!d,e>0,e<10,a!=2,f==x",
        "tier in (prod),tier=prod,gpu notin (a100),gpu,mem>100",
        "",
    ];
    let fleet = [
        "",
        "zone=eu",
        "zone=us,ssd=true",
        "zone=ap,draining=yes,cores=2",
        "cores=abc,tier=dev,gpu=a100,mem=50",
        "a=2,b=z,c=1,d=1,e=11,f=x",
        "a=1,b=x,c=,e=5,f=",
        "zone=eu,ssd=1,cores=8,tier=prod,gpu=h100,mem=200",
    ];
    let r = RunnerRouter::new();
    r.replace_all(
        fleet
            .iter()
            .enumerate()
            .map(|(i, l)| (id(&format!("r{i}")), labels(l), KindSet::ALL)),
    )
    .unwrap();
    for text in selectors {
        let s = spec("subprocess", text);
        let ex = r.explain(&s, &task("t")).unwrap();
        assert_eq!(ex.requirements.len(), s.runner_selector().len(), "{text}");
        for verdict in &ex.runners {
            let i: usize = verdict.runner.as_str()[1..].parse().unwrap();
            let own: Vec<String> = s
                .runner_selector()
                .explain(&labels(fleet[i]))
                .iter()
                .map(|f| format!("{f} [{}]", f.key))
                .collect();
            let shared: Vec<String> = ex
                .failures(verdict)
                .map(|f| format!("{f} [{}]", f.requirement.key))
                .collect();
            assert_eq!(shared, own, "{text:?} against {:?}", fleet[i]);
        }
    }
}

/// A fleet of `n` runners that all run everything, named r000..
fn big(n: usize) -> Vec<RunnerId> {
    (0..n).map(|i| id(&format!("r{i:03}"))).collect()
}

#[test]
fn removing_a_runner_that_was_not_picked_changes_no_pick() {
    let ids = big(20);
    let r = RunnerRouter::new();
    r.replace_all(ids.iter().map(|i| (i.clone(), Labels::new(), KindSet::ALL)))
        .unwrap();
    let s = spec("subprocess", "");
    let tasks: Vec<TaskId> = (0..500).map(|i| task(&format!("task-{i}"))).collect();
    let before: Vec<RunnerId> = tasks
        .iter()
        .map(|t| r.pick(&s, t).unwrap().runner)
        .collect();
    let gone = &ids[7];
    let mut batch = RouterBatch::new();
    batch.remove(gone.clone());
    r.apply(batch).unwrap();
    let mut moved = 0;
    for (t, old) in tasks.iter().zip(&before) {
        let new = r.pick(&s, t).unwrap().runner;
        if old == gone {
            moved += 1;
            assert_ne!(&new, gone);
        } else {
            assert_eq!(&new, old, "{t} moved although its runner stayed");
        }
    }
    assert!(moved > 0, "runner {gone} had no task to begin with");
    // Adding a runner only takes tasks to the new runner.
    let mut batch = RouterBatch::new();
    batch.register(id("zz-new"), Labels::new(), KindSet::ALL);
    r.apply(batch).unwrap();
    for t in &tasks {
        let new = r.pick(&s, t).unwrap().runner;
        let old = r.candidates(&s).unwrap();
        assert!(old.contains(&new));
        let without: RunnerId = tasks_pick_without(&r, &s, t, "zz-new");
        assert!(new.as_ref() == "zz-new" || new == without);
    }
}

/// The pick among the router's candidates other than `skip`, by the documented rule.
fn tasks_pick_without(r: &RunnerRouter, s: &TaskSpec, t: &TaskId, skip: &str) -> RunnerId {
    r.candidates(s)
        .unwrap()
        .into_iter()
        .filter(|c| c.as_ref() != skip)
        .max_by(|a, b| {
            rendezvous_weight(t, a)
                .cmp(&rendezvous_weight(t, b))
                .then(b.cmp(a))
        })
        .unwrap()
}

#[test]
fn tasks_spread_evenly() {
    let ids = big(10);
    let r = RunnerRouter::new();
    r.replace_all(ids.iter().map(|i| (i.clone(), Labels::new(), KindSet::ALL)))
        .unwrap();
    let s = spec("wasm", "");
    let mut per_runner = std::collections::BTreeMap::new();
    for i in 0..10_000 {
        let pick = r.pick(&s, &task(&format!("t{i}"))).unwrap();
        *per_runner.entry(pick.runner).or_insert(0_u32) += 1;
    }
    assert_eq!(per_runner.len(), 10);
    for (runner, n) in per_runner {
        assert!((850..=1150).contains(&n), "{runner}: {n} of 10000");
    }
}
