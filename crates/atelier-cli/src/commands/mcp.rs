//! `atelier mcp …`: MCP servers from a terminal. Values of `env` and
//! headers are asked for (or read from stdin) and go to the secret store;
//! they are never arguments and never printed. Every command that connects
//! leaves nothing running: `commands::run` stops every server this process
//! started before it exits.
#![allow(clippy::print_stdout)]

use std::io::{IsTerminal, Read, Write};

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::mcp::{ImportCandidate, NewServer, ServerRecord};
use atelier_core::secrets::Secret;

use super::mcp_show::{connected, declared_by, print_stderr_tail, print_tools, show, state, tool_count, transport};
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
