//! Page selection with a bounded heap: the `limit + 1` first items after a cursor, in
//! O(n log limit) time and O(limit) memory, without sorting the input. Task pages and run
//! pages both use it, each with its own order.

use std::{cmp::Ordering, collections::BinaryHeap};

/// A heap entry: an item ordered by the listing's order `cmp`, so the heap's top is the
/// entry that comes *last* on the page (the first to drop out).
struct Entry<'c, T, C> {
    item: T,
    cmp: &'c C,
}

impl<T, C: Fn(&T, &T) -> Ordering> PartialEq for Entry<'_, T, C> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T, C: Fn(&T, &T) -> Ordering> Eq for Entry<'_, T, C> {}

impl<T, C: Fn(&T, &T) -> Ordering> PartialOrd for Entry<'_, T, C> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T, C: Fn(&T, &T) -> Ordering> Ord for Entry<'_, T, C> {
    /// Every entry of one heap has the same `cmp`.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.cmp)(&self.item, &other.item)
    }
}

/// Selects the page: the first `limit` items in the order `cmp` (`Less`: listed first) that
/// come after the cursor (`after_cursor`) and that `keep` accepts, in page order, and whether
/// more such items follow.
///
/// `cmp` is a total order on the items (their keys are unique). Cheap key checks run
/// before `keep`: an item before the cursor, or after everything the full heap already
/// holds, is skipped without calling `keep`.
pub(crate) fn select_page<T, I, C, A, F>(
    items: I,
    cmp: &C,
    after_cursor: A,
    limit: usize,
    mut keep: F,
) -> (Vec<T>, bool)
where
    I: IntoIterator<Item = T>,
    C: Fn(&T, &T) -> Ordering,
    A: Fn(&T) -> bool,
    F: FnMut(&T) -> bool,
{
    let capacity = limit.saturating_add(1);
    let mut heap: BinaryHeap<Entry<'_, T, C>> = BinaryHeap::with_capacity(capacity);
    for item in items {
        if !after_cursor(&item) {
            continue;
        }
        if heap.len() == capacity {
            let Some(mut top) = heap.peek_mut() else {
                continue;
            };
            if cmp(&item, &top.item) != Ordering::Less || !keep(&item) {
                continue;
            }
            // Replacing the top and letting `PeekMut` sift it down is one O(log limit) step.
            top.item = item;
            drop(top);
        } else if keep(&item) {
            heap.push(Entry { item, cmp });
        }
    }
    let mut page: Vec<T> = heap
        .into_sorted_vec()
        .into_iter()
        .map(|entry| entry.item)
        .collect();
    let more = page.len() > limit;
    page.truncate(limit);
    (page, more)
}

#[cfg(test)]
mod tests;
