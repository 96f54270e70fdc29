//! Postings: for each label key, which distinct stored selectors (groups) are filed under one
//! of its values or under the key's presence; and how a selector picks the one requirement it
//! is filed under (its anchor).

use std::collections::{BTreeMap, BTreeSet};

use crate::{operator::SelectorOperator, selector::LabelSelector};

/// One posting list: the groups filed there.
pub(super) type Posting = BTreeSet<u32>;

/// The requirement a group is filed under. Any requirement every matching label
/// set must satisfy through a label it has will do: `matchLabels` and `In` (filed under
/// each listed value), `Exists`, `Gt` and `Lt` (filed under the key's presence). A
/// selector with none of those (only `NotIn` and `DoesNotExist`, or nothing) is scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Anchor {
    /// Filed under each of `values` of `key`.
    Values { key: String, values: Vec<String> },
    /// Filed under the presence of `key`.
    Exists { key: String },
    /// Tested for every label set.
    Scan,
}

/// The postings of one label key.
#[derive(Debug, Clone, Default)]
struct KeyPostings {
    values: BTreeMap<String, Posting>,
    exists: Posting,
}

impl KeyPostings {
    fn is_empty(&self) -> bool {
        self.values.is_empty() && self.exists.is_empty()
    }
}

/// Every posting list, by label key, and the groups with no anchor.
#[derive(Debug, Clone, Default)]
pub(super) struct Postings {
    by_key: BTreeMap<String, KeyPostings>,
    scan: Posting,
}

impl Postings {
    /// The anchor for `selector`: a value requirement (`matchLabels`, `In`) when it has
    /// one, since a value is met by fewer label sets than a key's presence is, else a
    /// presence requirement; among those, the one whose lists now hold the fewest groups
    /// (the first in canonical order on a tie), so lists stay short whatever keys and
    /// values callers favour. Costs a lookup per requirement and listed value.
    pub(super) fn choose(&self, selector: &LabelSelector) -> Anchor {
        // (prefers presence, selectors in the lists): smaller is better.
        let mut best: Option<((bool, usize), Anchor)> = None;
        let mut consider = |cost: (bool, usize), anchor: &dyn Fn() -> Anchor| {
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, anchor()));
            }
        };
        for (key, value) in selector.match_labels() {
            let cost = (false, self.value_len(key, value));
            consider(cost, &|| Anchor::Values {
                key: key.to_owned(),
                values: vec![value.to_owned()],
            });
        }
        for req in selector.match_expressions() {
            let key = req.key();
            match req.operator() {
                SelectorOperator::In => {
                    let cost = req
                        .values()
                        .fold(0_usize, |sum, v| sum.saturating_add(self.value_len(key, v)));
                    consider((false, cost), &|| Anchor::Values {
                        key: key.to_owned(),
                        values: req.values().map(str::to_owned).collect(),
                    });
                }
                SelectorOperator::Exists | SelectorOperator::Gt | SelectorOperator::Lt => {
                    let cost = self.by_key.get(key).map_or(0, |p| p.exists.len());
                    consider((true, cost), &|| Anchor::Exists {
                        key: key.to_owned(),
                    });
                }
                SelectorOperator::NotIn | SelectorOperator::DoesNotExist => {}
            }
        }
        best.map_or(Anchor::Scan, |(_, anchor)| anchor)
    }

    fn value_len(&self, key: &str, value: &str) -> usize {
        self.by_key
            .get(key)
            .and_then(|p| p.values.get(value))
            .map_or(0, BTreeSet::len)
    }

    /// Files group `group` under `anchor`.
    pub(super) fn add(&mut self, anchor: &Anchor, group: u32) {
        match anchor {
            Anchor::Values { key: label, values } => {
                let postings = self.by_key.entry(label.clone()).or_default();
                for value in values {
                    postings
                        .values
                        .entry(value.clone())
                        .or_default()
                        .insert(group);
                }
            }
            Anchor::Exists { key: label } => {
                self.by_key
                    .entry(label.clone())
                    .or_default()
                    .exists
                    .insert(group);
            }
            Anchor::Scan => {
                self.scan.insert(group);
            }
        }
    }

    /// Takes group `group` out of the lists of `anchor`, dropping lists that become empty.
    pub(super) fn take(&mut self, anchor: &Anchor, group: u32) {
        let label = match anchor {
            Anchor::Values { key, .. } | Anchor::Exists { key } => key,
            Anchor::Scan => {
                self.scan.remove(&group);
                return;
            }
        };
        let Some(postings) = self.by_key.get_mut(label.as_str()) else {
            return;
        };
        match anchor {
            Anchor::Values { values, .. } => {
                for value in values {
                    if let Some(list) = postings.values.get_mut(value.as_str()) {
                        list.remove(&group);
                        if list.is_empty() {
                            postings.values.remove(value.as_str());
                        }
                    }
                }
            }
            Anchor::Exists { .. } => {
                postings.exists.remove(&group);
            }
            Anchor::Scan => {}
        }
        if postings.is_empty() {
            self.by_key.remove(label.as_str());
        }
    }

    /// The lists a label set with these labels can match through: for each label, the list
    /// of its value and the list of its key's presence, and the scanned groups. A group is
    /// in at most one of them, since a label set has one value per key.
    pub(super) fn lists<'i, 'l>(
        &'i self,
        labels: impl Iterator<Item = (&'l str, &'l str)>,
    ) -> impl Iterator<Item = &'i Posting> {
        labels
            .filter_map(|(key, value)| {
                let postings = self.by_key.get(key)?;
                Some([postings.values.get(value), Some(&postings.exists)])
            })
            .flatten()
            .flatten()
            .chain([&self.scan])
            .filter(|list| !list.is_empty())
    }
}
