//! `mcpServers` JSON — the config files of Claude Desktop, Claude Code,
//! Cursor, Cline, Windsurf, VS Code (`servers`) — as servers to add. The
//! preview says what each would run before anything is added, as the
//! toolset consent step does; values of `env` and `headers` go to the
//! secret store like any added server's.
//!
//! What those apps do when they start a server is done once, here, so the
//! server is the one they would have run: `${VAR}` and `${VAR:-default}`
//! are expanded from this environment (Claude Code, Cursor), a relative
//! path in `command` or `args` is made absolute against the entry's `cwd`,
//! `"disabled": true` (Cline, Windsurf) adds the server turned off, and a
//! `"timeout"` (Cline's seconds, Claude Code's milliseconds) becomes the
//! server's call timeout.
//! What cannot be done (a variable that is not set, VS Code's
//! `${input:…}` prompts, two names that make one id) is the entry's
//! problem, said before anything is added.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Mcp;
use super::servers::{NewServer, ServerRecord, check_id};
use crate::secrets::Secret;
use crate::{Error, Result};

/// One server found in a config, and whether it can be added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportCandidate {
    pub id: String,
    /// The command line or the URL: what adding it would run or reach.
    pub runs: String,
    pub env_keys: Vec<String>,
    pub header_keys: Vec<String>,
    /// Why it cannot be added, if it cannot (an id in use, SSE, a
    /// variable that is not set).
    pub problem: Option<String>,
    /// What adding it does beyond the above (added turned off, paths made
    /// absolute against its `cwd`).
    pub note: Option<String>,
    /// Its call timeout in seconds, read from the config's `"timeout"`
    /// (Cline's seconds or Claude Code's milliseconds); `None`: the default.
    pub timeout_s: Option<f64>,
}

/// One entry of a config, as it would be added.
#[derive(Debug)]
pub struct Entry {
    pub server: NewServer,
    pub problem: Option<String>,
    pub note: Option<String>,
    /// `"disabled": true`: added turned off.
    pub disabled: bool,
}

fn bad(reason: String) -> Error {
    Error::InvalidData {
        what: "MCP config",
        reason,
    }
}

fn strings(v: Option<&Value>, at: &str) -> Result<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(format!("{at}: every item must be a string")))
            })
            .collect(),
        Some(_) => Err(bad(format!("{at} must be a list of strings"))),
    }
}

fn pairs(v: Option<&Value>, at: &str) -> Result<Vec<(String, String)>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => Ok(m
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => (k.clone(), s.clone()),
                other => (k.clone(), other.to_string()),
            })
            .collect()),
        Some(_) => Err(bad(format!("{at} must be an object of strings"))),
    }
}

/// `text` with `${VAR}` and `${VAR:-default}` replaced from `var`, as the
/// apps that write these configs expand them when they start a server; the
/// reason it cannot be, naming `at`.
/// With `shown` (a command, an argument, a URL: kept in the database and
/// shown as written), only [`PLAIN`] variables are filled in: any other
/// may hold a secret, which goes to the secret store through `env` or
/// `headers` and never into the row.
fn expand(
    text: &str,
    at: &str,
    shown: bool,
    var: &dyn Fn(&str) -> Option<String>,
    read: &mut Vec<String>,
) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &rest[start + 2..start + 2 + len];
        if inner.starts_with("input:") {
            return Err(format!(
                "{at} asks for ${{{inner}}} when VS Code starts the server: add the server by hand with its value"
            ));
        }
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        // VS Code's and Cursor's way to say the same: `${env:NAME}`; their
        // `${userHome}` is HOME.
        let name = match name {
            "userHome" => "HOME",
            n => n.strip_prefix("env:").unwrap_or(n),
        };
        if EDITOR.contains(&name) {
            return Err(format!(
                "{at} uses ${{{name}}}, a variable of the editor that wrote the config: give the path it stands for instead"
            ));
        }
        if shown
            && !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !PLAIN.contains(&name)
        {
            return Err(format!(
                "{at} uses ${{{name}}}, and a command line or address is kept and shown as written: pass it in the server's env or headers instead, or add the server by hand"
            ));
        }
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            // Not a variable reference (`${workspaceFolder}` is one, but of
            // another app's): kept as written.
            out.push_str(&rest[start..start + 3 + len]);
        } else {
            match (var(name), default) {
                (Some(v), _) => {
                    if !read.iter().any(|r| r == name) {
                        read.push(name.to_owned());
                    }
                    out.push_str(&v);
                }
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    return Err(format!(
                        "{at} uses ${{{name}}}, which is not set here: set it and import again, or add the server by hand"
                    ));
                }
            }
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Variables that name a place or a person, never a secret: filled in
/// where a value is kept as written.
const PLAIN: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "PWD",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
];

