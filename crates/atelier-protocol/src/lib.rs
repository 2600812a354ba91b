//! The protocol between Atelier's core and `atelier-worker`, the process that
//! embeds CPython.
//!
//! One JSON object per line, in both directions, over one Unix socket that
//! the worker gets as its stdin and moves off fd 0 before Python starts. Its
//! fd 1 and fd 2 are pipes read by the core: the capture. So nothing a tool
//! prints (from Python, a C extension or a child process) can reach the
//! protocol stream, and output written just before a crash is not lost,
//! because the core holds the read ends.
//!
//! A conversation: the worker sends [`Event::Ready`]; then for each
//! [`Request`] it writes [`WorkerConfig::marker`] to fd 1 and fd 2 and sends
//! exactly one [`Event::Done`]. Output read from the pipes up to the markers
//! belongs to that request. Requests are answered one at a time, in order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped when a message changes shape; the core refuses another version.
pub const VERSION: u32 = 4;

/// Largest return value (as JSON text) a call may produce.
pub const DEFAULT_RETURN_CAP: usize = 16 << 20;

/// How the worker is started: its arguments, as one JSON value in
/// `ATELIER_WORKER_CONFIG`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerConfig {
    /// The toolset's folder: first on `sys.path`, so `tools.x:run` imports
    /// `<folder>/tools/x.py`.
    pub toolset_dir: String,
    /// `site-packages` folders of the toolset's virtual environment.
    #[serde(default)]
    pub site_packages: Vec<String>,
    /// That virtual environment (its `bin/python` becomes `sys.executable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venv: Option<String>,
    /// Written to fd 1 and fd 2 after each request, so the reader of the
    /// capture pipes knows it has all of that request's output. Random per
    /// worker, so no tool can forge it.
    pub marker: String,
    /// In bytes of JSON text.
    pub return_cap: usize,
}

/// What the core asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Call `entrypoint` (`module.path:function`) with
    /// `workspace=Path(workspace)` and `args` as keyword arguments (an
    /// exported function gets `workspace` only if it names it, and may
    /// return any JSON value; an entry point returns an object).
    Call {
        id: String,
        entrypoint: String,
        workspace: String,
        args: serde_json::Map<String, Value>,
        /// Resolve the function through the module's explicit exports
        /// (`TOOLS`, else `__all__`): tools declared with `tools_from:`.
        #[serde(default)]
        exported: bool,
        /// The toolset's settings (`user_config`, sensitive ones included),
        /// given to a function that declares an `atelier_config` parameter.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        config: Option<serde_json::Map<String, Value>>,
    },
    /// List the tools a module exports explicitly (`TOOLS`, else `__all__`),
    /// with input schemas derived from their signatures.
    Describe { id: String, module: String },
    /// Import the module of `entrypoint` and find its function without
    /// calling it — a new version's check before it replaces a running one.
    /// The value: `{"parameters": [{"name", "required"}], "var_keyword",
    /// "tool"}` (whether it takes `**kwargs`; the tool its signature and
    /// docstring make, as Describe lists one: the input schema of an entry
    /// that gives none).
    Check { id: String, entrypoint: String },
    /// Read the toolset's Python without running any of it (its
    /// requirements may not be installed yet): compile `files` (and find
    /// the imports inside the bundle that fail), find each of `entrypoints`'
    /// function (following imports inside the bundle), derive the tools of
    /// each `tools_from` module from its `TOOLS` / `__all__`.
    /// The value: `{"syntax": [{"file", "line", "column", "message",
    /// "text"}], "entrypoints": {ep: {"found": "def" | "missing" |
    /// "unknown", "parameters"?, "var_keyword"?, "tool"?, "functions"?}},
    /// "tools_from": {module: [tool as Describe lists it] | null},
    /// "not_tools": {module: what the import would refuse},
    /// "computed": {module: why only the import can tell its tools}}`.
    Inspect {
        id: String,
        files: Vec<String>,
        entrypoints: Vec<String>,
        tools_from: Vec<String>,
    },
    /// Make `toolset_dir` the folder imports come from (and the current
    /// directory), in place of the one the worker started with: a spare
    /// worker, started before the version it will look at existed, taking
    /// up its work. Only for a worker that has imported nothing.
    Root { id: String, toolset_dir: String },
}

/// Which captured stream output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What the worker says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// Python is up and the toolset folder is on `sys.path`.
    Ready {
        protocol: u32,
        python_version: String,
        /// `sys.base_prefix`: where the interpreter's own files live (a venv
        /// for the toolset's requirements is made from this Python).
        base_prefix: String,
    },
    /// The request's end.
    Done { id: String, outcome: Outcome },
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The function returned a JSON object (`Call`), or the tool list
    /// (`Describe`).
    Ok { value: Value },
    /// The call did not happen or did not end well.
    Error(CallError),
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallError {
    pub kind: ErrorKind,
    /// One line a person reads.
    pub message: String,
    /// The exception's qualified type (`ValueError`), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_type: Option<String>,
    /// The full traceback, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceback: Option<String>,
}

/// The failure classes; they become `tool_calls.error_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The module could not be imported (syntax error, missing dependency).
    Import,
    /// No such function, or not callable, or a bad export table.
    Entrypoint,
    /// Arguments the function cannot accept, or required ones missing.
    InvalidArgs,
    /// The function raised.
    Exception,
    /// The return value is not a JSON object.
    BadReturn,
    /// The return value is over the cap.
    TooLarge,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Import => "import",
            ErrorKind::Entrypoint => "entrypoint",
            ErrorKind::InvalidArgs => "invalid_args",
            ErrorKind::Exception => "exception",
            ErrorKind::BadReturn => "bad_return",
            ErrorKind::TooLarge => "too_large",
        }
    }
}

/// One message as a line of JSON (with the newline).
pub fn to_line<T: Serialize>(msg: &T) -> String {
    let mut s = serde_json::to_string(msg).unwrap_or_else(|e| {
        // Our own types always serialize; keep the stream well-formed anyway.
        serde_json::json!({"ev": "invalid", "reason": e.to_string()}).to_string()
    });
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_tagged_lines() {
        let req = Request::Call {
            id: "c1".into(),
            entrypoint: "tools.x:run".into(),
            workspace: "/w".into(),
            args: serde_json::Map::new(),
            exported: false,
            config: Some(
                serde_json::json!({"region": "eu"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        };
        let line = to_line(&req);
        assert!(line.ends_with('\n') && line.contains(r#""op":"call""#), "{line}");
        assert_eq!(serde_json::from_str::<Request>(line.trim()).ok(), Some(req));
        let done = Event::Done {
            id: "c1".into(),
            outcome: Outcome::Error(CallError {
                kind: ErrorKind::BadReturn,
                message: "m".into(),
                exception_type: None,
                traceback: None,
            }),
        };
        let line = to_line(&done);
        assert!(
            line.contains(r#""status":"error""#) && line.contains(r#""kind":"bad_return""#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Event>(line.trim()).ok(), Some(done));
    }
}
