//! A small Rust source scanner: module declarations and `crate::`/`super::`/`self::` paths.
//!
//! It strips comments and character literals, keeps string literals as tokens, then reads
//! tokens; `#[cfg(test)]` items are skipped. Paths count wherever they are written: in
//! code, inside macro invocations, and inside attributes (`#[error("{}", crate::a::B)]`),
//! including an attribute string that is a whole path (`#[serde(with = "crate::a::b")]`);
//! `doc` attributes are prose and are left out.
//! It is not a parser: it finds what the module graph needs and ignores the rest.

#[cfg(test)]
mod tests;

/// One token: an identifier, `::`, a string literal (its text as written, escapes kept),
/// or another punctuation character.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Str(String),
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// How a path was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// A path in code, such as `crate::kind::Kind::new()`.
    Code,
    /// A `use` leaf importing `name` (its alias when renamed); `None` for a glob.
    Use(Option<String>),
}

/// A path named in a module, as written (not yet resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawRef {
    /// The absolute path of the module the path appears in.
    pub(crate) module: Vec<String>,
    /// The 1-based line of the path's last segment.
    pub(crate) line: usize,
    /// The segments, starting with `crate`, `self`, `super`, or (for `use`) any name.
    pub(crate) segments: Vec<String>,
    pub(crate) kind: RefKind,
}

/// What one file declares and names.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FileScan {
    /// Inline modules (`mod x { ... }`), as absolute paths.
    pub(crate) inline_modules: Vec<Vec<String>>,
    /// File modules (`mod x;`), as absolute paths.
    pub(crate) file_modules: Vec<Vec<String>>,
    /// Paths found outside `#[cfg(test)]` code.
    pub(crate) refs: Vec<RawRef>,
}

/// Scans the source of the module at absolute path `module`.
pub(crate) fn scan(source: &str, module: &[String]) -> FileScan {
    let tokens = lex(source);
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        out: FileScan::default(),
    };
    parser.block(module);
    parser.out
}