/// Variables an editor fills in for itself (VS Code's predefined ones):
/// nothing here can stand for them.
const EDITOR: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "workspaceRoot",
    "cwd",
    "file",
    "fileDirname",
    "fileBasename",
    "relativeFile",
    "pathSeparator",
];

/// `p` made absolute against `cwd` when it is a relative path to
/// something there (`./server.py`, `dist/index.js`); anything else (a
/// flag, a package name, a word) is kept.
fn under(cwd: &std::path::Path, p: &str) -> Option<String> {
    let path = std::path::Path::new(p);
    if p.starts_with('-') || path.is_absolute() || !p.contains(['/', '.']) {
        return None;
    }
    let full = cwd.join(path);
    full.exists().then(|| full.display().to_string())
}

/// The servers of a config text, each with what it would run.
pub fn parse(text: &str) -> Result<Vec<Entry>> {
    parse_with(text, &|name| std::env::var(name).ok())
}

/// [`parse`] with variables read from `var`.
pub fn parse_with(text: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Entry>> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .unwrap_or(&root)
        .as_object()
        .ok_or_else(|| bad("expected an object with \"mcpServers\" (or \"servers\")".to_owned()))?;
    let mut out: Vec<Entry> = Vec::new();
    let mut named: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for (name, entry) in servers {
        let at = format!("mcpServers.{name}");
        let id: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or_default();
        let mut problem = check_id(&id).err().map(|e| e.to_string());
        if let Some(first) = named.get(&id) {
            problem = Some(format!(
                "{at} makes the id {id:?}, as {first} does: rename one of them in the config"
            ));
        } else {
            named.insert(id.clone(), at.clone());
        }
        if kind == "sse" {
            problem =
                Some("the old SSE transport is not supported: use the server's streamable HTTP address".to_owned());
        }
        let mut notes = Vec::new();
        let disabled = entry.get("disabled").and_then(Value::as_bool).unwrap_or(false);
        if disabled {
            notes.push("turned off in the config: added turned off".to_owned());
        }
        // What the app that wrote the config would expand when it starts
        // the server; the first thing that cannot be is the problem.
        let mut unexpandable: Option<String> = None;
        let mut read: Vec<String> = Vec::new();
        let mut ex = |text: String, at: String, shown: bool| match expand(&text, &at, shown, var, &mut read) {
            Ok(t) => t,
            Err(why) => {
                unexpandable.get_or_insert(why);
                text
            }
        };
        let command = entry
            .get("command")
            .and_then(Value::as_str)
            .map(|c| ex(c.to_owned(), format!("{at}.command"), true));
        let args: Vec<String> = strings(entry.get("args"), &format!("{at}.args"))?
            .into_iter()
            .enumerate()
            .map(|(i, a)| ex(a, format!("{at}.args[{i}]"), true))
            .collect();
        let url = entry
            .get("url")
            .or_else(|| entry.get("serverUrl"))
            .and_then(Value::as_str)
            .map(|u| ex(u.to_owned(), format!("{at}.url"), true));
        let secret = |v: Option<&Value>,
                      field: &str,
                      ex: &mut dyn FnMut(String, String, bool) -> String|
         -> Result<Vec<(String, Secret)>> {
            Ok(pairs(v, &format!("{at}.{field}"))?
                .into_iter()
                .map(|(k, x)| {
                    let x = ex(x, format!("{at}.{field}.{k}"), false);
                    (k, Secret::new(x))
                })
                .collect())
        };
        let env = secret(entry.get("env"), "env", &mut ex)?;
        let headers = secret(entry.get("headers"), "headers", &mut ex)?;
        // A pasted config can ask for any variable of this environment (an
        // API key of another service) into a header sent to its URL: said.
        if !read.is_empty() {
            let names: Vec<String> = read.iter().map(|n| format!("${n}")).collect();
            notes.push(format!("reads {} from this environment", names.join(", ")));
        }
        let timeout_s = entry.get("timeout").and_then(|t| {
            let read = call_timeout(t);
            notes.push(match read {
                Some(s) => format!("calls may wait {s} s for news (its \"timeout\")"),
                None => format!("its \"timeout\" {t} is not a number of seconds up to a day: the default is used"),
            });
            read
        });
        let mut new = NewServer {
            id,
            command,
            args,
            url,
            env,
            headers,
            timeout_s,
        };
        if let Some(why) = unexpandable {
            problem = problem.or(Some(why));
        }
        // Relative paths are the entry's `cwd`'s: Atelier starts every
        // server in a folder of its own.
        if let Some(cwd) = entry.get("cwd").and_then(Value::as_str) {
            let cwd = std::path::PathBuf::from(cwd);
            let mut changed = false;
            if let Some(full) = new.command.as_deref().and_then(|c| under(&cwd, c)) {
                new.command = Some(full);
                changed = true;
            }
            for a in &mut new.args {
                if let Some(full) = under(&cwd, a) {
                    *a = full;
                    changed = true;
                }
            }
            if changed {
                notes.push(format!(
                    "relative paths made absolute against its cwd {}",
                    cwd.display()
                ));
            }
        }
        if new.command.is_none() && new.url.is_none() {
            problem = Some(format!("{at} has neither \"command\" nor \"url\""));
        }
        out.push(Entry {
            server: new,
            problem,
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            disabled,
        });
    }
    Ok(out)
}

