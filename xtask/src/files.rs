//! Rules on files rather than on crates and modules: how long a model crate's source file
//! may be, and which documents the repository's text may cite.

use std::{
    fs,
    path::{Path, PathBuf},
};

use crate::error::XtaskError;

#[cfg(test)]
mod tests;

/// The most lines a source file of a model crate may have (`tests.rs` files and `tests/`
/// folders aside): a longer file is almost always two concepts.
pub(crate) const MAX_SOURCE_LINES: usize = 700;

/// Words that cite a numbered part of a document the repository does not hold when a
/// number follows them: "section 11", "invariant 5", "issue 14".
const NUMBERED_PARTS: [&str; 3] = ["section", "invariant", "issue"];

/// Names of documents the repository does not hold, as they are cited.
const OUTSIDE_DOCUMENTS: [&str; 3] = ["design.md", "solti's readme", "seeds/readme"];

/// The source files of a model crate (`src/**/*.rs` under `crate_dir`, `tests.rs` files and
/// `tests/` folders aside) that are over [`MAX_SOURCE_LINES`], one line each with its
/// length, paths relative to `workspace_root`.
pub(crate) fn long_source_files(
    workspace_root: &Path,
    crate_dir: &Path,
) -> Result<Vec<String>, XtaskError> {
    let mut violations = Vec::new();
    let files = files_under(&crate_dir.join("src"), &|path| {
        path.file_name().is_some_and(|name| name == "tests")
    })?;
    for file in files {
        let is_rust = file.extension().is_some_and(|ext| ext == "rs");
        if !is_rust || file.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let lines = read(&file)?.lines().count();
        if lines > MAX_SOURCE_LINES {
            violations.push(format!(
                "{}: {lines} lines (at most {MAX_SOURCE_LINES})",
                relative(workspace_root, &file).display()
            ));
        }
    }
    Ok(violations)
}

/// Every line of `crates/`, `docs/` and `README.md` under `workspace_root` that cites a
/// document the repository does not hold, as `file:line: cites "..."`.
///
/// Build output (`target/`) and hidden folders are left out, and so are files that are
/// not UTF-8 text.
pub(crate) fn outside_citations(workspace_root: &Path) -> Result<Vec<String>, XtaskError> {
    let skip = |path: &Path| {
        path.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name == "target" || name.starts_with('.'))
    };
    let mut files = files_under(&workspace_root.join("crates"), &skip)?;
    files.extend(files_under(&workspace_root.join("docs"), &skip)?);
    let readme = workspace_root.join("README.md");
    if readme.is_file() {
        files.push(readme);
    }
    let mut violations = Vec::new();
    for file in files {
        let Ok(text) = String::from_utf8(fs::read(&file).map_err(|source| XtaskError::Io {
            path: file.clone(),
            source,
        })?) else {
            continue;
        };
        for (index, line) in text.lines().enumerate() {
            let found = citations(line);
            if !found.is_empty() {
                let quoted: Vec<String> = found.iter().map(|c| format!("\"{c}\"")).collect();
                violations.push(format!(
                    "{}:{}: cites {}",
                    relative(workspace_root, &file).display(),
                    index + 1,
                    quoted.join(", ")
                ));
            }
        }
    }
    Ok(violations)
}

/// The phrases of `line` that cite a document the repository does not hold, as written.
///
/// Compared without regard to case: a numbered source document (`seed 003`, `seeds/004`),
/// a numbered part of an outside document (`section 11`, `§ 11`, `invariant 5`,
/// `issue 14`), and outside documents by name (`DESIGN.md`, `solti's README`). A random
/// seed (`--seed 42`) and a section without a number are not citations.
pub(crate) fn citations(line: &str) -> Vec<&str> {
    // ASCII lowercasing keeps every byte where it was, so offsets index `line` too.
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let at_word = lower.is_char_boundary(start)
            && !lower[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let end = if at_word {
            citation_at(&lower, start)
        } else {
            None
        };
        match end.and_then(|end| line.get(start..end)) {
            Some(cited) => {
                found.push(cited);
                start += cited.len();
            }
            None => start += 1,
        }
    }
    found
}

/// The end of the citation that starts at byte `start` of the lowercased `line`, if one does.
fn citation_at(line: &str, start: usize) -> Option<usize> {
    let rest = line.get(start..)?;
    if let Some(name) = OUTSIDE_DOCUMENTS
        .iter()
        .find(|name| rest.starts_with(*name))
    {
        return Some(start + name.len());
    }
    if let Some(after) = rest.strip_prefix("seed") {
        // `seed 003`, `seed003`, `seeds/004`: a zero-padded number names a source document.
        let after = after.strip_prefix('s').unwrap_or(after);
        let after = after.strip_prefix([' ', '/', '_', '-']).unwrap_or(after);
        let number = after.strip_prefix('0')?;
        return number
            .starts_with(|c: char| c.is_ascii_digit())
            .then(|| line.len() - digits_end(number));
    }
    let after = if let Some(after) = rest.strip_prefix('§') {
        after.strip_prefix(' ').unwrap_or(after)
    } else {
        let word = NUMBERED_PARTS.iter().find(|word| rest.starts_with(*word))?;
        let after = &rest[word.len()..];
        let after = after.strip_prefix('s').unwrap_or(after);
        after.strip_prefix(' ')?
    };
    after
        .starts_with(|c: char| c.is_ascii_digit())
        .then(|| line.len() - digits_end(after))
}

/// What is left of `text` after its leading digits.
fn digits_end(text: &str) -> usize {
    text.trim_start_matches(|c: char| c.is_ascii_digit()).len()
}

/// Every file under `dir` (none if it does not exist), sorted, not descending into folders
/// for which `skip` holds.
fn files_under(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>, XtaskError> {
    let mut files = Vec::new();
    if !dir.is_dir() {
        return Ok(files);
    }
    let io = |source| XtaskError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if !skip(&path) {
                files.extend(files_under(&path, skip)?);
            }
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

fn read(file: &Path) -> Result<String, XtaskError> {
    fs::read_to_string(file).map_err(|source| XtaskError::Io {
        path: file.to_path_buf(),
        source,
    })
}

fn relative<'a>(root: &Path, path: &'a Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}
