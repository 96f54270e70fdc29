use super::*;
use crate::diagnose::parse_json;

/// The runners read from `text` with at most `max`, or the problem's path and message.
fn read(text: &str, max: usize) -> Result<usize, (String, String)> {
    let value = parse_json(text).unwrap();
    Inventory::read(value, max)
        .map(|inventory| inventory.0.len())
        .map_err(|problem| (problem.path, problem.message))
}

fn runners(ids: &[&str]) -> String {
    let runners: Vec<String> = ids
        .iter()
        .map(|id| format!(r#"{{"id": "{id}", "kinds": ["wasm"]}}"#))
        .collect();
    format!("[{}]", runners.join(", "))
}

#[test]
fn each_runner_is_checked_and_the_first_problem_names_its_index() {
    let check = |text: &str, want: Result<usize, (&str, &str)>| {
        let want = want.map_err(|(path, message)| (path.to_owned(), message.to_owned()));
        assert_eq!(read(text, 10), want, "{text}");
    };
    check("[]", Ok(0));
    check(&runners(&["a", "b"]), Ok(2));
    check(
        &runners(&["a", "b c", "d e"]),
        Err((
            "[1].id",
            "invalid runner id \"b c\": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ -)",
        )),
    );
    check(
        r#"[{"id": "a", "kinds": ["gpu"]}]"#,
        Err((
            "[0].kinds[0]",
            r#"unknown task kind "gpu", expected subprocess, container, wasm or an extension's apiVersion/kind"#,
        )),
    );
    check(
        r#"[{"id": "a", "kinds": ["wasm", {"apiVersion": "v1", "kind": "Pod"}]}]"#,
        Err((
            "[0].kinds[1]",
            r#"invalid apiVersion "v1": expected group/version: a lowercase DNS subdomain holding a dot, then a lowercase DNS label starting with a letter (images.example.com/v1)"#,
        )),
    );
    check("{}", Err(("", "invalid type: map, expected a sequence")));
    check(
        "[1]",
        Err((
            "[0]",
            "invalid type: integer `1`, expected struct RunnerDoc",
        )),
    );
}

#[test]
fn reading_stops_one_runner_past_the_bound() {
    let three = runners(&["a", "b", "c"]);
    assert_eq!(read(&three, 3), Ok(3));
    let over = Err((String::new(), "too many runners: the limit is 2".to_owned()));
    assert_eq!(read(&three, 2), over);
    // The bound is checked before the runner past it is read.
    assert_eq!(read(&runners(&["a", "b", "c d"]), 2), over);
}

#[test]
fn the_router_gets_every_runner_or_refuses_a_duplicate() {
    let router = RunnerRouter::new();
    let text = runners(&["a", "b", "c"]);
    let value = parse_json(&text).unwrap();
    Inventory::read(value, 10).unwrap().load(&router).unwrap();
    assert_eq!(router.snapshot().len(), 3);

    let text = runners(&["a", "b", "a"]);
    let value = parse_json(&text).unwrap();
    let duplicate = Inventory::read(value, 10)
        .unwrap()
        .load(&router)
        .unwrap_err();
    assert!(duplicate.to_string().contains(r#""a""#), "{duplicate}");
    assert_eq!(router.snapshot().len(), 3);
}
