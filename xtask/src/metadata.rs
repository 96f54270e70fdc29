//! Reads the workspace through `cargo metadata --format-version 1 --no-deps`.

use std::{
    fmt,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

use crate::error::XtaskError;

/// The workspace as `check-layering` sees it.
#[derive(Debug)]
pub(crate) struct Workspace {
    /// The directory holding the workspace's root Cargo.toml.
    pub(crate) root: PathBuf,
    /// The workspace members, in `cargo metadata` order.
    pub(crate) members: Vec<Member>,
    /// `[workspace.metadata.layers]`, if present.
    pub(crate) layers: Option<Value>,
}

/// One workspace member.
#[derive(Debug)]
pub(crate) struct Member {
    pub(crate) name: String,
    /// The directory holding the member's Cargo.toml.
    pub(crate) dir: PathBuf,
    pub(crate) targets: Vec<Target>,
    pub(crate) deps: Vec<Dep>,
}

/// One build target of a member.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) kinds: Vec<String>,
    pub(crate) src_path: PathBuf,
}

/// One dependency declaration of a member.
#[derive(Debug)]
pub(crate) struct Dep {
    /// The package name (not the local name of a renamed dependency).
    pub(crate) name: String,
    /// The local name when the dependency is renamed with `package = "..."`.
    pub(crate) rename: Option<String>,
    pub(crate) kind: DepKind,
    /// Whether it comes from a path (no registry or git source).
    pub(crate) is_path: bool,
}

/// The kind of a dependency declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DepKind {
    Normal,
    Build,
    Dev,
}

impl fmt::Display for DepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Normal => "normal",
            Self::Build => "build",
            Self::Dev => "dev",
        })
    }
}

impl Workspace {
    /// Runs `cargo metadata` (the cargo in `$CARGO`, else `cargo` on the path).
    pub(crate) fn load(manifest_path: Option<&Path>) -> Result<Self, XtaskError> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command.args(["metadata", "--format-version", "1", "--no-deps"]);
        if let Some(path) = manifest_path {
            command.arg("--manifest-path").arg(path);
        }
        let output = command.output().map_err(|err| XtaskError::Cargo {
            message: format!("cannot run cargo: {err}"),
        })?;
        if !output.status.success() {
            return Err(XtaskError::Cargo {
                message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        let json: Value =
            serde_json::from_slice(&output.stdout).map_err(|err| XtaskError::Metadata {
                message: format!("not JSON: {err}"),
            })?;
        Self::from_json(&json)
    }

    /// Builds the workspace view from `cargo metadata` JSON.
    pub(crate) fn from_json(json: &Value) -> Result<Self, XtaskError> {
        let root = PathBuf::from(str_at(json, "workspace_root")?);
        let member_ids = array_at(json, "workspace_members")?;
        let mut members = Vec::new();
        for (index, package) in array_at(json, "packages")?.iter().enumerate() {
            let id = &package["id"];
            if member_ids.contains(id) {
                members.push(member(package, index)?);
            }
        }
        let layers = json
            .get("metadata")
            .and_then(|metadata| metadata.get("layers"))
            .cloned();
        Ok(Self {
            root,
            members,
            layers,
        })
    }

    /// The member with this package name.
    pub(crate) fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|member| member.name == name)
    }

    /// Whether `dep` points at a workspace member.
    pub(crate) fn is_internal(&self, dep: &Dep) -> bool {
        dep.is_path && self.member(&dep.name).is_some()
    }

    /// `path` relative to the workspace root, for messages.
    pub(crate) fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }
}

fn member(package: &Value, index: usize) -> Result<Member, XtaskError> {
    let at = |field: &str| format!("packages[{index}].{field}");
    let name = package["name"]
        .as_str()
        .ok_or_else(|| missing(&at("name")))?
        .to_owned();
    let manifest_path = package["manifest_path"]
        .as_str()
        .ok_or_else(|| missing(&at("manifest_path")))?;
    let dir = Path::new(manifest_path)
        .parent()
        .unwrap_or(Path::new(""))
        .to_path_buf();
    let mut targets = Vec::new();
    for (t, target) in array_at(package, "targets")?.iter().enumerate() {
        let kinds = target["kind"]
            .as_array()
            .ok_or_else(|| missing(&at(&format!("targets[{t}].kind"))))?
            .iter()
            .filter_map(|kind| kind.as_str().map(str::to_owned))
            .collect();
        let src_path = target["src_path"]
            .as_str()
            .ok_or_else(|| missing(&at(&format!("targets[{t}].src_path"))))?;
        targets.push(Target {
            kinds,
            src_path: PathBuf::from(src_path),
        });
    }
    let mut deps = Vec::new();
    for (d, dep) in array_at(package, "dependencies")?.iter().enumerate() {
        let kind = match dep["kind"].as_str() {
            None => DepKind::Normal,
            Some("dev") => DepKind::Dev,
            Some("build") => DepKind::Build,
            Some(other) => {
                return Err(XtaskError::Metadata {
                    message: format!(
                        "{}: unknown dependency kind \"{other}\"",
                        at(&format!("dependencies[{d}].kind"))
                    ),
                });
            }
        };
        deps.push(Dep {
            name: dep["name"]
                .as_str()
                .ok_or_else(|| missing(&at(&format!("dependencies[{d}].name"))))?
                .to_owned(),
            rename: dep["rename"].as_str().map(str::to_owned),
            kind,
            is_path: dep["source"].is_null(),
        });
    }
    Ok(Member {
        name,
        dir,
        targets,
        deps,
    })
}

fn str_at<'a>(json: &'a Value, field: &str) -> Result<&'a str, XtaskError> {
    json[field].as_str().ok_or_else(|| missing(field))
}

fn array_at<'a>(json: &'a Value, field: &str) -> Result<&'a Vec<Value>, XtaskError> {
    json[field].as_array().ok_or_else(|| missing(field))
}

fn missing(field: &str) -> XtaskError {
    XtaskError::Metadata {
        message: format!("{field}: missing or of the wrong type"),
    }
}
