//! `atelier toolset dev DIR [--run TOOL --args JSON [--chat C]]`: the
//! author's inner loop. The folder is installed and reloaded on every
//! change (one status line each); with `--run`, each good reload also runs
//! a tool and prints its result and render plan. And `atelier toolset test
//! DIR`: its fixture calls, in a scratch data dir.
#![allow(clippy::print_stdout)]

use std::path::Path;

use anyhow::Context as _;
use atelier_core::tools::{Approval, RunRequest};
use atelier_core::toolsets::watch::Reload;
use atelier_core::{Atelier, Observer};

use super::toolset::{now, print_problems};

/// `run`: the tool, its arguments (JSON text) and the chat to run it in.
pub(super) async fn dev(
    app: &Atelier,
    dir: &Path,
    run: Option<(String, String, Option<String>)>,
) -> anyhow::Result<()> {
    let run = match run {
        Some((tool, args, chat)) => {
            let args: serde_json::Value = serde_json::from_str(&args).context("--args must be a JSON object")?;
            anyhow::ensure!(args.is_object(), "--args must be a JSON object, got {args}");
            Some((tool, args, chat))
        }
        None => None,
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        crate::interrupt::interrupted().await;
        stop.cancel();
    });
    println!("Watching {} (Ctrl-C to stop)", dir.display());
    // What a reload does (a requirements install can take a while).
    let steps = Observer::default().with_steps(|s| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "  {s}");
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watching = {
        let (app, dir) = (app.clone(), dir.to_path_buf());
        tokio::spawn(async move {
            app.toolsets()
                .watch(&dir, steps, cancel, move |r| drop(tx.send(r)))
                .await
        })
    };
    let mut chat: Option<String> = run.as_ref().and_then(|(_, _, c)| c.clone());
    while let Some(reload) = rx.recv().await {
        match reload {
            Reload::Reloaded(r) => {
                let t = &r.toolset;
                println!("{} reloaded {} {}: {}", now(), t.id, t.version, r.tools.join(", "));
                print_problems(&r.warnings);
                if let Some((tool, args, _)) = &run {
                    let tool_id = if tool.contains(':') {
                        tool.clone()
                    } else {
                        format!("{}:{tool}", t.id)
                    };
                    let chat_id = match &chat {
                        Some(c) => c.clone(),
                        None => {
                            let c = app.chats().create(Some(&format!("{} (toolset dev)", t.id))).await?.id;
                            println!("running {tool_id} in the new chat {c}");
                            chat.insert(c).clone()
                        }
                    };
                    run_once(app, &chat_id, &tool_id, args).await;
                }
            }
            Reload::Rejected(e) => {
                println!("{} not reloaded, the last good version keeps running:\n{e}", now());
            }
        }
    }
    watching.await??;
    Ok(())
}

/// Runs the tool once and prints what a person checks: status, result or
/// error, render plan. A failure is printed, never fatal: the loop goes on.
async fn run_once(app: &Atelier, chat: &str, tool: &str, args: &serde_json::Value) {
    let req = RunRequest {
        chat_id: chat.to_owned(),
        tool_id: tool.to_owned(),
        args: args.clone(),
        // The author runs their own tool: no confirmation on each save.
        approval: Approval::Approved,
        ..Default::default()
    };
    match app.tools().run(req).await {
        Ok(call) => super::call::print_call(&call),
        Err(e) => println!("  could not run {tool}: {e}"),
    }
}

/// `toolset test DIR`: the folder's fixtures in a data dir of their own
/// (nothing of the person's is touched); an error when one fails.
pub(super) async fn test(dir: &Path, json: bool) -> anyhow::Result<()> {
    let scratch = tempfile::Builder::new().prefix("atelier-test-").tempdir()?;
    let app = Atelier::open(atelier_core::DataDir::new(scratch.path())).await?;
    let outcomes = app.tools().test_folder(dir).await;
    app.close().await;
    let outcomes = outcomes?;
    if json {
        crate::output::json(&outcomes)?;
    } else {
        for o in &outcomes {
            println!("{} {}", if o.passed { "pass" } else { "FAIL" }, o.file);
            for f in &o.failures {
                println!("  {f}");
            }
        }
    }
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    anyhow::ensure!(failed == 0, "{failed} of {} fixture(s) failed", outcomes.len());
    if !json {
        println!("{} fixture(s) passed", outcomes.len());
    }
    Ok(())
}
