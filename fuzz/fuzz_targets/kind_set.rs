//! Kind names and kind sets, from JSON and from text, and extension task kinds from JSON.
//!
//! The input's first byte picks the reader. A value that parses must write a form that
//! parses back equal (JSON and text alike), and a kind set must hold exactly the names it
//! lists: each of its names, in order, with nothing else.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::task::spec::{ExtensionKind, KindName};
use taskmodel::task::{KindSet, TaskKind};

fn check_set(set: &KindSet) {
    let json = serde_json::to_string(set).expect("a kind set serializes");
    let back: KindSet = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
    assert_eq!(&back, set);
    let text = set.to_string();
    let again: KindSet = text
        .parse()
        .unwrap_or_else(|err| panic!("{text:?} does not parse back: {err}"));
    assert_eq!(&again, set);
    let names: Vec<KindName> = set.iter().collect();
    assert_eq!(names.len(), set.len());
    assert!(names.windows(2).all(|w| w[0] < w[1]), "names out of order");
    for name in &names {
        assert!(set.contains_kind(name), "{name} listed but not contained");
        assert!(set.contains(&KindSet::one(name.clone())));
    }
    assert_eq!(KindSet::from_names(names).expect("a set's names fit"), *set);
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match selector % 4 {
        0 => {
            if let Ok(set) = serde_json::from_str::<KindSet>(text) {
                check_set(&set);
            }
        }
        1 => {
            if let Ok(set) = text.parse::<KindSet>() {
                check_set(&set);
            }
        }
        2 => {
            if let Ok(name) = text.parse::<KindName>() {
                assert_eq!(name.to_string(), text);
                let json = serde_json::to_string(&name).expect("serializes");
                assert_eq!(serde_json::from_str::<KindName>(&json).expect("parses back"), name);
            }
            if let Ok(kind) = serde_json::from_str::<ExtensionKind>(text) {
                assert_eq!(kind.to_string().parse::<ExtensionKind>().expect("text"), kind);
            }
        }
        _ => {
            if let Ok(kind) = serde_json::from_str::<TaskKind>(text) {
                let json = serde_json::to_string(&kind).expect("a kind serializes");
                let back: TaskKind = serde_json::from_str(&json)
                    .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
                assert_eq!(back, kind);
                assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
                assert_eq!(kind.name().is_some(), kind.is_routable());
            }
        }
    }
});
