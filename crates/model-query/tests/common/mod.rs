//! Shared test fixtures: a plain row type implementing `Queryable`, strategies, and a
//! reference filter-and-sort written independently of the crate's evaluation.
#![allow(
    dead_code,
    reason = "each test binary uses a different part of the fixtures"
)]

use chrono::{DateTime, Utc};
use model_ids::{Slot, TaskId, TenantId};
use model_query::{Queryable, SortOrder, TaskQuery};
use model_selector::{LabelSelector, Labels};
use model_task::TaskPhase;
use proptest::prelude::*;

/// A task as the query sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub(crate) tenant: TenantId,
    pub(crate) id: TaskId,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) updated_at: DateTime<Utc>,
    pub(crate) slot: Slot,
    pub(crate) phase: TaskPhase,
    pub(crate) labels: Labels,
}

impl Queryable for Row {
    fn tenant(&self) -> &TenantId {
        &self.tenant
    }
    fn id(&self) -> &TaskId {
        &self.id
    }
    fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }
    fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }
    fn slot(&self) -> &Slot {
        &self.slot
    }
    fn phase(&self) -> TaskPhase {
        self.phase
    }
    fn labels(&self) -> &Labels {
        &self.labels
    }
}

/// The tenant every fixture row belongs to, and every fixture query lists.
pub(crate) fn tenant() -> TenantId {
    TenantId::new("team-a").unwrap()
}

pub(crate) fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

pub(crate) fn row(n: u32, created: i64, slot: &str, phase: TaskPhase, zone: &str) -> Row {
    Row {
        tenant: tenant(),
        id: TaskId::new(format!("t{n}")).unwrap(),
        created_at: at(created),
        updated_at: at(created + i64::from(n % 7)),
        slot: Slot::new(slot).unwrap(),
        phase,
        labels: Labels::from_pairs([("zone", zone)]).unwrap(),
    }
}

/// Rows with ids `t{first}`, `t{first+1}`, ...: unique ids, few distinct times (ties).
pub(crate) fn rows(first: u32, max: usize) -> impl Strategy<Value = Vec<Row>> {
    prop::collection::vec(
        (
            0i64..40,
            prop::sample::select(vec!["a", "b"]),
            prop::sample::select(TaskPhase::ALL.to_vec()),
            prop::sample::select(vec!["eu", "us", "ap"]),
        ),
        0..max,
    )
    .prop_map(move |raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (t, slot, phase, zone))| row(first + i as u32, t, slot, phase, zone))
            .collect()
    })
}

/// A random valid query (filters, order, limit), first page.
pub(crate) fn queries() -> impl Strategy<Value = TaskQuery> {
    (
        prop::option::of(prop::sample::select(vec!["a", "b"])),
        prop::sample::subsequence(TaskPhase::ALL.to_vec(), 0..4),
        prop::sample::select(vec!["", "zone=eu", "zone!=eu", "zone in (eu,ap)", "!zone"]),
        prop::option::of(0i64..20),
        prop::option::of(20i64..45),
        any::<bool>(),
        1u32..9,
    )
        .prop_map(|(slot, phases, selector, since, before, desc, limit)| {
            let mut b = TaskQuery::builder(tenant())
                .phases(phases)
                .label_selector(selector.parse().unwrap())
                .order(if desc {
                    SortOrder::Descending
                } else {
                    SortOrder::Ascending
                })
                .limit(limit);
            if let Some(slot) = slot {
                b = b.slot(Slot::new(slot).unwrap());
            }
            if let Some(since) = since {
                b = b.created_since(at(since));
            }
            if let Some(before) = before {
                b = b.created_before(at(before));
            }
            b.build().unwrap()
        })
}

/// The reference filter, written from the documented semantics, not with `matches`.
pub(crate) fn reference_match(query: &TaskQuery, row: &Row) -> bool {
    let created = query.created();
    let updated = query.updated();
    let in_range = |r: model_query::TimeRange, t: DateTime<Utc>| {
        r.since.is_none_or(|s| s <= t) && r.before.is_none_or(|b| t < b)
    };
    *query.tenant() == row.tenant
        && query.slot().is_none_or(|s| *s == row.slot)
        && (query.phases().is_empty() || query.phases().contains(&row.phase))
        && query
            .label_selector()
            .is_none_or(|sel: &LabelSelector| sel.matches(&row.labels))
        && in_range(created, row.created_at)
        && in_range(updated, row.updated_at)
}

/// The reference listing: filter, sort everything, reverse for descending.
pub(crate) fn reference(query: &TaskQuery, rows: &[Row]) -> Vec<Row> {
    let mut all: Vec<Row> = rows
        .iter()
        .filter(|r| reference_match(query, r))
        .cloned()
        .collect();
    all.sort_by(|a, b| (a.created_at, a.id.as_str()).cmp(&(b.created_at, b.id.as_str())));
    if query.order() == SortOrder::Descending {
        all.reverse();
    }
    all
}

/// Ascending-or-descending strictly increasing check on the key.
pub(crate) fn strictly_ordered(order: SortOrder, rows: &[Row]) -> bool {
    rows.windows(2).all(|w| {
        let a = (w[0].created_at, w[0].id.as_str());
        let b = (w[1].created_at, w[1].id.as_str());
        match order {
            SortOrder::Descending => a > b,
            _ => a < b,
        }
    })
}
