//! The outcome of `check-layering`: each rule kept or broken, with the offending edges,
//! files or lines.

use std::fmt;

/// One repository rule, numbered as the report prints it: rules 1 to 7 are about layering
/// and modules, 8 and 9 about files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// 1. Every workspace member has a layer or is a tool or an adapter, and every table entry
    ///    is a member.
    MembersAssigned,
    /// 2. No internal dependency (normal, build or dev) of a model crate points to a higher layer.
    NoUpwardDependency,
    /// 3. Crates in the same layer do not depend on each other.
    SameLayerIndependent,
    /// 4. Nothing depends on a tool, and only tools and adapters depend on an adapter.
    NoToolDependency,
    /// 5. Model crates use only the external crates the table allows.
    AllowedExternalCrates,
    /// 6. Inside each crate, concepts (top-level modules, a folder module with everything
    ///    beneath it) do not name each other in a cycle; the `error` module is exempt.
    NoModuleCycle,
    /// 7. Each model crate's top doc states its layer and dependencies as they are.
    DocLineMatches,
    /// 8. No source file of a model crate is over 700 lines (`tests.rs` files and `tests/`
    ///    folders aside).
    ModelFileLength,
    /// 9. Nothing under `crates/` or `docs/`, nor the README, cites a document the
    ///    repository does not hold.
    NoOutsideCitation,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Self; 9] = [
        Self::MembersAssigned,
        Self::NoUpwardDependency,
        Self::SameLayerIndependent,
        Self::NoToolDependency,
        Self::AllowedExternalCrates,
        Self::NoModuleCycle,
        Self::DocLineMatches,
        Self::ModelFileLength,
        Self::NoOutsideCitation,
    ];

    /// The rule's number in the report, 1 to 9.
    #[must_use]
    pub fn number(self) -> u8 {
        match self {
            Self::MembersAssigned => 1,
            Self::NoUpwardDependency => 2,
            Self::SameLayerIndependent => 3,
            Self::NoToolDependency => 4,
            Self::AllowedExternalCrates => 5,
            Self::NoModuleCycle => 6,
            Self::DocLineMatches => 7,
            Self::ModelFileLength => 8,
            Self::NoOutsideCitation => 9,
        }
    }

    /// What the rule demands, as one line.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Self::MembersAssigned => {
                "every workspace member has a layer or is a tool or an adapter"
            }
            Self::NoUpwardDependency => "no model crate depends on a higher layer",
            Self::SameLayerIndependent => "crates in the same layer are independent",
            Self::NoToolDependency => {
                "nothing depends on a tool; only tools and adapters depend on an adapter"
            }
            Self::AllowedExternalCrates => "model crates use only allowed external crates",
            Self::NoModuleCycle => {
                "a crate's concepts (top-level modules) do not name each other in a cycle \
                 (error is exempt)"
            }
            Self::DocLineMatches => "each model crate's doc states its layer and dependencies",
            Self::ModelFileLength => {
                "no model-crate source file is over 700 lines (tests files aside)"
            }
            Self::NoOutsideCitation => {
                "crates/, docs/ and the README cite no document the repository does not hold"
            }
        }
    }
}

/// One rule's outcome: kept when it has no violations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOutcome {
    rule: Rule,
    violations: Vec<String>,
}

impl RuleOutcome {
    pub(crate) fn new(rule: Rule, violations: Vec<String>) -> Self {
        Self { rule, violations }
    }

    /// The rule judged.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The offending edges, files or lines, one line each (for example
    /// `model-policy (layer 1) -> model-task (layer 2) [normal]`); empty when kept.
    #[must_use]
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Whether the rule holds.
    #[must_use]
    pub fn is_kept(&self) -> bool {
        self.violations.is_empty()
    }
}

/// The result of `check-layering`: one outcome per rule, in [`Rule::ALL`] order.
///
/// Its `Display` is the report the command prints: one line per rule, the offending
/// edges, files or lines indented under broken rules, and a summary line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    outcomes: Vec<RuleOutcome>,
}

impl Report {
    pub(crate) fn new(outcomes: Vec<RuleOutcome>) -> Self {
        Self { outcomes }
    }

    /// Every rule's outcome.
    #[must_use]
    pub fn outcomes(&self) -> &[RuleOutcome] {
        &self.outcomes
    }

    /// The outcome of one rule.
    #[must_use]
    pub fn outcome(&self, rule: Rule) -> Option<&RuleOutcome> {
        self.outcomes.iter().find(|outcome| outcome.rule == rule)
    }

    /// The rules that are broken, in report order.
    #[must_use]
    pub fn broken_rules(&self) -> Vec<Rule> {
        self.outcomes
            .iter()
            .filter(|outcome| !outcome.is_kept())
            .map(RuleOutcome::rule)
            .collect()
    }

    /// Whether every rule is kept.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.outcomes.iter().all(RuleOutcome::is_kept)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for outcome in &self.outcomes {
            let verdict = if outcome.is_kept() { "kept" } else { "broken" };
            let rule = outcome.rule;
            writeln!(f, "{verdict:<7}{}. {}", rule.number(), rule.description())?;
            for violation in &outcome.violations {
                writeln!(f, "           {violation}")?;
            }
        }
        let broken = self.broken_rules().len();
        let kept = self.outcomes.len() - broken;
        write!(
            f,
            "check-layering: {kept} {} kept, {broken} broken",
            if kept == 1 { "rule" } else { "rules" }
        )
    }
}
