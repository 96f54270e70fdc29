//! `taskctl flow`: a flow's order, its levels and its graph (Mermaid or Graphviz DOT).

use std::fmt::Write as _;
use std::io::{Read, Write};

use serde::Serialize;
use taskmodel::TriggerRule;
use taskmodel::flow::{FlowGraph, FlowSpec};

use super::check::{report, write_file};
use crate::cli::{FlowArgs, GraphFormat, Output};
use crate::input;
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json};

/// A flow's shape, as `--output json` prints it.
#[derive(Debug, Serialize)]
struct FlowReport<'a> {
    flow: &'a str,
    jobs: usize,
    dependencies: usize,
    /// Every job once, each after all it depends on, ties broken by declaration order.
    order: Vec<&'a str>,
    /// The jobs of each level, in declaration order.
    levels: Vec<Vec<&'a str>>,
    graph: String,
}

/// Reads the flow; prints its order, levels and graph, or its problems as `check` does.
pub(crate) fn run(
    args: &FlowArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let input = input::read(&args.file, stdin).map_err(CommandError::Read)?;
    let flow = input
        .text
        .as_deref()
        .ok()
        .and_then(|text| serde_json::from_str::<FlowSpec>(text).ok());
    let Some(flow) = flow else {
        let file = report(input, None);
        match output {
            Output::Json => write_json(out, &file)?,
            Output::Text => write_file(out, &file)?,
        }
        return Ok(Outcome::Invalid);
    };
    let graph = flow.graph();
    let name = |position: usize| graph.name(position).map_or("", |n| n.as_str());
    let report = FlowReport {
        flow: flow.name().as_str(),
        jobs: graph.len(),
        dependencies: (0..graph.len()).map(|i| graph.dependencies(i).len()).sum(),
        order: graph.order().map(name).collect(),
        levels: graph
            .levels()
            .iter()
            .map(|level| level.iter().map(|&p| name(p)).collect())
            .collect(),
        graph: match args.graph {
            GraphFormat::Mermaid => mermaid(graph),
            GraphFormat::Dot => dot(flow.name().as_str(), graph),
        },
    };
    match output {
        Output::Json => write_json(out, &report)?,
        Output::Text => write_text(out, &report)?,
    }
    Ok(Outcome::Valid)
}

fn write_text(out: &mut dyn Write, report: &FlowReport<'_>) -> Result<(), CommandError> {
    writeln!(
        out,
        "flow {}: {} jobs, {} dependencies, {} levels",
        report.flow,
        report.jobs,
        report.dependencies,
        report.levels.len()
    )?;
    writeln!(out, "order: {}", report.order.join(", "))?;
    writeln!(out, "levels:")?;
    for (level, jobs) in report.levels.iter().enumerate() {
        writeln!(out, "  {level}: {}", jobs.join(", "))?;
    }
    writeln!(out)?;
    write!(out, "{}", report.graph)?;
    Ok(())
}

/// The job's label: its name, and its rule when not the default.
fn label(graph: &FlowGraph, position: usize) -> String {
    let name = graph.name(position).map_or("", |n| n.as_str());
    match graph.rule(position) {
        Some(rule) if rule != TriggerRule::default() => format!("{name} ({rule})"),
        _ => name.to_owned(),
    }
}

/// A Mermaid flowchart, top to bottom: one node per job (`j0`, `j1`, ... by position, so
/// any job name is safe), one arrow from each dependency to its dependent.
fn mermaid(graph: &FlowGraph) -> String {
    let mut text = String::from("flowchart TD\n");
    for job in 0..graph.len() {
        let _ = writeln!(text, "    j{job}[\"{}\"]", label(graph, job));
    }
    for job in 0..graph.len() {
        for dep in graph.dependencies(job) {
            let _ = writeln!(text, "    j{dep} --> j{job}");
        }
    }
    text
}

/// A Graphviz digraph, top to bottom, one node per job (quoted names: job names hold only
/// `[A-Za-z0-9._-]`, so no escaping is needed), one edge from each dependency.
fn dot(flow: &str, graph: &FlowGraph) -> String {
    let mut text = format!("digraph \"{flow}\" {{\n    rankdir=TB;\n");
    for job in 0..graph.len() {
        let name = graph.name(job).map_or("", |n| n.as_str());
        let _ = writeln!(text, "    \"{name}\" [label=\"{}\"];", label(graph, job));
    }
    for job in 0..graph.len() {
        for dep in graph.dependencies(job) {
            let from = graph.name(dep).map_or("", |n| n.as_str());
            let to = graph.name(job).map_or("", |n| n.as_str());
            let _ = writeln!(text, "    \"{from}\" -> \"{to}\";");
        }
    }
    text.push_str("}\n");
    text
}
