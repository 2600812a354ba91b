//! `atelier mcp …`: MCP servers from a terminal. Values of `env` and
//! headers are asked for (or read from stdin) and go to the secret store;
//! they are never arguments and never printed. Every command that connects
//! leaves nothing running: `commands::run` stops every server this process
//! started before it exits.
#![allow(clippy::print_stdout)]

use std::io::{IsTerminal, Read, Write};

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::mcp::{ImportCandidate, McpTool, NewServer, ServerDetails, ServerRecord, ServerTransport};
use atelier_core::secrets::Secret;

use crate::cli::{McpAddArgs, McpCommand};
use crate::output;

pub(crate) async fn run(app: &Atelier, cmd: McpCommand, json: bool) -> anyhow::Result<()> {
    let mcp = app.mcp();
    match cmd {
        McpCommand::Add(args) => add(app, args, json).await?,
        McpCommand::ImportConfig { file, yes, only } => import(app, &file, yes, &only, json).await?,
        McpCommand::List => {
            let servers = mcp.list().await?;
            if json {
                output::json(&servers)?;
            } else if servers.is_empty() {
                println!("No MCP servers. Add one: `atelier mcp add ID -- COMMAND ARGS…`.");
            } else {
                for s in &servers {
                    println!(
                        "{:<20} {:<5} {:<9} {:<9} {:<6} {}",
                        s.id,
                        transport(s.transport),
                        state(s),
                        tool_count(s),
                        s.scope.as_str(),
                        declared_by(s)
                    );
                }
            }
        }
        McpCommand::Show { id } => {
            let d = mcp.details(&id).await?;
            if json {
                output::json(&d)?;
            } else {
                show(&d);
            }
        }
        McpCommand::Tools { id } => {
            let s = mcp.get(&id).await?;
            let Some(tools) = &s.tools else {
                anyhow::bail!(
                    "MCP server {id:?} has not been listed yet{}: `atelier mcp restart {id}`",
                    s.last_error
                        .as_deref()
                        .map(|e| format!(" (its last connection failed: {e})"))
                        .unwrap_or_default()
                );
            };
            if json {
                output::json(tools)?;
            } else if tools.is_empty() {
                println!("{id} offers no tools.");
            } else {
                print_tools(&id, tools);
            }
        }
        McpCommand::Restart { id } => {
            let listed = interruptible(mcp.refresh(&id)).await;
            let details = mcp.details(&id).await?;
            match listed {
                Ok(s) => {
                    if json {
                        output::json(&details)?;
                    } else {
                        println!("Restarted {id}: {}", connected(&s));
                    }
                }
                Err(e) => {
                    if !json {
                        print_stderr_tail(&details.stderr);
                    }
                    return Err(e.context(format!("could not connect to MCP server {id:?}")));
                }
            }
        }
        McpCommand::Enable { id } => {
            let s = mcp.set_enabled(&id, true).await?;
            if s.active {
                report_connection(app, s, "Enabled", json).await?;
            } else {
                if json {
                    output::json(&s)?;
                } else {
                    println!(
                        "Enabled {id}; its tools stay off until its toolset is enabled ({}).",
                        s.toolsets.join(", ")
                    );
                }
            }
        }
        McpCommand::Disable { id } => {
            let s = mcp.set_enabled(&id, false).await?;
            if json {
                output::json(&s)?;
            } else {
                println!("Disabled {id}: it is stopped and its tools left the tool list.");
            }
        }
        McpCommand::Login { id, timeout } => super::mcp_login::login(app, &id, timeout, json).await?,
        McpCommand::Logout { id } => super::mcp_login::logout(app, &id, json).await?,
        McpCommand::Remove { id } => {
            mcp.remove(&id).await?;
            if json {
                output::json(&serde_json::json!({ "id": id, "removed": true }))?;
            } else {
                println!("Removed {id} and its secrets.");
            }
        }
    }
    Ok(())
}

