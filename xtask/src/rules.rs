//! The nine repository rules, judged over `cargo metadata`, the layer table and the files.

use std::{collections::BTreeSet, fs, path::Path};

use crate::{
    error::XtaskError,
    files,
    layers::{LayerTable, Role},
    metadata::{Dep, DepKind, Member, Workspace},
    modgraph,
    report::{Report, Rule, RuleOutcome},
};

#[cfg(test)]
mod tests;

/// Checks the rules of [`Rule::ALL`] on the workspace whose root manifest is `manifest_path`
/// (the workspace around the current directory when `None`): its layering, its module
/// cycles and its files.
///
/// Returns the report even when rules are broken; an error means the workspace could
/// not be judged at all (cargo failed, the layer table is missing or malformed, or a
/// file is unreadable).
///
/// # Examples
///
/// ```no_run
/// let report = xtask::check_layering(None)?;
/// println!("{report}");
/// assert!(report.is_clean(), "broken: {:?}", report.broken_rules());
/// # Ok::<(), xtask::XtaskError>(())
/// ```
///
/// # Errors
///
/// [`XtaskError`] when `cargo metadata` fails or prints unexpected JSON, when
/// `[workspace.metadata.layers]` is missing or malformed, or when a source file of a
/// member or a file the rules read cannot be read.
pub fn check_layering(manifest_path: Option<&Path>) -> Result<Report, XtaskError> {
    let workspace = Workspace::load(manifest_path)?;
    let table = LayerTable::parse(workspace.layers.as_ref())?;
    let checker = Checker {
        ws: &workspace,
        table: &table,
    };
    let mut outcomes = Vec::new();
    for rule in Rule::ALL {
        let violations = match rule {
            Rule::MembersAssigned => checker.members_assigned(),
            Rule::NoUpwardDependency => checker.internal_edges(|from, to| to > from),
            Rule::SameLayerIndependent => checker.internal_edges(|from, to| to == from),
            Rule::NoToolDependency => checker.no_tool_dependency(),
            Rule::AllowedExternalCrates => checker.allowed_external_crates(),
            Rule::NoModuleCycle => checker.no_module_cycle()?,
            Rule::DocLineMatches => checker.doc_lines()?,
            Rule::ModelFileLength => checker.long_files()?,
            Rule::NoOutsideCitation => files::outside_citations(&workspace.root)?,
        };
        outcomes.push(RuleOutcome::new(rule, violations));
    }
    Ok(Report::new(outcomes))
}

struct Checker<'a> {
    ws: &'a Workspace,
    table: &'a LayerTable,
}

