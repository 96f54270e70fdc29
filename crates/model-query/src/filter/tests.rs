use super::ValueSet;

#[test]
fn values_come_out_sorted_without_repeats() {
    let mut set = ValueSet::new();
    for value in [3, 1, 3, 2, 1] {
        set.insert(value);
    }
    assert_eq!(set.into_checked(5, |max| max), Ok(vec![1, 2, 3]));
}

#[test]
fn the_bound_counts_repeats() {
    let mut set = ValueSet::new();
    for value in [7, 7, 7] {
        set.insert(value);
    }
    // Three values given, one kept: the bound is on what was given.
    assert_eq!(set.clone().into_checked(3, |max| max), Ok(vec![7]));
    assert_eq!(set.into_checked(2, |max| max), Err(2));
}

#[test]
fn a_built_set_counts_each_value_once() {
    let mut set = ValueSet::of(&[1, 2]);
    set.insert(2);
    assert_eq!(set.clone().into_checked(3, |max| max), Ok(vec![1, 2]));
    assert_eq!(set.into_checked(2, |max| max), Err(2));
}