/// A config's per-server `"timeout"` in seconds. Cline and Roo Code write
/// seconds (at most an hour), Claude Code milliseconds (at least a
/// second): a value above 3600 can only be milliseconds.
fn call_timeout(v: &Value) -> Option<f64> {
    let t = v.as_f64().filter(|t| *t > 0.0)?;
    let s = if t > 3600.0 { t / 1000.0 } else { t };
    (s <= crate::toolsets::validate::MAX_TIMEOUT_S).then_some(s)
}

fn describe(s: &NewServer) -> String {
    match (&s.command, &s.url) {
        (Some(c), _) => std::iter::once(c.as_str())
            .chain(s.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        (None, Some(u)) => u.clone(),
        (None, None) => String::new(),
    }
}

impl Mcp<'_> {
    /// What importing `text` would add (nothing is added).
    pub async fn preview_config(&self, text: &str) -> Result<Vec<ImportCandidate>> {
        let existing: Vec<String> = self.list().await?.into_iter().map(|s| s.id).collect();
        Ok(parse(text)?
            .into_iter()
            .map(|e| ImportCandidate {
                problem: e.problem.or_else(|| {
                    existing
                        .contains(&e.server.id)
                        .then(|| format!("an MCP server {:?} already exists", e.server.id))
                }),
                note: e.note,
                timeout_s: e.server.timeout_s,
                runs: describe(&e.server),
                env_keys: e.server.env.iter().map(|(k, _)| k.clone()).collect(),
                header_keys: e.server.headers.iter().map(|(k, _)| k.clone()).collect(),
                id: e.server.id,
            })
            .collect())
    }

    /// Adds the servers of `text` that can be added (see
    /// [`Mcp::preview_config`]), or only those named in `only`; one the
    /// config turns off is added turned off.
    pub async fn import_config(&self, text: &str, only: Option<&[String]>) -> Result<Vec<ServerRecord>> {
        let mut added = Vec::new();
        for e in parse(text)? {
            if e.problem.is_some() || only.is_some_and(|o| !o.contains(&e.server.id)) {
                continue;
            }
            if self.get(&e.server.id).await.is_ok() {
                continue;
            }
            let id = e.server.id.clone();
            let mut record = self.add(e.server).await?;
            if e.disabled {
                record = self.set_enabled(&id, false).await?;
            }
            added.push(record);
        }
        Ok(added)
    }
}

#[cfg(test)]
mod tests;