fn lex(source: &str) -> Vec<Token> {
    let c: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while let Some(&ch) = c.get(i) {
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while c.get(i).is_some_and(|&x| x != '\n') {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            i = skip_block_comment(&c, i, &mut line);
        } else if ch == '"' {
            let first_line = line;
            let (end, text) = read_string(&c, i + 1, &mut line);
            out.push(Token {
                tok: Tok::Str(text),
                line: first_line,
            });
            i = end;
        } else if ch == '\'' {
            i = skip_quote(&c, i, &mut line);
        } else if ch == '_' || ch.is_alphabetic() {
            let start = i;
            while c.get(i).is_some_and(|&x| x == '_' || x.is_alphanumeric()) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let after = c.get(i).copied();
            let first_line = line;
            match (word.as_str(), after) {
                ("b" | "c", Some('"')) => {
                    let (end, text) = read_string(&c, i + 1, &mut line);
                    out.push(Token {
                        tok: Tok::Str(text),
                        line: first_line,
                    });
                    i = end;
                }
                ("b", Some('\'')) => i = skip_quote(&c, i, &mut line),
                ("r" | "br" | "cr", Some('"' | '#')) => {
                    if let Some((end, text)) = read_raw_string(&c, i, &mut line) {
                        out.push(Token {
                            tok: Tok::Str(text),
                            line: first_line,
                        });
                        i = end;
                    } else if word == "r" && after == Some('#') {
                        // A raw identifier, r#name: the name is lexed next.
                        i += 1;
                    } else {
                        out.push(Token {
                            tok: Tok::Ident(word),
                            line,
                        });
                    }
                }
                _ => out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                }),
            }
        } else if ch.is_ascii_digit() {
            while c.get(i).is_some_and(|&x| x == '_' || x.is_alphanumeric()) {
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

/// Skips a (nested) block comment starting at `i`; returns the index after it.
fn skip_block_comment(c: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0usize;
    while let Some(&ch) = c.get(i) {
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('*') {
            depth += 1;
            i += 2;
        } else if ch == '*' && next == Some('/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if ch == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// Reads the body of a string whose opening quote is before `i`: the index after its
/// closing quote, and its text as written.
fn read_string(c: &[char], mut i: usize, line: &mut usize) -> (usize, String) {
    let start = i;
    while let Some(&ch) = c.get(i) {
        match ch {
            '\\' => {
                if c.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '"' => return (i + 1, text(c, start, i)),
            '\n' => {
                *line += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    (i, text(c, start, i))
}

/// The characters from `start` to `end`, clamped to the source.
fn text(c: &[char], start: usize, end: usize) -> String {
    c.get(start..end.min(c.len()))
        .unwrap_or_default()
        .iter()
        .collect()
}

/// Reads a raw string whose `#`s or quote start at `i`: the index after it and its text;
/// `None` if it is not one.
fn read_raw_string(c: &[char], mut i: usize, line: &mut usize) -> Option<(usize, String)> {
    let mut hashes = 0;
    while c.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if c.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    let start = i;
    while let Some(&ch) = c.get(i) {
        if ch == '\n' {
            *line += 1;
        }
        i += 1;
        if ch == '"' && (0..hashes).all(|h| c.get(i + h) == Some(&'#')) {
            return Some((i + hashes, text(c, start, i - 1)));
        }
    }
    Some((i, text(c, start, i)))
}

/// Skips a character literal at `i` (the quote), or just the quote of a lifetime.
fn skip_quote(c: &[char], i: usize, line: &mut usize) -> usize {
    if c.get(i + 1) == Some(&'\\') {
        let mut j = i + 3;
        while c.get(j).is_some_and(|&x| x != '\'' && x != '\n') {
            j += 1;
        }
        j + 1
    } else if c.get(i + 2) == Some(&'\'') {
        if c.get(i + 1) == Some(&'\n') {
            *line += 1;
        }
        i + 3
    } else {
        i + 1
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    out: FileScan,
}

impl<'a> Parser<'a> {
    fn tok(&self, offset: usize) -> Option<&'a Tok> {
        self.tokens.get(self.pos + offset).map(|token| &token.tok)
    }

    fn ident(&self, offset: usize) -> Option<&'a str> {
        match self.tok(offset) {
            Some(Tok::Ident(name)) => Some(name),
            _ => None,
        }
    }

    fn is_punct(&self, offset: usize, ch: char) -> bool {
        self.tok(offset) == Some(&Tok::Punct(ch))
    }

    fn line(&self) -> usize {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(1, |token| token.line)
    }

    /// Reads the items of a module body until its closing brace (or the end of the file).
    fn block(&mut self, module: &[String]) {
        let mut depth = 0usize;
        while let Some(tok) = self.tok(0) {
            match tok {
                Tok::Punct('#') => {
                    let inner = self.is_punct(1, '!');
                    if self.attribute(module) {
                        if inner {
                            self.skip_to_close(depth);
                            return;
                        }
                        self.skip_item();
                    }
                }
                Tok::Ident(word) if word == "mod" => self.module(module),
                Tok::Ident(word) if word == "use" => {
                    self.pos += 1;
                    self.use_declaration(module);
                }
                Tok::Ident(word)
                    if ["crate", "self", "super"].contains(&word.as_str())
                        && self.tok(1) == Some(&Tok::PathSep) =>
                {
                    self.code_path(module);
                }
                Tok::Punct('{') => {
                    depth += 1;
                    self.pos += 1;
                }
                Tok::Punct('}') => {
                    self.pos += 1;
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// At `#`: consumes an attribute and says whether it is `cfg(test)` or
    /// `cfg(all(.., test, ..))`; otherwise records the paths inside it (but not inside `doc`).
    fn attribute(&mut self, module: &[String]) -> bool {
        let open = if self.is_punct(1, '!') { 2 } else { 1 };
        if !self.is_punct(open, '[') {
            self.pos += 1;
            return false;
        }
        self.pos += open + 1;
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(tok) = self.tok(0) {
            self.pos += 1;
            match tok {
                Tok::Punct('[') => depth += 1,
                Tok::Punct(']') if depth == 0 => break,
                Tok::Punct(']') => depth -= 1,
                _ => {}
            }
        }
        let after = self.pos;
        let end = after.saturating_sub(1).max(start);
        let inner: Vec<&Tok> = self.tokens[start..end].iter().map(|t| &t.tok).collect();
        if cfg_requires_test(&inner) {
            return true;
        }
        if matches!(inner.first(), Some(Tok::Ident(word)) if word == "doc") {
            return false;
        }
        self.pos = start;
        while self.pos < end {
            match self.tok(0) {
                Some(Tok::Ident(word))
                    if ["crate", "self", "super"].contains(&word.as_str())
                        && self.tok(1) == Some(&Tok::PathSep) =>
                {
                    self.code_path(module);
                }
                Some(Tok::Str(text)) => {
                    if let Some(segments) = string_path(text) {
                        let line = self.line();
                        self.record(module, line, segments, RefKind::Code);
                    }
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
        self.pos = after;
        false
    }

    /// Skips the item after a `#[cfg(test)]`: up to its `;` or through its `{ ... }` body.
    fn skip_item(&mut self) {
        let mut depth = 0usize;
        while let Some(tok) = self.tok(0) {
            match tok {
                Tok::Punct('(' | '[') => depth += 1,
                Tok::Punct(')' | ']') => depth = depth.saturating_sub(1),
                Tok::Punct(';') if depth == 0 => {
                    self.pos += 1;
                    return;
                }
                Tok::Punct('{') if depth == 0 => {
                    self.pos += 1;
                    self.skip_to_close(0);
                    return;
                }
                // The enclosing block ends: the item was its last expression.
                Tok::Punct('}') if depth == 0 => return,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips past the `}` that closes a block we are `depth` braces inside.
    fn skip_to_close(&mut self, mut depth: usize) {
        while let Some(tok) = self.tok(0) {
            self.pos += 1;
            match tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => return,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
    }

    /// At `mod`: records `mod x;` or reads the body of `mod x { ... }`.
    fn module(&mut self, module: &[String]) {
        let Some(name) = self.ident(1).map(str::to_owned) else {
            self.pos += 1;
            return;
        };
        let mut child = module.to_vec();
        child.push(name);
        if self.is_punct(2, ';') {
            self.pos += 3;
            self.out.file_modules.push(child);
        } else if self.is_punct(2, '{') {
            self.pos += 3;
            self.out.inline_modules.push(child.clone());
            self.block(&child);
        } else {
            self.pos += 2;
        }
    }

    /// After `use`: records every leaf of the use tree, up to the `;`.
    fn use_declaration(&mut self, module: &[String]) {
        if self.tok(0) == Some(&Tok::PathSep) {
            // `use ::name::...` always names an external crate.
        } else {
            self.use_tree(module, Vec::new());
        }
        while let Some(tok) = self.tok(0) {
            match tok {
                Tok::Punct(';') => {
                    self.pos += 1;
                    return;
                }
                Tok::Punct('}') => return,
                _ => self.pos += 1,
            }
        }
    }

    fn use_tree(&mut self, module: &[String], mut segments: Vec<String>) {
        loop {
            let line = self.line();
            match self.tok(0) {
                Some(Tok::Ident(name)) => {
                    let name = name.clone();
                    self.pos += 1;
                    if self.tok(0) == Some(&Tok::PathSep) {
                        self.pos += 1;
                        segments.push(name);
                        continue;
                    }
                    let alias = if self.ident(0) == Some("as") {
                        self.pos += 2;
                        self.tokens
                            .get(self.pos - 1)
                            .and_then(|token| match &token.tok {
                                Tok::Ident(alias) if alias != "_" => Some(alias.clone()),
                                _ => None,
                            })
                    } else if name == "self" {
                        segments.last().cloned()
                    } else {
                        Some(name.clone())
                    };
                    if name != "self" {
                        segments.push(name);
                    }
                    self.record(module, line, segments, RefKind::Use(alias));
                    return;
                }
                Some(Tok::Punct('*')) => {
                    self.pos += 1;
                    self.record(module, line, segments, RefKind::Use(None));
                    return;
                }
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    loop {
                        if self.is_punct(0, '}') {
                            self.pos += 1;
                            return;
                        }
                        let before = self.pos;
                        self.use_tree(module, segments.clone());
                        if self.is_punct(0, ',') {
                            self.pos += 1;
                        } else if self.pos == before || !self.is_punct(0, '}') {
                            return;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// At `crate`, `self` or `super` followed by `::`: records the path.
    fn code_path(&mut self, module: &[String]) {
        let mut segments = Vec::new();
        let mut line = self.line();
        while let Some(name) = self.ident(0).map(str::to_owned) {
            line = self.line();
            segments.push(name);
            self.pos += 1;
            if self.tok(0) == Some(&Tok::PathSep) && self.ident(1).is_some() {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.record(module, line, segments, RefKind::Code);
    }

    fn record(&mut self, module: &[String], line: usize, segments: Vec<String>, kind: RefKind) {
        if !segments.is_empty() {
            self.out.refs.push(RawRef {
                module: module.to_vec(),
                line,
                segments,
                kind,
            });
        }
    }
}

/// The segments of a string that is a whole `crate::`, `self::` or `super::` path, as serde's
/// `with = "crate::wire::timestamp"` is; `None` for any other string.
fn string_path(text: &str) -> Option<Vec<String>> {
    let segments: Vec<String> = text.trim().split("::").map(str::to_owned).collect();
    let is_name = |s: &String| {
        s.chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_alphabetic())
            && s.chars().all(|c| c == '_' || c.is_alphanumeric())
    };
    let first = segments.first()?;
    (segments.len() > 1
        && ["crate", "self", "super"].contains(&first.as_str())
        && segments.iter().all(is_name))
    .then_some(segments)
}

/// Whether an attribute's tokens are `cfg(test)` or `cfg(all(..., test, ...))`.
fn cfg_requires_test(inner: &[&Tok]) -> bool {
    let is = |tok: &Tok, name: &str| matches!(tok, Tok::Ident(word) if word == name);
    let [cfg, Tok::Punct('('), predicate @ .., Tok::Punct(')')] = inner else {
        return false;
    };
    if !is(cfg, "cfg") {
        return false;
    }
    match predicate {
        [test] => is(test, "test"),
        [all, Tok::Punct('('), arguments @ .., Tok::Punct(')')] if is(all, "all") => {
            let mut depth = 0usize;
            let mut argument: Vec<&Tok> = Vec::new();
            for tok in arguments.iter().copied().chain([&Tok::Punct(',')]) {
                match tok {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') => depth = depth.saturating_sub(1),
                    Tok::Punct(',') if depth == 0 => {
                        if let [single] = argument.as_slice()
                            && is(single, "test")
                        {
                            return true;
                        }
                        argument.clear();
                        continue;
                    }
                    _ => {}
                }
                argument.push(tok);
            }
            false
        }
        _ => false,
    }
}
