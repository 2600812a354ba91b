//! An MCP server a manifest declares: its id (the namespace rule), how it
//! is reached (`command` or `url`, a `type` that must agree, the old SSE
//! transport refused), its `env` and `headers`, and a `cwd` it cannot have.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Checker, describe, join};
use crate::toolsets::manifest::McpServerDecl;

pub(crate) const SERVER_KEYS: &[&str] = &[
    "id",
    "type",
    "command",
    "args",
    "env",
    "url",
    "headers",
    "auto_enabled",
    "timeout_s",
];

/// A server's `type` (as Claude Desktop and MCPB configs write it), which
/// must agree with `command` / `url`; the old SSE transport is refused, not
/// spoken as streamable HTTP to an address that does not serve it.
fn check_transport(c: &mut Checker<'_>, path: &str, s: &serde_json::Map<String, Value>, has_command: bool) {
    let at = join(path, "type");
    let kind = match s.get("type") {
        None | Some(Value::Null) => return,
        Some(Value::String(k)) => k.to_ascii_lowercase().replace(['-', '_'], ""),
        Some(other) => {
            c.error(&at, format!("expected \"stdio\" or \"http\", got {}", describe(other)));
            return;
        }
    };
    match kind.as_str() {
        "sse" => c.error(
            &at,
            "the old SSE transport (`type: sse`) is not supported: Atelier speaks only stdio and streamable HTTP; \
             many servers serve streamable HTTP at `/mcp` (then give that `url` and drop `type`)",
        ),
        "stdio" if !has_command => c.error(&at, "a `stdio` server needs a `command`"),
        "http" | "streamablehttp" if has_command => c.error(&at, "an `http` server needs a `url`, not a `command`"),
        "stdio" | "http" | "streamablehttp" => {}
        _ => c.error(
            &at,
            format!(
                "unknown server type {:?}: use \"stdio\" (with `command`) or \"http\" (streamable HTTP, with `url`)",
                s["type"]
            ),
        ),
    }
}

pub(super) fn check_server(c: &mut Checker<'_>, path: &str, v: &Value) -> Option<McpServerDecl> {
    let Value::Object(s) = v else {
        c.error(
            path,
            format!(
                "expected an MCP server (a mapping with id and command or url), got {}",
                describe(v)
            ),
        );
        return None;
    };
    let id = c.string(s, path, "id", true);
    if let Some(id) = &id
        && !crate::ids::is_namespace_id(id)
    {
        c.error(
            &join(path, "id"),
            format!(
                "{id:?} is not a valid server id (the rule of toolset ids): {}",
                crate::ids::namespace_id_advice(id)
            ),
        );
    }
    let command = c.string(s, path, "command", false);
    let url = c.string(s, path, "url", false);
    match (&command, &url) {
        (Some(_), Some(_)) => c.error(
            path,
            "give `command` (a local server) or `url` (a remote one), not both",
        ),
        (None, None) => c.error(path, "an MCP server needs a `command` or a `url`"),
        (None, Some(u)) if !(u.starts_with("http://") || u.starts_with("https://")) => c.error(
            &join(path, "url"),
            format!("expected an http:// or https:// URL, got {u:?}"),
        ),
        _ => {}
    }
    let args = c.string_list(s, path, "args");
    let env = string_map(c, s, path, "env", "variable names");
    let headers = string_map(c, s, path, "headers", "header names");
    let auto_enabled = c.bool(s, path, "auto_enabled", true);
    let timeout_s = super::parts::timeout(c, &join(path, "timeout_s"), s.get("timeout_s"));
    check_transport(c, path, s, command.is_some());
    let extra = c.warn_unknown(s, path, SERVER_KEYS);
    let cwd = join(path, "cwd");
    if let Some(p) = c.problems.iter_mut().find(|p| p.path == cwd) {
        p.message = "unknown key `cwd` (kept, but not used): a stdio server runs in the chat's workspace folder \
                     (a `scope: shared` one in a folder of its own), so give it paths relative to that or absolute ones"
            .to_owned();
    }
    Some(McpServerDecl {
        id: id?,
        command,
        args,
        env,
        url,
        headers,
        auto_enabled,
        timeout_s,
        extra,
    })
}

/// `env:` or `headers:`: names to string values (`${…}` references allowed).
fn string_map(
    c: &mut Checker<'_>,
    s: &serde_json::Map<String, Value>,
    path: &str,
    key: &str,
    names: &str,
) -> BTreeMap<String, String> {
    let p = join(path, key);
    match s.get(key) {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(m)) => {
            let mut out = BTreeMap::new();
            for (k, v) in m {
                match v {
                    Value::String(x) => {
                        out.insert(k.clone(), x.clone());
                    }
                    other => c.error(
                        &join(&p, k),
                        format!(
                            "expected a string (use \"${{NAME}}\" for a secret or environment variable), got {}",
                            describe(other)
                        ),
                    ),
                }
            }
            out
        }
        Some(other) => {
            c.error(
                &p,
                format!("expected a mapping of {names} to values, got {}", describe(other)),
            );
            BTreeMap::new()
        }
    }
}
