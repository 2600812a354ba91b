//! Reading and checking a `toolset.yaml`: every problem in one pass, each
//! with its field path and, where known, line and column.
//!
//! The YAML is read into a loose JSON value first, so one bad field does
//! not hide the others; each field is then checked and copied into the
//! typed [`ToolsetManifest`], which exists only when there are no errors.
//! Unknown keys are warnings (a newer manifest may have them) and are kept.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::interp;
use super::locate::Locations;
use super::manifest::ToolsetManifest;
pub(crate) use hints::did_you_mean;
use limits::within_limits;
pub use limits::{MAX_DEPTH, MAX_MANIFEST_BYTES, MAX_TIMEOUT_S};

pub use crate::diagnostics::{MANIFEST_FILE, Problem, Severity};

/// The outcome of reading a manifest.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Present when there is no error.
    pub manifest: Option<ToolsetManifest>,
    pub problems: Vec<Problem>,
}

/// `--strict`: every warning becomes an error (an unknown key is then a
/// mistake to fix, not a newer manifest's field).
pub fn strict(problems: &mut [Problem]) {
    for p in problems.iter_mut().filter(|p| p.severity == Severity::Warning) {
        p.severity = Severity::Error;
        p.message.push_str(" [an error in strict mode]");
    }
}

impl Checked {
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.severity == Severity::Error)
    }
}

/// The keys each mapping of a manifest takes: the validator warns about any
/// other, and the JSON Schema ([`super::schema`]) allows exactly these (a
/// test compares them).
pub(crate) const TOP_KEYS: &[&str] = &[
    "manifest_version",
    "id",
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "icon",
    "prefix",
    "scope",
    "python",
    "tools",
    "tools_from",
    "mcp_servers",
    "user_config",
];
pub(crate) const PYTHON_KEYS: &[&str] = &["requirements"];
#[cfg(test)]
pub(crate) use config::CONFIG_KEYS;
#[cfg(test)]
pub(crate) use parts::TOOL_KEYS;
#[cfg(test)]
pub(crate) use server::SERVER_KEYS;

pub(crate) fn is_tool_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

fn is_py_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The module file candidates of an entrypoint (`tools.a:run` →
/// `tools/a.py`, `tools/a/__init__.py`), or `None` if malformed.
pub fn entrypoint_module_files(entrypoint: &str) -> Option<[String; 2]> {
    let (module, func) = entrypoint.split_once(':')?;
    if !is_py_ident(func) || !module.split('.').all(is_py_ident) {
        return None;
    }
    let base = module.replace('.', "/");
    Some([format!("{base}.py"), format!("{base}/__init__.py")])
}

struct Checker<'a> {
    locs: &'a Locations,
    problems: Vec<Problem>,
    files: &'a BTreeSet<String>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a mapping".into(),
    }
}

