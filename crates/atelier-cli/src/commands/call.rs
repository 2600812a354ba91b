//! `atelier run …` and `atelier call …`
#![allow(clippy::print_stdout)]

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::tools::{Approval, RunRequest, ToolCallRecord};
use atelier_core::tools::{CallControl, RunEvent};

use crate::cli::{CallCommand, RunArgs};
use crate::output;

/// A call's record; its error and warnings are the tool's words, escaped
/// (the result and plan are JSON, which escapes its own).
pub(super) fn print_call(c: &ToolCallRecord) {
    println!("{}  {}  {}", c.id, output::shown(&c.tool_id), c.status);
    if let Some(e) = &c.error {
        println!(
            "error ({}): {}",
            c.error_kind.map_or("error", |k| k.as_str()),
            output::shown_lines(e)
        );
    }
    if let Some(r) = &c.result {
        println!("result: {r}");
    }
    if let Some(p) = &c.render_plan {
        println!("render: {} {}", p.renderer, p.config);
        for w in &p.warnings {
            println!("warning: {}", output::shown(w));
        }
    }
    println!(
        "node {}  manifest {}",
        c.node_id.as_deref().unwrap_or("-"),
        c.post_manifest_id.as_deref().unwrap_or("-")
    );
}

pub(crate) async fn run(app: &Atelier, a: RunArgs, json: bool) -> anyhow::Result<()> {
    let text = match (&a.args, &a.args_file) {
        (Some(s), _) => s.clone(),
        (None, Some(f)) => std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?,
        (None, None) => "{}".to_owned(),
    };
    let args: serde_json::Value = serde_json::from_str(&text).context("--args must be a JSON object")?;
    anyhow::ensure!(args.is_object(), "--args must be a JSON object, got {args}");
    let approval = if a.yes { Approval::Approved } else { Approval::NotGiven };
    // The bound a manifest's `timeout_s` has: a day.
    let max = atelier_core::toolsets::validate::MAX_TIMEOUT_S;
    let timeout = match a.timeout {
        Some(t) if t > 0.0 && t <= max => std::time::Duration::try_from_secs_f64(t).ok(),
        Some(t) => anyhow::bail!("--timeout must be a number of seconds above 0 and at most {max} (a day), got {t}"),
        None => None,
    };
    // Ctrl-C (or SIGTERM, SIGHUP) cancels the call (its worker is killed);
    // the record says so.
    let cancel = tokio_util::sync::CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        crate::interrupt::interrupted().await;
        on_ctrl_c.cancel();
    });
    // The tool's output, live, on stderr: stdout stays the record.
    let mut control = if a.quiet {
        CallControl::default()
    } else {
        CallControl::with_events(|event| {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            match event {
                RunEvent::Output { text, .. } => {
                    let _ = err.write_all(text.as_bytes());
                }
                // An MCP server's progress notifications, one line each.
                RunEvent::Progress {
                    progress,
                    total,
                    message,
                } => {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    let _ = writeln!(
                        err,
                        "progress {progress}{of}{}",
                        message.map(|m| format!(": {m}")).unwrap_or_default()
                    );
                }
                _ => {}
            }
            let _ = err.flush();
        })
    };
    control.timeout = timeout;
    control.cancel = cancel;
    let req = RunRequest {
        chat_id: a.chat,
        tool_id: a.tool,
        args,
        parent_id: a.parent,
        approval,
        control,
        model_call_id: None,
    };
    // Ctrl-C also ends a wait for the chat's lock (nothing is recorded then).
    let waits = atelier_core::lock::LockContext::default().cancel_on(req.control.cancel.clone());
    let call = waits
        .scope(async {
            match &a.agent {
                Some(agent) => {
                    let resolved = app.agents().resolve(agent, a.depth).await?;
                    app.routing().run(&resolved, req).await
                }
                None => app.tools().run(req).await,
            }
        })
        .await?;
    if json {
        output::json(&call)
    } else {
        print_call(&call);
        Ok(())
    }
}

pub(crate) async fn show(app: &Atelier, cmd: CallCommand, json: bool) -> anyhow::Result<()> {
    match cmd {
        CallCommand::List { chat } => {
            let calls = app.tools().calls(&chat).await?;
            if json {
                output::json(&calls)?;
            } else {
                for c in &calls {
                    let error = c.error.as_deref().and_then(|e| e.lines().next()).unwrap_or("");
                    println!(
                        "{}  {}  {:<24} {:<11} {}",
                        c.id,
                        c.started_at,
                        output::shown(&c.tool_id),
                        c.status.as_str(),
                        output::shown(error)
                    );
                }
            }
        }
        CallCommand::Show { id } => {
            let c = app.tools().call(&id).await?;
            if json { output::json(&c)? } else { print_call(&c) }
        }
        CallCommand::Render { id, html } => {
            if html {
                print!("{}", app.tools().render_html(&id).await?);
            } else {
                let c = app.tools().call(&id).await?;
                output::json(&c.render_plan)?;
            }
        }
    }
    Ok(())
}
