//! Unit tests of page selection against a sort-everything reference.

use chrono::{DateTime, Utc};
use model_ids::TaskId;
use proptest::prelude::*;

use super::select_page;
use crate::order::{SortKey, SortOrder};

#[derive(Debug, Clone, PartialEq)]
struct Item {
    at: DateTime<Utc>,
    id: TaskId,
    keep: bool,
}

fn item(secs: i64, id: &str, keep: bool) -> Item {
    Item {
        at: DateTime::from_timestamp(secs, 0).unwrap(),
        id: TaskId::new(id).unwrap(),
        keep,
    }
}

fn key(it: &Item) -> SortKey {
    SortKey::new(it.at, it.id.clone())
}

/// The reference: filter, sort everything, skip to the cursor, take `limit`.
fn reference(
    items: &[Item],
    order: SortOrder,
    after: Option<&SortKey>,
    limit: usize,
) -> (Vec<Item>, bool) {
    let mut all: Vec<Item> = items
        .iter()
        .filter(|it| it.keep)
        .filter(|it| after.is_none_or(|a| order.compare(&key(it), a).is_gt()))
        .cloned()
        .collect();
    all.sort_by(|a, b| order.compare(&key(a), &key(b)));
    let more = all.len() > limit;
    all.truncate(limit);
    (all, more)
}

fn run(
    items: &[Item],
    order: SortOrder,
    after: Option<&SortKey>,
    limit: usize,
) -> (Vec<Item>, bool) {
    select_page(
        items.iter().cloned(),
        &|a: &Item, b: &Item| order.compare(&key(a), &key(b)),
        |it: &Item| after.is_none_or(|a| order.compare(&key(it), a).is_gt()),
        limit,
        |it| it.keep,
    )
}

#[test]
fn table() {
    let items = [
        item(3, "c", true),
        item(1, "b", true),
        item(1, "a", true),
        item(2, "x", false),
        item(5, "e", true),
    ];
    let ids = |page: &(Vec<Item>, bool)| {
        (
            page.0
                .iter()
                .map(|it| it.id.as_str().to_owned())
                .collect::<Vec<_>>(),
            page.1,
        )
    };
    let asc = SortOrder::Ascending;
    let desc = SortOrder::Descending;
    assert_eq!(
        ids(&run(&items, asc, None, 2)),
        (vec!["a".into(), "b".into()], true)
    );
    assert_eq!(
        ids(&run(&items, asc, None, 4)),
        (vec!["a".into(), "b".into(), "c".into(), "e".into()], false)
    );
    assert!(!ids(&run(&items, asc, None, 5)).1);
    assert_eq!(ids(&run(&items, desc, None, 1)), (vec!["e".into()], true));
    let after_b = key(&items[1]);
    assert_eq!(
        ids(&run(&items, asc, Some(&after_b), 10)),
        (vec!["c".into(), "e".into()], false)
    );
    assert_eq!(
        ids(&run(&items, desc, Some(&after_b), 10)),
        (vec!["a".into()], false)
    );
    assert_eq!(ids(&run(&[], asc, None, 10)), (vec![], false));
}

#[test]
fn keep_is_not_called_for_items_that_cannot_enter() {
    // Ascending input with a limit of 1: after the heap holds 2, every later item is
    // larger than its top and is skipped by one key comparison, without calling `keep`.
    let items: Vec<Item> = (0..1000).map(|i| item(i, &format!("t{i}"), true)).collect();
    let mut calls = 0;
    let order = SortOrder::Ascending;
    let (page, more) = select_page(
        items.iter().cloned(),
        &|a: &Item, b: &Item| order.compare(&key(a), &key(b)),
        |_: &Item| true,
        1,
        |_| {
            calls += 1;
            true
        },
    );
    assert_eq!(page.len(), 1);
    assert!(more);
    assert_eq!(calls, 2);
}

fn any_items() -> impl Strategy<Value = Vec<Item>> {
    prop::collection::vec((0i64..20, 0u32..50, any::<bool>()), 0..60).prop_map(|raw| {
        let mut seen = std::collections::BTreeSet::new();
        raw.into_iter()
            .filter(|(_, id, _)| seen.insert(*id))
            .map(|(t, id, keep)| item(t, &format!("id{id}"), keep))
            .collect()
    })
}

proptest! {
    #[test]
    fn agrees_with_sorting_everything(
        items in any_items(),
        desc in any::<bool>(),
        limit in 1usize..12,
        cursor in prop::option::of((0i64..20, 0u32..50)),
    ) {
        let order = if desc { SortOrder::Descending } else { SortOrder::Ascending };
        let after = cursor.map(|(t, id)| key(&item(t, &format!("id{id}"), true)));
        prop_assert_eq!(run(&items, order, after.as_ref(), limit), reference(&items, order, after.as_ref(), limit));
    }
}
