//! Unit tests for `names`: a list gives back the names it was given, in order, whatever their lengths, and an entry that is no job name is kept empty.

use proptest::prelude::*;

use super::*;

fn list(names: &[&str]) -> JobNames {
    names.iter().map(|n| JobName::new(n).unwrap()).collect()
}

#[test]
fn names_come_back_in_order_at_every_length() {
    let longest = "x".repeat(JOB_NAME_MAX_LEN);
    let table: &[&[&str]] = &[
        &[],
        &["a"],
        &["extract", "transform", "load"],
        &[&longest, "a", &longest],
        &["a", "a"],
    ];
    for names in table {
        let list = list(names);
        assert_eq!(list.len(), names.len(), "{names:?}");
        assert_eq!(list.is_empty(), names.is_empty(), "{names:?}");
        assert_eq!(list.iter().len(), names.len(), "{names:?}");
        assert_eq!(list.iter().collect::<Vec<_>>(), *names);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(list.get(i), Some(*name), "{names:?} at {i}");
        }
        assert_eq!(list.get(names.len()), None);
        assert_eq!(format!("{list:?}"), format!("{names:?}"));
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            serde_json::to_string(names).unwrap()
        );
    }
}

#[test]
fn text_that_is_no_job_name_is_kept_as_an_empty_entry() {
    let too_long = "x".repeat(JOB_NAME_MAX_LEN + 1);
    let table: &[(&str, bool)] = &[
        ("extract", true),
        (&too_long[1..], true),
        (&too_long, false),
        ("", false),
        ("a b", false),
        ("..", false),
        ("é", false),
    ];
    for &(text, valid) in table {
        let mut list = JobNames::new();
        assert_eq!(list.push_text(text), valid, "{text:?}");
        list.push_text("after");
        let want = if valid { text } else { "" };
        assert_eq!(list.iter().collect::<Vec<_>>(), [want, "after"], "{text:?}");
    }
}

#[test]
fn lists_are_equal_when_their_names_are() {
    assert_eq!(list(&["a", "bc"]), list(&["a", "bc"]));
    assert_ne!(list(&["a", "bc"]), list(&["ab", "c"]));
    assert_ne!(list(&["a"]), list(&["a", "a"]));
    assert_eq!(JobNames::with_capacity(64), JobNames::default());
    let names = [JobName::new("a").unwrap(), JobName::new("b").unwrap()];
    let mut extended = JobNames::from_iter(&names[..1]);
    extended.extend([names[1].clone()]);
    assert_eq!(extended, JobNames::from_iter(names));
}

proptest! {
    #[test]
    fn any_names_come_back_as_given(names in prop::collection::vec("[a-z0-9_-][a-z0-9._-]{0,63}", 0..40)) {
        let list: JobNames = names.iter().map(|n| JobName::new(n).unwrap()).collect();
        prop_assert_eq!(list.len(), names.len());
        prop_assert!(list.iter().eq(names.iter().map(String::as_str)));
        prop_assert_eq!(serde_json::to_string(&list).unwrap(), serde_json::to_string(&names).unwrap());
    }
}