/// `mcp add`: agents checked, values asked for, the row added, one
/// connection to list the tools.
async fn add(app: &Atelier, a: McpAddArgs, json: bool) -> anyhow::Result<()> {
    // Nothing is asked for or added if the agents or keys are wrong.
    for agent in &a.agents {
        app.agents().get(agent).await?;
    }
    let keys: Vec<String> = a.env.iter().chain(&a.headers).cloned().collect();
    for (i, k) in keys.iter().enumerate() {
        anyhow::ensure!(
            !k.contains('='),
            "--env/--header take a KEY only ({:?}): its value is asked for, or read from stdin, \
             never taken as an argument",
            k.split_once('=').map_or(k.as_str(), |(k, _)| k)
        );
        atelier_core::secrets::check_key(k)?;
        anyhow::ensure!(!keys[..i].contains(k), "{k:?} is given twice");
    }
    if app.mcp().get(&a.id).await.is_ok() {
        anyhow::bail!("an MCP server {:?} already exists (remove it first)", a.id);
    }
    let kind = if a.url.is_some() { "header" } else { "env" };
    let mut values = super::toolset_settings::ask_values(&keys, |k| format!("{kind} {k} of MCP server {}", a.id))?;
    let mut take = |ks: &[String]| -> anyhow::Result<Vec<(String, Secret)>> {
        ks.iter()
            .map(|k| {
                let v = values
                    .remove(k)
                    .with_context(|| format!("no value for {k} on stdin (one KEY=VALUE line per key)"))?;
                anyhow::ensure!(!v.expose().is_empty(), "the value of {k} is empty");
                Ok((k.clone(), v))
            })
            .collect()
    };
    let (env, headers) = (take(&a.env)?, take(&a.headers)?);
    let mut command = a.command.into_iter();
    let new = NewServer {
        id: a.id.clone(),
        command: command.next(),
        args: command.collect(),
        url: a.url,
        env,
        headers,
        timeout_s: a.timeout,
    };
    let added = app.mcp().add(new).await?;
    for agent in &a.agents {
        app.agents().allow_toolset(agent, &added.id).await?;
        if !json {
            println!("Allowed {} to agent {agent}.", added.id);
        }
    }
    report_connection(app, added, "Added", json).await
}

/// Connects once to list the tools of a server just added or enabled and
/// says how it went; a failure keeps the server and exits 1.
async fn report_connection(app: &Atelier, server: ServerRecord, done: &str, json: bool) -> anyhow::Result<()> {
    let id = server.id.clone();
    if std::io::stderr().is_terminal() {
        eprintln!("Connecting to {id} to list its tools…");
    }
    match interruptible(app.mcp().refresh(&id)).await {
        Ok(s) => {
            if json {
                output::json(&s)?;
            } else {
                println!("{done} {id}: {}", connected(&s));
            }
            Ok(())
        }
        Err(e) => {
            let stderr = app.mcp().details(&id).await.map(|d| d.stderr).unwrap_or_default();
            if json {
                output::json(&app.mcp().get(&id).await.unwrap_or(server))?;
            } else {
                print_stderr_tail(&stderr);
            }
            Err(e.context(format!("{} {id}; could not connect", done.to_lowercase())))
        }
    }
}

