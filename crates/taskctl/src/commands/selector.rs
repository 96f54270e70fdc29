//! `taskctl selector`: a label selector's canonical form, JSON form and match explanation.

use std::io::Write;

use serde::Serialize;
use taskmodel::selector::{LabelSelector, Labels, SelectorError};

use crate::cli::{Output, SelectorArgs};
use crate::outcome::Outcome;
use crate::report::{CommandError, Failure, write_json};

/// The match of the selector against `--labels`.
#[derive(Debug, Serialize)]
struct Match {
    labels: Labels,
    matches: bool,
    failures: Vec<Failure>,
}

/// The whole result, as `--output json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Explained {
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selector: Option<LabelSelector>,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    matched: Option<Match>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Invalid>,
}

/// Why the expression or the labels are not valid.
#[derive(Debug, Serialize)]
struct Invalid {
    /// What is invalid: `selector` or `labels`.
    input: &'static str,
    message: String,
    /// The byte offset of a syntax error in the expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<usize>,
}

/// Parses the expression (and the labels), prints the forms and the explanation.
///
/// An expression or labels that do not parse are invalid input (exit 1).
pub(crate) fn run(
    args: &SelectorArgs,
    output: Output,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let explained = explain(args);
    match output {
        Output::Json => write_json(out, &explained)?,
        Output::Text => write_text(out, &args.expr, &explained)?,
    }
    Ok(Outcome::valid_if(explained.valid))
}

fn explain(args: &SelectorArgs) -> Explained {
    let invalid = |error| Explained {
        valid: false,
        canonical: None,
        selector: None,
        matched: None,
        error: Some(error),
    };
    let selector: LabelSelector = match args.expr.parse() {
        Ok(selector) => selector,
        Err(err) => return invalid(invalid_input("selector", &err)),
    };
    let labels = match args.labels.as_deref().map(parse_labels).transpose() {
        Ok(labels) => labels,
        Err(err) => return invalid(invalid_input("labels", &err)),
    };
    let matched = labels.map(|labels| {
        let failures: Vec<Failure> = selector
            .explain(&labels)
            .into_iter()
            .map(Failure::from)
            .collect();
        Match {
            matches: failures.is_empty(),
            labels,
            failures,
        }
    });
    Explained {
        valid: true,
        canonical: Some(selector.to_string()),
        selector: Some(selector),
        matched,
        error: None,
    }
}

fn invalid_input(input: &'static str, err: &SelectorError) -> Invalid {
    let position = match err {
        SelectorError::Syntax { position, .. } => Some(*position),
        _ => None,
    };
    Invalid {
        input,
        message: err.to_string(),
        position,
    }
}

/// `k=v,k=v` (spaces around items allowed; empty text is no labels) as validated labels.
fn parse_labels(text: &str) -> Result<Labels, SelectorError> {
    let pairs = text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| item.split_once('=').unwrap_or((item, "")));
    Labels::from_pairs(pairs)
}

fn write_text(out: &mut dyn Write, expr: &str, explained: &Explained) -> Result<(), CommandError> {
    if let Some(error) = &explained.error {
        writeln!(out, "invalid {}: {}", error.input, error.message)?;
        if let Some(position) = error.position {
            writeln!(out, "  {expr}")?;
            let indent = expr
                .get(..position)
                .map_or(position, |before| before.chars().count());
            writeln!(out, "  {}^", " ".repeat(indent))?;
        }
        return Ok(());
    }
    if let (Some(canonical), Some(selector)) = (&explained.canonical, &explained.selector) {
        let shown = if canonical.is_empty() {
            "(empty: selects everything)"
        } else {
            canonical
        };
        writeln!(out, "canonical: {shown}")?;
        let json = serde_json::to_string(selector).map_err(std::io::Error::from)?;
        writeln!(out, "json:      {json}")?;
    }
    if let Some(matched) = &explained.matched {
        let verdict = if matched.matches {
            "matches"
        } else {
            "does not match"
        };
        writeln!(out, "labels:    {} ({verdict})", matched.labels)?;
        for failure in &matched.failures {
            writeln!(
                out,
                "  {} ({}): {}",
                failure.path, failure.requirement, failure.reason
            )?;
        }
    }
    Ok(())
}
