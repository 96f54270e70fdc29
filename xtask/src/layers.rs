//! The layer table, `[workspace.metadata.layers]` in the root Cargo.toml.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::XtaskError;

/// What the table says about one workspace member.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A model crate in a layer, with extra external crates it may use.
    Model { layer: u64, allow: BTreeSet<String> },
    /// A tool: may depend on anything; nothing may depend on it.
    Tool,
    /// An adapter (I/O above the facade, such as a database store): may depend on model
    /// crates, other adapters and any external crate; only tools and adapters may depend on it.
    Adapter,
}

/// The parsed layer table.
#[derive(Debug)]
pub(crate) struct LayerTable {
    /// External crates every model crate may use.
    pub(crate) external: BTreeSet<String>,
    /// External crates model crates may use as dev-dependencies only.
    pub(crate) dev_tools: BTreeSet<String>,
    /// Each listed crate's role, by package name.
    pub(crate) crates: BTreeMap<String, Role>,
}

impl LayerTable {
    /// Parses the table; every unknown key or wrong type is an error, so typos do not pass.
    pub(crate) fn parse(table: Option<&Value>) -> Result<Self, XtaskError> {
        let table = table
            .ok_or_else(|| bad("", "missing"))?
            .as_object()
            .ok_or_else(|| bad("", "not a table"))?;
        if let Some(key) = table
            .keys()
            .find(|key| !["external", "dev-tools", "crates"].contains(&key.as_str()))
        {
            return Err(bad(key, "unknown key"));
        }
        let crates_value = table
            .get("crates")
            .ok_or_else(|| bad("crates", "missing"))?
            .as_object()
            .ok_or_else(|| bad("crates", "not a table"))?;
        let mut crates = BTreeMap::new();
        for (name, entry) in crates_value {
            crates.insert(name.clone(), role(&format!("crates.{name}"), entry)?);
        }
        Ok(Self {
            external: names(table.get("external"), "external")?,
            dev_tools: names(table.get("dev-tools"), "dev-tools")?,
            crates,
        })
    }

    /// The layer of a model crate; `None` for tools and unlisted crates.
    pub(crate) fn layer(&self, name: &str) -> Option<u64> {
        match self.crates.get(name) {
            Some(Role::Model { layer, .. }) => Some(*layer),
            Some(Role::Tool | Role::Adapter) | None => None,
        }
    }

    /// Whether the crate is listed as a tool.
    pub(crate) fn is_tool(&self, name: &str) -> bool {
        self.crates.get(name) == Some(&Role::Tool)
    }

    /// Whether the crate is listed as an adapter.
    pub(crate) fn is_adapter(&self, name: &str) -> bool {
        self.crates.get(name) == Some(&Role::Adapter)
    }
}

fn role(path: &str, entry: &Value) -> Result<Role, XtaskError> {
    let entry = entry.as_object().ok_or_else(|| bad(path, "not a table"))?;
    if let Some(key) = entry
        .keys()
        .find(|key| !["layer", "tool", "adapter", "allow"].contains(&key.as_str()))
    {
        return Err(bad(&format!("{path}.{key}"), "unknown key"));
    }
    if let Some(adapter) = entry.get("adapter") {
        return match adapter {
            Value::Bool(true) if entry.len() == 1 => Ok(Role::Adapter),
            Value::Bool(true) if entry.contains_key("allow") => Err(bad(
                &format!("{path}.allow"),
                "adapters may use any crate, allow is for model crates",
            )),
            Value::Bool(true) => Err(bad(path, "an adapter has no layer and is not a tool")),
            _ => Err(bad(&format!("{path}.adapter"), "must be true")),
        };
    }
    match (entry.get("layer"), entry.get("tool")) {
        (Some(layer), None) => Ok(Role::Model {
            layer: layer
                .as_u64()
                .ok_or_else(|| bad(&format!("{path}.layer"), "not a non-negative integer"))?,
            allow: names(entry.get("allow"), &format!("{path}.allow"))?,
        }),
        (None, Some(Value::Bool(true))) if !entry.contains_key("allow") => Ok(Role::Tool),
        (None, Some(Value::Bool(true))) => Err(bad(
            &format!("{path}.allow"),
            "tools may use any crate, allow is for model crates",
        )),
        (None, Some(_)) => Err(bad(&format!("{path}.tool"), "must be true")),
        (Some(_), Some(_)) => Err(bad(path, "has both layer and tool")),
        (None, None) => Err(bad(path, "needs layer = N, tool = true or adapter = true")),
    }
}

fn names(value: Option<&Value>, path: &str) -> Result<BTreeSet<String>, XtaskError> {
    let Some(value) = value else {
        return Ok(BTreeSet::new());
    };
    let items = value
        .as_array()
        .ok_or_else(|| bad(path, "not an array of crate names"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad(&format!("{path}[{i}]"), "not a string"))
        })
        .collect()
}

fn bad(path: &str, reason: &str) -> XtaskError {
    let message = if path.is_empty() {
        reason.to_owned()
    } else {
        format!("{path}: {reason}")
    };
    XtaskError::LayerTable { message }
}