/// `mcp import-config`: the preview, a confirmation, the servers added
/// and each connected to once.
async fn import(app: &Atelier, file: &std::path::Path, yes: bool, only: &[String], json: bool) -> anyhow::Result<()> {
    let from_stdin = file.as_os_str() == "-";
    let text = if from_stdin {
        let mut t = String::new();
        std::io::stdin()
            .lock()
            .read_to_string(&mut t)
            .context("reading the config from stdin")?;
        t
    } else {
        std::fs::read_to_string(file).with_context(|| format!("could not read {}", file.display()))?
    };
    let preview = app.mcp().preview_config(&text).await?;
    for o in only {
        anyhow::ensure!(
            preview.iter().any(|c| &c.id == o),
            "--only {o:?}: the config has no such server (it has: {})",
            preview.iter().map(|c| c.id.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    let chosen: Vec<&ImportCandidate> = preview
        .iter()
        .filter(|c| only.is_empty() || only.contains(&c.id))
        .collect();
    {
        // With --json, stdout is for the record: the list goes to stderr.
        let mut out: Box<dyn Write> = if json {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::stdout())
        };
        print_preview(&mut out, &chosen)?;
    }
    let addable: Vec<String> = chosen
        .iter()
        .filter(|c| c.problem.is_none())
        .map(|c| c.id.clone())
        .collect();
    anyhow::ensure!(!addable.is_empty(), "nothing to import");
    if !yes {
        anyhow::ensure!(
            !from_stdin && std::io::stdin().is_terminal(),
            "not confirmed: read what each server would run (above), then run again with --yes"
        );
        eprint!("Add {} server(s)? [y/N] ", addable.len());
        std::io::stderr().flush()?;
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        anyhow::ensure!(matches!(line.trim(), "y" | "Y" | "yes"), "nothing imported");
    }
    let added = app.mcp().import_config(&text, Some(&addable)).await?;
    let mut records = Vec::new();
    let mut failed = Vec::new();
    for s in added {
        // One the config turns off is added turned off: not started.
        if !s.enabled {
            if !json {
                println!("Added {} (turned off)", s.id);
            }
            records.push(s);
            continue;
        }
        match interruptible(app.mcp().refresh(&s.id)).await {
            Ok(listed) => {
                if !json {
                    println!("Added {}: {}", listed.id, connected(&listed));
                }
                records.push(listed);
            }
            Err(e) => {
                if !json {
                    println!("Added {}; could not connect: {}", s.id, output::error_line(&e));
                }
                failed.push(s.id.clone());
                records.push(app.mcp().get(&s.id).await.unwrap_or(s));
            }
        }
    }
    if json {
        output::json(&serde_json::json!({ "preview": chosen, "added": records }))?;
    }
    anyhow::ensure!(
        failed.is_empty(),
        "added; could not connect to {} (fix, then `atelier mcp restart ID`)",
        failed.join(", ")
    );
    Ok(())
}

fn print_preview(out: &mut dyn Write, chosen: &[&ImportCandidate]) -> anyhow::Result<()> {
    writeln!(out, "Each server would run, with your rights:")?;
    for c in chosen {
        let (id, runs) = (output::shown(&c.id), output::shown(&c.runs));
        match &c.problem {
            None => writeln!(out, "  {id:<20} {runs}")?,
            Some(p) => writeln!(out, "  {id:<20} {runs}  — skipped: {}", output::shown(p))?,
        }
        if let Some(note) = &c.note {
            writeln!(out, "  {:<20}   ({})", "", output::shown(note))?;
        }
        for (what, keys) in [("env", &c.env_keys), ("header", &c.header_keys)] {
            for k in keys {
                writeln!(
                    out,
                    "  {:<20}   {what} {} = (a value is set; it goes to your secret store)",
                    "",
                    output::shown(k)
                )?;
            }
        }
    }
    Ok(())
}

/// A future cut short by Ctrl-C, SIGTERM or SIGHUP (then `commands::run` stops what it started).
async fn interruptible<T>(fut: impl std::future::Future<Output = atelier_core::Result<T>>) -> anyhow::Result<T> {
    tokio::select! {
        r = fut => Ok(r?),
        () = crate::interrupt::interrupted() => anyhow::bail!("interrupted"),
    }
}

fn transport(t: ServerTransport) -> &'static str {
    match t {
        ServerTransport::Stdio => "stdio",
        ServerTransport::Http => "http",
    }
}

fn state(s: &ServerRecord) -> &'static str {
    match (s.enabled, s.active, &s.last_error) {
        (false, _, _) => "disabled",
        (true, false, _) => "inactive",
        (true, true, Some(_)) if s.needs_sign_in() => "sign-in",
        (true, true, Some(_)) => "error",
        (true, true, None) if s.tools.is_none() => "unlisted",
        _ => "ok",
    }
}

fn tool_count(s: &ServerRecord) -> String {
    s.tools
        .as_ref()
        .map_or_else(|| "- tools".to_owned(), |t| tools_word(t.len()))
}

fn declared_by(s: &ServerRecord) -> String {
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

fn show(d: &ServerDetails) {
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

fn print_tools(server: &str, tools: &[McpTool]) {
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

fn print_stderr_tail(lines: &[String]) {
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