impl Checker<'_> {
    /// The model crates with their layer and `allow` list, in metadata order.
    fn model_crates(&self) -> impl Iterator<Item = (&Member, u64, &BTreeSet<String>)> {
        self.ws
            .members
            .iter()
            .filter_map(|member| match self.table.crates.get(&member.name) {
                Some(Role::Model { layer, allow }) => Some((member, *layer, allow)),
                Some(Role::Tool | Role::Adapter) | None => None,
            })
    }

    /// Internal dependencies of a member, deduplicated (a crate listed for two targets
    /// appears once per kind), sorted by target name and kind.
    fn internal_deps<'m>(
        &self,
        member: &'m Member,
    ) -> BTreeSet<(&'m str, DepKind, Option<&'m str>)> {
        member
            .deps
            .iter()
            .filter(|dep| self.ws.is_internal(dep))
            .map(|dep| (dep.name.as_str(), dep.kind, dep.rename.as_deref()))
            .collect()
    }

    fn members_assigned(&self) -> Vec<String> {
        let mut violations: Vec<String> = self
            .ws
            .members
            .iter()
            .filter(|member| !self.table.crates.contains_key(&member.name))
            .map(|member| {
                format!(
                    "{}: member has no entry in [workspace.metadata.layers.crates]",
                    member.name
                )
            })
            .collect();
        violations.extend(
            self.table
                .crates
                .keys()
                .filter(|name| self.ws.member(name).is_none())
                .map(|name| format!("{name}: table entry is not a workspace member")),
        );
        violations
    }

    /// Edges between model crates whose layers satisfy `bad(from_layer, to_layer)`.
    fn internal_edges(&self, bad: impl Fn(u64, u64) -> bool) -> Vec<String> {
        let mut violations = Vec::new();
        for (member, layer, _) in self.model_crates() {
            for (name, kind, rename) in self.internal_deps(member) {
                if let Some(to_layer) = self.table.layer(name)
                    && bad(layer, to_layer)
                {
                    violations.push(format!(
                        "{} (layer {layer}) -> {name} (layer {to_layer}) [{}]",
                        member.name,
                        kind_label(kind, rename)
                    ));
                }
            }
        }
        violations
    }

    /// Edges to a tool from anything, and edges to an adapter from a model crate (a model
    /// crate never depends on I/O; a member the table does not list is rule 1's).
    fn no_tool_dependency(&self) -> Vec<String> {
        let mut violations = Vec::new();
        for member in &self.ws.members {
            let may_use_adapters = self.table.layer(&member.name).is_none();
            for (name, kind, rename) in self.internal_deps(member) {
                let role = if self.table.is_tool(name) {
                    "tool"
                } else if self.table.is_adapter(name) && !may_use_adapters {
                    "adapter"
                } else {
                    continue;
                };
                violations.push(format!(
                    "{} -> {name} ({role}) [{}]",
                    member.name,
                    kind_label(kind, rename)
                ));
            }
        }
        violations
    }

    fn allowed_external_crates(&self) -> Vec<String> {
        let mut violations = Vec::new();
        for (member, _, allow) in self.model_crates() {
            let external: BTreeSet<(&str, DepKind, Option<&str>)> = member
                .deps
                .iter()
                .filter(|dep| !self.ws.is_internal(dep))
                .map(|dep: &Dep| (dep.name.as_str(), dep.kind, dep.rename.as_deref()))
                .collect();
            for (name, kind, rename) in external {
                let allowed = self.table.external.contains(name)
                    || allow.contains(name)
                    || (kind == DepKind::Dev && self.table.dev_tools.contains(name));
                if !allowed {
                    let lists = if kind == DepKind::Dev {
                        "external, dev-tools or its allow list"
                    } else if self.table.dev_tools.contains(name) {
                        "external or its allow list (dev-tools are for dev-dependencies)"
                    } else {
                        "external or its allow list"
                    };
                    violations.push(format!(
                        "{} -> {name} [{}]: not in {lists}",
                        member.name,
                        kind_label(kind, rename)
                    ));
                }
            }
        }
        violations
    }

    fn no_module_cycle(&self) -> Result<Vec<String>, XtaskError> {
        let mut violations = Vec::new();
        for member in &self.ws.members {
            let mut roots = BTreeSet::new();
            for target in &member.targets {
                let is_code = target.kinds.iter().any(|kind| {
                    !["test", "bench", "example", "custom-build"].contains(&kind.as_str())
                });
                if is_code {
                    roots.insert(&target.src_path);
                }
            }
            for root in roots {
                violations.extend(modgraph::module_cycles(&self.ws.root, root)?);
            }
        }
        Ok(violations)
    }

    fn long_files(&self) -> Result<Vec<String>, XtaskError> {
        let mut violations = Vec::new();
        for (member, _, _) in self.model_crates() {
            violations.extend(files::long_source_files(&self.ws.root, &member.dir)?);
        }
        Ok(violations)
    }

    fn doc_lines(&self) -> Result<Vec<String>, XtaskError> {
        let mut violations = Vec::new();
        for (member, layer, _) in self.model_crates() {
            let Some(lib) = member
                .targets
                .iter()
                .find(|target| target.kinds.iter().any(|kind| kind.contains("lib")))
            else {
                violations.push(format!(
                    "{}: no lib target to read the doc line from",
                    member.name
                ));
                continue;
            };
            let source = fs::read_to_string(&lib.src_path).map_err(|source| XtaskError::Io {
                path: lib.src_path.clone(),
                source,
            })?;
            let file = self.ws.relative(&lib.src_path).display().to_string();
            let depends: BTreeSet<&str> = self
                .internal_deps(member)
                .into_iter()
                .filter(|(_, kind, _)| *kind == DepKind::Normal)
                .map(|(name, _, _)| name)
                .collect();
            let used_by: BTreeSet<&str> = self
                .model_crates()
                .filter(|(user, _, _)| {
                    self.internal_deps(user)
                        .iter()
                        .any(|(name, kind, _)| *name == member.name && *kind == DepKind::Normal)
                })
                .map(|(user, _, _)| user.name.as_str())
                .collect();
            let expected = Expected {
                name: &member.name,
                file: &file,
                layer,
                depends,
                used_by,
            };
            violations.extend(expected.compare(&source));
        }
        Ok(violations)
    }
}

