//! Query plans: a selector turned into bitmap work once per query.

use super::postings::Probe;
use crate::{operator::SelectorOperator, selector::LabelSelector};

/// One requirement as bitmap work: the union of the postings of `probes[start..end]`,
/// intersected (positive) or subtracted (negative).
pub(super) struct Step {
    pub(super) negative: bool,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// A selector turned into probes once per query.
pub(super) struct Plan<'q> {
    pub(super) probes: Vec<Probe<'q>>,
    pub(super) steps: Vec<Step>,
    /// `Gt` or `Lt` present: candidates must be checked with `matches`.
    pub(super) verify: bool,
}

impl<'q> Plan<'q> {
    pub(super) fn new(selector: &'q LabelSelector) -> Self {
        let mut plan = Self {
            probes: Vec::new(),
            steps: Vec::new(),
            verify: false,
        };
        for (key, value) in selector.match_labels() {
            plan.step(false, [Probe::new(key, Some(value))]);
        }
        for req in selector.match_expressions() {
            let key = req.key();
            match req.operator() {
                SelectorOperator::In => {
                    plan.step(false, req.values().map(|v| Probe::new(key, Some(v))));
                }
                SelectorOperator::NotIn => {
                    plan.step(true, req.values().map(|v| Probe::new(key, Some(v))));
                }
                SelectorOperator::Exists => plan.step(false, [Probe::new(key, None)]),
                SelectorOperator::DoesNotExist => plan.step(true, [Probe::new(key, None)]),
                SelectorOperator::Gt | SelectorOperator::Lt => plan.verify = true,
            }
        }
        // Positive steps first (fewest probes first: equality narrows fastest), so the
        // first one seeds the candidates and an empty intersection stops a chunk early.
        plan.steps.sort_by_key(|s| (s.negative, s.end - s.start));
        plan
    }

    pub(super) fn step(&mut self, negative: bool, probes: impl IntoIterator<Item = Probe<'q>>) {
        let start = self.probes.len();
        self.probes.extend(probes);
        self.steps.push(Step {
            negative,
            start,
            end: self.probes.len(),
        });
    }
}
