//! The cleanup order of the deleted resources: by effective priority (higher first), then
//! height (what is owned before its owner), then position; two counting sorts, so linear.

use crate::graph::Forest;
use crate::limits::MAX_CLEANUP_PRIORITY;

/// The positions of the `deleted` resources in cleanup order.
///
/// A resource's effective priority is the lowest of its own and those of the deleted
/// resources it owns (directly or not), so an owner never comes before what it owns; its
/// height is 0 when it owns nothing deleted and one more than the highest of those
/// otherwise, which breaks ties between an owner and what it owns at one priority.
pub(super) fn cleanup_order(
    forest: &Forest,
    deleted: &[bool],
    priority: impl Fn(usize) -> u8,
) -> Vec<usize> {
    let is_deleted = |i: usize| deleted.get(i).copied().unwrap_or(false);
    let mut effective = vec![0_u8; deleted.len()];
    let mut height = vec![0_usize; deleted.len()];
    // Dependents come after their owners in the forest's order, so backwards they come first.
    for &i in forest.order().iter().rev() {
        if !is_deleted(i) {
            continue;
        }
        let mut own = priority(i).min(MAX_CLEANUP_PRIORITY);
        let mut tall = 0;
        for edge in forest.dependents_of(i) {
            if is_deleted(edge.dependent) {
                own = own.min(effective.get(edge.dependent).copied().unwrap_or(0));
                tall = tall.max(height.get(edge.dependent).map_or(0, |h| h + 1));
            }
        }
        if let (Some(e), Some(h)) = (effective.get_mut(i), height.get_mut(i)) {
            *e = own;
            *h = tall;
        }
    }
    let by_position: Vec<usize> = (0..deleted.len()).filter(|&i| is_deleted(i)).collect();
    let tallest = by_position
        .iter()
        .filter_map(|&i| height.get(i).copied())
        .max()
        .unwrap_or(0);
    let by_height = counting_sort(&by_position, tallest + 1, |i| {
        height.get(i).copied().unwrap_or(0)
    });
    let top = usize::from(MAX_CLEANUP_PRIORITY);
    counting_sort(&by_height, top + 1, |i| {
        top - usize::from(effective.get(i).copied().unwrap_or(0))
    })
}

/// `items` stably sorted by `key`, whose values are below `buckets`.
fn counting_sort(items: &[usize], buckets: usize, key: impl Fn(usize) -> usize) -> Vec<usize> {
    let mut start = vec![0_usize; buckets + 1];
    for &item in items {
        if let Some(count) = start.get_mut(key(item) + 1) {
            *count += 1;
        }
    }
    for bucket in 1..start.len() {
        let before = start.get(bucket - 1).copied().unwrap_or(0);
        if let Some(count) = start.get_mut(bucket) {
            *count += before;
        }
    }
    let mut sorted = vec![0_usize; items.len()];
    for &item in items {
        if let Some(slot) = start.get_mut(key(item))
            && let Some(place) = sorted.get_mut(*slot)
        {
            *place = item;
            *slot += 1;
        }
    }
    sorted
}
