//! `LabelSelector::matches` never allocates: counted with a counting global allocator.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use model_selector::{LabelSelector, Labels};

#[test]
fn matches_does_not_allocate() {
    let labels = Labels::from_pairs([
        ("zone", "eu"),
        ("gpu", "h100"),
        ("cores", "16"),
        ("kubernetes.io/hostname", "node-with-a-long-name"),
        ("kubernetes.io/arch", "amd64"),
    ])
    .unwrap();
    let values: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
    let selectors: Vec<LabelSelector> = [
        String::new(),
        "zone=eu".to_owned(),
        "zone=us".to_owned(),
        "gpu in (a100,h100),!draining,zone notin (us),cores>8,cores<100,kubernetes.io/arch"
            .to_owned(),
        "kubernetes.io/hostname in (node-with-a-long-name,other-node-with-long-name)".to_owned(),
        format!("gpu in ({},h100)", values.join(",")),
        "cores>1".to_owned(),
        "missing notin (a),missing!=b".to_owned(),
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let mut matched = 0;
    let info = allocation_counter::measure(|| {
        for s in &selectors {
            matched += usize::from(s.matches(&labels));
        }
    });
    assert_eq!(info.count_total, 0, "matches allocated");
    assert_eq!(matched, 7, "the counted code really ran");
    // The counter itself works: building a selector does allocate.
    let info = allocation_counter::measure(|| {
        let s: LabelSelector = "zone=eu".parse().unwrap();
        assert!(!s.is_empty());
    });
    assert!(info.count_total > 0);
}
