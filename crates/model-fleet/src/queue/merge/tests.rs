//! Unit tests for `merge`.

use super::Merge;

#[test]
fn sources_merge_in_order() {
    let check = |sources: Vec<Vec<u32>>, want: &[u32]| {
        let merged: Vec<u32> = Merge::new(sources.into_iter().map(Vec::into_iter)).collect();
        assert_eq!(merged, want);
    };
    check(vec![], &[]);
    check(vec![vec![], vec![]], &[]);
    check(vec![vec![1, 4, 9]], &[1, 4, 9]);
    check(
        vec![vec![1, 4, 9], vec![2, 3, 10], vec![]],
        &[1, 2, 3, 4, 9, 10],
    );
    check(vec![vec![5], vec![1, 2, 3, 4]], &[1, 2, 3, 4, 5]);
}