fn kind_label(kind: DepKind, rename: Option<&str>) -> String {
    match rename {
        Some(local) => format!("{kind}, renamed {local}"),
        None => kind.to_string(),
    }
}

/// What a model crate's doc line must say.
struct Expected<'a> {
    name: &'a str,
    file: &'a str,
    layer: u64,
    depends: BTreeSet<&'a str>,
    used_by: BTreeSet<&'a str>,
}

impl Expected<'_> {
    fn compare(&self, source: &str) -> Vec<String> {
        let (name, file) = (self.name, self.file);
        let found = source
            .lines()
            .map(str::trim_start)
            .take_while(|line| line.is_empty() || line.starts_with("//!") || line.starts_with("#!"))
            .enumerate()
            .filter_map(|(index, line)| Some((index + 1, line.strip_prefix("//!")?.trim())))
            .find(|(_, text)| text.starts_with("Layer "));
        let Some((line, text)) = found else {
            return vec![format!(
                "{name}: {file} has no top doc line \"Layer {}. Depends on: ...\"",
                self.layer
            )];
        };
        let at = format!("{name}: {file}:{line}");
        let Some(doc) = DocLine::parse(text) else {
            return vec![format!(
                "{at}: malformed doc line \"{text}\", expected \"Layer N. Depends on: a, b.\" \
                 (or \"Depends on: nothing.\"), optionally followed by \"Used by: c.\""
            )];
        };
        let mut violations = Vec::new();
        if doc.layer != self.layer {
            violations.push(format!(
                "{at}: doc says layer {}, the table says layer {}",
                doc.layer, self.layer
            ));
        }
        for missing in self.depends.difference(&doc.depends) {
            violations.push(format!(
                "{at}: \"Depends on\" misses {missing} ({name} -> {missing} is a normal dependency)"
            ));
        }
        for extra in doc.depends.difference(&self.depends) {
            violations.push(format!(
                "{at}: \"Depends on\" lists {extra}, but {name} -> {extra} is not a normal dependency"
            ));
        }
        if let Some(used_by) = &doc.used_by {
            for missing in self.used_by.difference(used_by) {
                violations.push(format!(
                    "{at}: \"Used by\" misses {missing} ({missing} -> {name} is a normal dependency)"
                ));
            }
            for extra in used_by.difference(&self.used_by) {
                violations.push(format!(
                    "{at}: \"Used by\" lists {extra}, but {extra} -> {name} is not a normal dependency"
                ));
            }
        }
        violations
    }
}

/// A parsed `Layer N. Depends on: a, b. Used by: c.` line.
#[derive(Debug, PartialEq, Eq)]
struct DocLine<'a> {
    layer: u64,
    depends: BTreeSet<&'a str>,
    used_by: Option<BTreeSet<&'a str>>,
}

impl<'a> DocLine<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let (layer, rest) = text.strip_prefix("Layer ")?.split_once('.')?;
        let (depends, rest) = rest
            .trim_start()
            .strip_prefix("Depends on:")?
            .split_once('.')?;
        let used_by = match rest.trim_start().strip_prefix("Used by:") {
            Some(used) => Some(names(used.split_once('.')?.0)?),
            None => None,
        };
        Some(Self {
            layer: layer.trim().parse().ok()?,
            depends: names(depends)?,
            used_by,
        })
    }
}

/// `a, b` as a set; `nothing` as the empty set; `None` for an empty or blank entry.
fn names(list: &str) -> Option<BTreeSet<&str>> {
    let list = list.trim();
    if list == "nothing" {
        return Some(BTreeSet::new());
    }
    list.split(',')
        .map(str::trim)
        .map(|name| (!name.is_empty()).then_some(name))
        .collect()
}
