//! Module cycles between the concepts of one crate.
//!
//! A concept is a top-level module of the crate: a file module, or a folder module with
//! everything beneath it. Code anywhere in concept `a` that names a path into concept `b`
//! is an edge `a -> b`; paths between files of one concept, and the crate root's own
//! paths (its re-exports), are not judged. `use` imports are followed, so `crate::Spec`
//! re-exported from `spec` counts as naming `spec`.
//!
//! The top-level `error` module is exempt: edges into it and out of it are not judged.
//! It is the sink every concept returns its errors into, and an error message may name
//! any concept's types and limits.

use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    fs,
    path::{Path, PathBuf},
};

use crate::{
    error::XtaskError,
    scan::{self, RawRef, RefKind},
};

#[cfg(test)]
mod tests;

/// How deep `use` re-exports are followed before giving up (guards against import loops).
const MAX_ALIAS_DEPTH: u8 = 16;

/// The top-level module whose edges are not judged.
const EXEMPT_CONCEPT: &str = "error";

type ModPath = Vec<String>;

/// Where an edge was first seen: file and line.
type Location = (PathBuf, usize);

/// The modules of one crate root and the paths they name.
#[derive(Debug, Default)]
struct ModuleTree {
    modules: BTreeSet<ModPath>,
    /// For each module, the names its `use` declarations bring in, as absolute paths.
    aliases: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    refs: Vec<(PathBuf, RawRef)>,
}

/// The cycles between the concepts of the crate whose root file is `root_file`, one line
/// per cycle giving the file and line of each edge, with file paths shown relative to
/// `workspace_root`.
pub(crate) fn module_cycles(
    workspace_root: &Path,
    root_file: &Path,
) -> Result<Vec<String>, XtaskError> {
    let edges = ModuleTree::read(root_file)?.concept_edges();
    let cycles = find_cycles(&edges)
        .iter()
        .map(|cycle| {
            let chain: Vec<String> = cycle
                .iter()
                .zip(cycle.iter().cycle().skip(1))
                .filter_map(|(from, to)| {
                    let (file, line) = edges.get(&(from.clone(), to.clone()))?;
                    let file = file.strip_prefix(workspace_root).unwrap_or(file);
                    Some(format!("{}:{line} ({from} -> {to})", file.display()))
                })
                .collect();
            chain.join(" -> ")
        })
        .collect();
    Ok(cycles)
}

impl ModuleTree {
    /// Reads the root file and every file module it declares, in declaration order.
    fn read(root_file: &Path) -> Result<Self, XtaskError> {
        let mut tree = Self::default();
        tree.modules.insert(Vec::new());
        let root_dir = root_file.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut pending = VecDeque::from([(root_file.to_path_buf(), Vec::new(), root_dir)]);
        let mut seen = BTreeSet::new();
        while let Some((file, module, child_dir)) = pending.pop_front() {
            if !seen.insert(file.clone()) {
                continue;
            }
            let source = fs::read_to_string(&file).map_err(|source| XtaskError::Io {
                path: file.clone(),
                source,
            })?;
            let found = scan::scan(&source, &module);
            tree.modules.extend(found.inline_modules);
            for path in found.file_modules {
                tree.modules.insert(path.clone());
                let (Some(name), Some(inline)) =
                    (path.last(), path.get(module.len()..path.len() - 1))
                else {
                    continue;
                };
                let dir: PathBuf = inline.iter().fold(child_dir.clone(), |dir, m| dir.join(m));
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(name).join("mod.rs");
                // A module whose file is missing (or set by #[path]) is not scanned.
                if let Some(child_file) = [flat, nested].into_iter().find(|f| f.is_file()) {
                    pending.push_back((child_file, path.clone(), dir.join(name)));
                }
            }
            tree.refs
                .extend(found.refs.into_iter().map(|r| (file.clone(), r)));
        }
        for (_, r) in &tree.refs {
            if let (RefKind::Use(Some(alias)), Some(target)) = (&r.kind, absolute(r)) {
                tree.aliases
                    .entry(r.module.clone())
                    .or_default()
                    .insert(alias.clone(), target);
            }
        }
        Ok(tree)
    }