impl Checker<'_> {
    fn push(&mut self, severity: Severity, path: &str, message: String, key_pos: bool) {
        let pos = if key_pos {
            self.locs.key(path)
        } else {
            self.locs.find(path)
        };
        self.problems.push(Problem {
            severity,
            file: None,
            path: path.to_owned(),
            line: pos.map(|p| p.line),
            column: pos.map(|p| p.column),
            message,
        });
    }

    fn error(&mut self, path: &str, message: impl Into<String>) {
        self.push(Severity::Error, path, message.into(), false);
    }

    fn warn_unknown(&mut self, obj: &Map<String, Value>, path: &str, known: &[&str]) -> BTreeMap<String, Value> {
        let mut extra = BTreeMap::new();
        for (k, v) in obj {
            if !known.contains(&k.as_str()) {
                let message = match did_you_mean(k, known.iter().copied()) {
                    Some(m) => {
                        format!("unknown key `{k}`: did you mean `{m}`? (kept, but this version does not use it)")
                    }
                    None => format!("unknown key `{k}` (kept, but this version does not use it)"),
                };
                self.push(Severity::Warning, &join(path, k), message, true);
                extra.insert(k.clone(), v.clone());
            }
        }
        extra
    }

    /// A string field; `None` (and an error if `required`) when absent or
    /// of another type.
    fn string(&mut self, obj: &Map<String, Value>, path: &str, key: &str, required: bool) -> Option<String> {
        let p = join(path, key);
        match obj.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            None | Some(Value::Null) if !required => None,
            None | Some(Value::Null) => {
                self.error(&p, format!("`{key}` is required"));
                None
            }
            Some(other) => {
                self.error(&p, format!("expected a string, got {}", describe(other)));
                None
            }
        }
    }

    fn bool(&mut self, obj: &Map<String, Value>, path: &str, key: &str, default: bool) -> bool {
        match obj.get(key) {
            None | Some(Value::Null) => default,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.error(
                    &join(path, key),
                    format!("expected true or false, got {}", describe(other)),
                );
                default
            }
        }
    }

    fn string_list(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Vec<String> {
        let p = join(path, key);
        match obj.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::String(s) => out.push(s.clone()),
                        other => self.error(
                            &format!("{p}[{i}]"),
                            format!("expected a string, got {}", describe(other)),
                        ),
                    }
                }
                out
            }
            Some(other) => {
                self.error(&p, format!("expected a list of strings, got {}", describe(other)));
                Vec::new()
            }
        }
    }

    fn bundle_file(&mut self, path: &str, rel: &str, what: &str) {
        match crate::store::path::normalize(rel.strip_prefix("./").unwrap_or(rel)) {
            Ok(p) if self.files.contains(&p) => {}
            Ok(p) => self.error(path, format!("{what} {p:?} is not in the bundle")),
            Err(_) => self.error(
                path,
                format!("{what} must be a relative path inside the bundle, got {rel:?}"),
            ),
        }
    }

    fn templates(&mut self, path: &str, v: &Value) {
        match v {
            Value::String(s) => {
                if let Err(e) = interp::parse(s) {
                    self.error(path, format!("bad interpolation in {s:?}: {e}"));
                }
            }
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| self.templates(&format!("{path}[{i}]"), x)),
            Value::Object(m) => m.iter().for_each(|(k, x)| self.templates(&join(path, k), x)),
            _ => {}
        }
    }
}

/// Reads and checks a manifest. `files` are the bundle's file paths
/// (normalized, `/`-separated), used to check entry points, artifacts and
/// the icon.
pub fn check(text: &str, files: &BTreeSet<String>) -> Checked {
    // A byte order mark is not part of the document (YAML 1.2 §5.2).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A hostile document must not cost more than its size: checked before
    // the full parses (whose cost grows with nesting depth squared).
    if let Err(problem) = within_limits(text) {
        return Checked {
            manifest: None,
            problems: vec![problem],
        };
    }
    let locs = Locations::of(text);
    let mut c = Checker {
        locs: &locs,
        problems: Vec::new(),
        files,
    };
    // Merge keys (`<<: *common`) applied as PyYAML and most YAML tools
    // apply them: a field shared through one must not be dropped.
    // A document the merging reader refuses (a key given twice, which is
    // reported below with its position) is read as before.
    let parsed = text::parse::<Value>(text).or_else(|_| serde_norway::from_str::<Value>(text));
    let root: Value = match parsed {
        Ok(v) => v,
        Err(e) => {
            return Checked {
                manifest: None,
                problems: vec![hints::yaml_problem(text, &e)],
            };
        }
    };
    for (path, at) in &locs.duplicates {
        c.problems.push(Problem {
            severity: Severity::Error,
            file: None,
            path: path.clone(),
            line: Some(at.line),
            column: Some(at.column),
            message: "this key is given twice in the same mapping (only one would be used)".into(),
        });
    }
    let Value::Object(obj) = root else {
        c.error(
            "",
            format!(
                "expected a mapping of fields (id, name, version, tools…), got {}",
                describe(&root)
            ),
        );
        return Checked {
            manifest: None,
            problems: c.problems,
        };
    };
    let manifest = root::check_root(&mut c, &obj);
    let ok = c.problems.iter().all(|p| p.severity != Severity::Error);
    Checked {
        manifest: manifest.filter(|_| ok),
        problems: c.problems,
    }
}

mod config;
mod hints;
mod limits;
mod parts;
pub mod requirement;
pub(crate) mod requirements_txt;
mod root;
mod server;
pub mod text;
