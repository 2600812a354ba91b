//! How an MCP server reads in a terminal: its state in one word, the
//! "connected to …" line `mcp add` and `mcp login` print, and `mcp show`'s
//! details. Everything a server says of itself (names, versions, stderr)
//! is printed escaped (`output::shown`).
#![allow(clippy::print_stdout)]

use atelier_core::mcp::{McpTool, ServerDetails, ServerRecord, ServerTransport};

use crate::output;

pub(super) fn transport(t: ServerTransport) -> &'static str {
    match t {
        ServerTransport::Stdio => "stdio",
        ServerTransport::Http => "http",
    }
}

pub(super) fn state(s: &ServerRecord) -> &'static str {
    match (s.enabled, s.active, &s.last_error) {
        (false, _, _) => "disabled",
        (true, false, _) => "inactive",
        (true, true, Some(_)) if s.needs_sign_in() => "sign-in",
        (true, true, Some(_)) => "error",
        (true, true, None) if s.tools.is_none() => "unlisted",
        _ => "ok",
    }
}

pub(super) fn tool_count(s: &ServerRecord) -> String {
    s.tools
        .as_ref()
        .map_or_else(|| "- tools".to_owned(), |t| tools_word(t.len()))
}

pub(super) fn declared_by(s: &ServerRecord) -> String {
    let mut who = Vec::new();
    if s.user_declared {
        who.push("you".to_owned());
    }
    who.extend(s.toolsets.iter().map(|t| format!("toolset {t}")));
    who.join(", ")
}

/// "connected to NAME VERSION (protocol P), N tools: a, b, c", and a line
/// for each warning of the listing.
pub(super) fn connected(s: &ServerRecord) -> String {
    let tools = s.tools.as_deref().unwrap_or_default();
    // What a server says of itself (its name, its tools' names) reaches
    // the terminal escaped.
    let names: Vec<String> = tools.iter().map(|t| output::shown(&t.name).into_owned()).collect();
    // A name or version a server leaves empty is no word.
    fn said(v: Option<&str>) -> Option<String> {
        v.map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| output::shown(v).into_owned())
    }
    let who = match (said(s.server_name.as_deref()), said(s.server_version.as_deref())) {
        (Some(n), Some(v)) => format!("{n} {v}"),
        (Some(n), None) => n,
        _ => "it".to_owned(),
    };
    let protocol = s
        .protocol_version
        .as_deref()
        .map(|p| format!(" (protocol {})", output::shown(p)))
        .unwrap_or_default();
    let warnings: String = s
        .warnings
        .iter()
        .map(|w| format!("\nwarning: {}", output::shown_lines(w)))
        .collect();
    let listed = match names.is_empty() {
        true => tools_word(0),
        false => format!("{}: {}", tools_word(names.len()), names.join(", ")),
    };
    format!("connected to {who}{protocol}, {listed}{warnings}")
}

/// "1 tool", "3 tools", "no tools".
fn tools_word(n: usize) -> String {
    match n {
        0 => "no tools".to_owned(),
        1 => "1 tool".to_owned(),
        n => format!("{n} tools"),
    }
}

fn runs(s: &ServerRecord) -> String {
    match (&s.command, &s.url) {
        (Some(c), _) => [std::slice::from_ref(c), &s.args].concat().join(" "),
        (None, url) => url.clone().unwrap_or_default(),
    }
}

pub(super) fn show(d: &ServerDetails) {
    let s = &d.server;
    println!(
        "{}  {}  {}  scope {}  declared by {}",
        s.id,
        transport(s.transport),
        state(s),
        s.scope.as_str(),
        declared_by(s)
    );
    println!("runs: {}", output::shown(&runs(s)));
    if let Some(t) = s.timeout_s {
        println!("calls may wait {t} s for news (its timeout)");
    }
    for (what, keys) in [("env", &s.env_keys), ("header", &s.header_keys)] {
        for k in keys {
            println!("  {what} {k} = <set in the secret store>");
        }
    }
    if let Some(at) = &s.listed_at {
        println!(
            "server: {} {} (protocol {}), listed {at}",
            output::shown(s.server_name.as_deref().unwrap_or("?")),
            output::shown(s.server_version.as_deref().unwrap_or("")),
            output::shown(s.protocol_version.as_deref().unwrap_or("?"))
        );
    }
    println!(
        "status: {}{}",
        d.status,
        d.message
            .as_deref()
            .map(|m| format!(" — {}", output::shown_lines(m)))
            .unwrap_or_default()
    );
    if let Some(e) = &s.last_error
        && d.message.as_deref() != Some(e)
    {
        println!("last error: {}", output::shown_lines(e));
    }
    for w in &s.warnings {
        println!("warning: {}", output::shown_lines(w));
    }
    for i in &d.instances {
        println!(
            "  instance {}: {} pid {}",
            i.chat_id
                .as_deref()
                .map_or("shared".to_owned(), |c| format!("chat {c}")),
            i.status,
            i.pid.map_or("-".to_owned(), |p| p.to_string())
        );
    }
    print_stderr_tail(&d.stderr);
    match &s.tools {
        None => println!("tools: not listed yet (`atelier mcp restart {}`)", s.id),
        Some(t) => {
            println!("tools ({}):", t.len());
            print_tools(&s.id, t);
        }
    }
}

pub(super) fn print_tools(server: &str, tools: &[McpTool]) {
    for t in tools {
        let hint = if t.read_only {
            "  (read-only)"
        } else if t.destructive {
            "  (destructive)"
        } else {
            ""
        };
        let about = output::shown(t.description.lines().next().unwrap_or_default());
        println!("  {server}:{:<32} {about}{hint}", output::shown(&t.name));
    }
}

pub(super) fn print_stderr_tail(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let tail = &lines[lines.len().saturating_sub(20)..];
    println!("stderr (last {} lines):", tail.len());
    // A server's own output: its colour codes and control bytes escaped,
    // as everything else it says.
    for l in tail {
        println!("  | {}", output::shown(l));
    }
}

#[cfg(test)]
mod tests {
    use atelier_core::mcp::ServerRecord;
    use serde_json::json;

    fn server(version: &str, tools: &[&str]) -> ServerRecord {
        let tools: Vec<_> = tools
            .iter()
            .map(|n| json!({"name": n, "title": null, "description": "", "input_schema": {}, "read_only": false, "destructive": false}))
            .collect();
        serde_json::from_value(json!({
            "id": "files", "transport": "stdio", "command": "files-mcp", "args": [], "url": null,
            "env_keys": [], "header_keys": [], "enabled": true, "active": true, "user_declared": true,
            "toolsets": [], "scope": "shared", "tools": tools, "server_name": "files", "server_version": version,
            "protocol_version": "2025-06-18", "listed_at": null, "last_error": null
        }))
        .expect("a server record")
    }

    /// `mcp add` said "connected to files  (protocol …), 1 tools: read"
    /// for a server with an empty version.
    #[test]
    fn the_connection_line_counts_its_tools_in_words() {
        assert_eq!(
            super::connected(&server("", &["read"])),
            "connected to files (protocol 2025-06-18), 1 tool: read"
        );
        assert_eq!(
            super::connected(&server("1.2.0", &["read", "write"])),
            "connected to files 1.2.0 (protocol 2025-06-18), 2 tools: read, write"
        );
        assert_eq!(
            super::connected(&server("1.2.0", &[])),
            "connected to files 1.2.0 (protocol 2025-06-18), no tools"
        );
    }
}
