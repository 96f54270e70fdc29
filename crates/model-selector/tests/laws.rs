//! Property tests: matching agrees with a plain reference implementation, and the string
//! syntax and serde forms round-trip.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use std::collections::BTreeMap;

use model_selector::{LabelSelector, Labels};
use proptest::prelude::*;

mod common;
use common::{KEYS, case, key, label_set, value};

proptest! {
    #[test]
    fn matches_agrees_with_reference(case in case(), sets in prop::collection::vec(label_set(), 1..6)) {
        let sel = &case.selector;
        for set in sets {
            let labels = Labels::try_from(set.clone()).unwrap();
            let want = case.holds(&set);
            prop_assert_eq!(sel.matches(&labels), want, "{} on {}", sel, labels);
            prop_assert_eq!(sel.explain(&labels).is_empty(), want);
        }
    }

    #[test]
    fn string_syntax_round_trips(case in case(), sets in prop::collection::vec(label_set(), 1..6)) {
        let sel = &case.selector;
        let shown = sel.to_string();
        let parsed: LabelSelector = shown.parse().unwrap();
        prop_assert_eq!(&parsed, sel);
        prop_assert_eq!(parsed.to_string(), shown);
        for set in sets {
            let labels = Labels::try_from(set).unwrap();
            prop_assert_eq!(parsed.matches(&labels), sel.matches(&labels));
        }
    }

    #[test]
    fn serde_round_trips(case in case(), set in label_set()) {
        let sel = &case.selector;
        let json = serde_json::to_string(sel).unwrap();
        let back: LabelSelector = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, sel);
        let labels = Labels::try_from(set.clone()).unwrap();
        let json = serde_json::to_string(&labels).unwrap();
        prop_assert_eq!(&json, &serde_json::to_string(&set).unwrap());
        let back: Labels = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, labels);
    }

    #[test]
    fn labels_behave_like_a_btreemap(ops in prop::collection::vec((key(), prop::option::of(value())), 0..40)) {
        let mut labels = Labels::new();
        let mut model = BTreeMap::new();
        for (k, v) in ops {
            match v {
                Some(v) => prop_assert_eq!(labels.insert(&k, &v).unwrap(), model.insert(k, v)),
                None => prop_assert_eq!(labels.remove(&k), model.remove(&k)),
            }
            let pairs: Vec<(&str, &str)> = labels.iter().collect();
            let want: Vec<(&str, &str)> = model.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            prop_assert_eq!(pairs, want);
        }
        for k in KEYS {
            prop_assert_eq!(labels.get(k), model.get(k).map(String::as_str));
        }
    }
}
