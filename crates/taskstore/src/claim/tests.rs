//! The kinds a claim binds and the selector answers it remembers, at their bounds.

use taskmodel::fleet::{KindSet, MAX_KIND_SET_EXTENSIONS};
use taskmodel::selector::Labels;
use taskmodel::task::KindName;

use super::{SELECTOR_CACHE_ENTRIES, SIZES, Selectors, kinds};
use crate::error::StoreError;
use crate::tx::Value;

fn extensions(n: usize) -> KindSet {
    KindSet::from_names(
        (0..n).map(|i| KindName::Extension(format!("k.io/v1/K{i}").parse().unwrap())),
    )
    .unwrap()
}

#[test]
fn kinds_are_padded_with_the_last_to_a_power_of_two() {
    let check = |set: KindSet, size: usize| {
        let (values, _) = kinds(&set).unwrap();
        assert_eq!(values.len(), size, "{set}");
        let names: Vec<Value> = set.iter().map(|name| name.as_str().into()).collect();
        assert_eq!(values.get(..names.len()), Some(names.as_slice()), "{set}");
        assert!(
            values
                .iter()
                .skip(names.len())
                .all(|value| Some(value) == names.last())
        );
    };
    check(KindSet::SUBPROCESS, 1);
    check(KindSet::ALL, 4);
    check(extensions(1), 1);
    check(extensions(2), 2);
    check(extensions(5), 8);
    check(extensions(MAX_KIND_SET_EXTENSIONS), MAX_KIND_SET_EXTENSIONS);
    check(
        KindSet::ALL
            .union(&extensions(MAX_KIND_SET_EXTENSIONS))
            .unwrap(),
        1 << (SIZES - 1),
    );
    assert!(kinds(&KindSet::EMPTY).is_none());
}

#[test]
fn selectors_match_as_the_model_does_and_remember_within_bounds() {
    let labels = Labels::from_pairs([("zone", "eu"), ("gpu", "a100")]).unwrap();
    let mut selectors = Selectors::new(&labels);
    for (text, fit) in [
        ("", true),
        ("zone=eu", true),
        ("zone=us", false),
        ("gpu in (a100,h100),zone=eu", true),
        ("!gpu", false),
        ("zone=eu", true),
    ] {
        assert_eq!(selectors.fit(text).unwrap(), fit, "{text}");
    }
    // The empty selector is not stored; the repeat is stored once.
    assert_eq!(selectors.seen.len(), 4);
    assert!(matches!(
        selectors.fit("zone in (eu"),
        Err(StoreError::Corrupt { .. })
    ));
    for n in 0..SELECTOR_CACHE_ENTRIES + 10 {
        assert!(!selectors.fit(&format!("n={n}")).unwrap());
    }
    assert_eq!(selectors.seen.len(), SELECTOR_CACHE_ENTRIES);
    assert!(selectors.fit("gpu").unwrap(), "answered past the bound too");
}