    /// The edges between concepts (top-level modules other than `error`), each with the
    /// first place it is seen.
    fn concept_edges(&self) -> BTreeMap<(String, String), Location> {
        let mut edges = BTreeMap::new();
        for (file, r) in &self.refs {
            let Some(path) = absolute(r) else { continue };
            let Some(from) = r.module.first() else {
                continue;
            };
            for target in [self.locate(&path, MAX_ALIAS_DEPTH), self.locate(&path, 0)] {
                if let Some(to) = target.first()
                    && to != from
                    && from != EXEMPT_CONCEPT
                    && to != EXEMPT_CONCEPT
                {
                    edges
                        .entry((from.clone(), to.clone()))
                        .or_insert_with(|| (file.clone(), r.line));
                }
            }
        }
        edges
    }

    /// The deepest known module a path leads into, following `use` imports up to `depth` times.
    fn locate(&self, path: &[String], depth: u8) -> ModPath {
        let mut current = Vec::new();
        for (i, segment) in path.iter().enumerate() {
            let mut child = current.clone();
            child.push(segment.clone());
            if self.modules.contains(&child) {
                current = child;
                continue;
            }
            if depth > 0
                && let Some(target) = self.aliases.get(&current).and_then(|m| m.get(segment))
            {
                let mut next = target.clone();
                next.extend(path[i + 1..].iter().cloned());
                return self.locate(&next, depth - 1);
            }
            break;
        }
        current
    }
}

/// The absolute path a reference names, or `None` when it leaves the crate root.
///
/// A `use` path without `crate`/`self`/`super` is relative to its module (uniform paths);
/// if its first segment is an external crate, [`ModuleTree::locate`] stops at the module.
fn absolute(r: &RawRef) -> Option<ModPath> {
    let mut segments = r.segments.iter().peekable();
    let mut base = match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        Some("self" | "super") => r.module.clone(),
        _ if matches!(r.kind, RefKind::Use(_)) => r.module.clone(),
        _ => return None,
    };
    while let Some(segment) = segments.next_if(|s| *s == "self" || *s == "super") {
        if segment == "super" {
            base.pop()?;
        }
    }
    base.extend(segments.cloned());
    Some(base)
}

/// One cycle per strongly connected group of concepts, each as its node list, starting at the
/// group's first node in name order and taking the shortest way back to it.
fn find_cycles(edges: &BTreeMap<(String, String), Location>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().insert(to);
    }
    let reach = |start: &str| -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(node) = stack.pop() {
            for &to in next.get(node).into_iter().flatten() {
                if seen.insert(to) {
                    stack.push(to);
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&str, BTreeSet<&str>> =
        next.keys().map(|&node| (node, reach(node))).collect();
    let mut grouped = BTreeSet::new();
    let mut cycles = Vec::new();
    for (&start, from_start) in &reachable {
        if grouped.contains(start) || !from_start.contains(start) {
            continue;
        }
        let group: BTreeSet<&str> = from_start
            .iter()
            .copied()
            .filter(|node| reachable.get(node).is_some_and(|r| r.contains(start)))
            .collect();
        grouped.extend(group.iter().copied());
        // Breadth-first search inside the group for the shortest way back to `start`.
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        'search: while let Some(node) = queue.pop_front() {
            for &to in next.get(node).into_iter().flatten() {
                if to == start {
                    let mut cycle = vec![node.to_owned()];
                    let mut at = node;
                    while let Some(&before) = previous.get(at) {
                        cycle.push(before.to_owned());
                        at = before;
                    }
                    cycle.reverse();
                    cycles.push(cycle);
                    break 'search;
                }
                if group.contains(to) && !previous.contains_key(to) {
                    previous.insert(to, node);
                    queue.push_back(to);
                }
            }
        }
    }
    cycles
}
