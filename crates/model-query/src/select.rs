//! Page selection with a bounded heap: the `limit + 1` first keys after a cursor, in
//! O(n log limit) time and O(limit) memory, without sorting the input.

use std::{cmp::Ordering, collections::BinaryHeap};

use chrono::{DateTime, Utc};
use model_ids::TaskId;

use crate::order::{SortKey, SortOrder};

/// Something with a sort key: what page selection needs from an item.
pub(crate) trait Keyed {
    /// The key parts `(created_at, id)`.
    fn key_parts(&self) -> (DateTime<Utc>, &TaskId);
}

/// A heap entry: an item ordered by its key in the listing's order, so the heap's top
/// is the entry that comes *last* on the page (the first to drop out).
struct Entry<T> {
    item: T,
    order: SortOrder,
}

impl<T: Keyed> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T: Keyed> Eq for Entry<T> {}

impl<T: Keyed> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Keyed> Ord for Entry<T> {
    /// Every entry of one heap has the same `order`.
    fn cmp(&self, other: &Self) -> Ordering {
        self.order
            .compare_parts(self.item.key_parts(), other.item.key_parts())
    }
}

/// Selects the page: the first `limit` items in `order` whose key comes strictly after
/// `after` (all of them if `after` is `None`) and that `keep` accepts, in page order,
/// and whether more such items follow.
///
/// Keys are assumed unique. Cheap key checks run before `keep`: an item that comes
/// before the cursor, or after everything the full heap already holds, is skipped
/// without calling `keep`.
pub(crate) fn select_page<T, I, F>(
    items: I,
    order: SortOrder,
    after: Option<&SortKey>,
    limit: usize,
    mut keep: F,
) -> (Vec<T>, bool)
where
    T: Keyed,
    I: IntoIterator<Item = T>,
    F: FnMut(&T) -> bool,
{
    let capacity = limit.saturating_add(1);
    let mut heap: BinaryHeap<Entry<T>> = BinaryHeap::with_capacity(capacity);
    for item in items {
        let key = item.key_parts();
        if let Some(after) = after
            && order.compare_parts(key, (after.created_at, &after.id)) != Ordering::Greater
        {
            continue;
        }
        if heap.len() == capacity {
            let Some(mut top) = heap.peek_mut() else {
                continue;
            };
            if order.compare_parts(key, top.item.key_parts()) != Ordering::Less || !keep(&item) {
                continue;
            }
            // Replacing the top and letting `PeekMut` sift it down is one O(log limit) step.
            top.item = item;
            drop(top);
        } else if keep(&item) {
            heap.push(Entry { item, order });
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
