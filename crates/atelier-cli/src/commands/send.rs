//! `atelier chat send`: the answer streams to stdout as it arrives (to
//! stderr with `--json`, where stdout carries only the run's record), tool
//! activity goes to stderr, confirmations are asked on a terminal, and
//! Ctrl-C stops the run cleanly (what streamed and what ran are kept).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

use atelier_core::Atelier;
use atelier_core::conversation::{ChatEvent, RunStatus, SendOptions};
use atelier_core::model::Role;
use atelier_core::tools::Approval;

use crate::output;

/// Asks each confirmation on the terminal (y/N).
fn terminal_approval() -> Approval {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<atelier_core::tools::ApprovalRequest>(1);
    tokio::spawn(async move {
        while let Some(req) = rx.recv().await {
            eprint!(
                "\n{} wants to run with {} — run it? [y/N] ",
                output::shown(&req.tool_id),
                output::shown(&req.args.to_string())
            );
            let _ = std::io::stderr().flush();
            // Read on a thread of its own, never joined: Ctrl-C stops the
            // run and the command exits at once, not after an Enter (a
            // blocking task would hold the runtime's shutdown).
            let (line_tx, line_rx) = tokio::sync::oneshot::channel::<String>();
            std::thread::spawn(move || {
                let mut line = String::new();
                let _ = std::io::stdin().read_line(&mut line);
                let _ = line_tx.send(line);
            });
            if let Ok(line) = line_rx.await {
                let _ = req.respond.send(matches!(line.trim(), "y" | "Y" | "yes"));
            }
        }
    });
    Approval::Ask(tx)
}

/// What starts the run.
#[derive(Debug, Clone, Copy)]
pub(crate) enum What<'a> {
    Send(&'a str),
    Retry(&'a str),
    /// The message, its new text.
    Edit(&'a str, &'a str),
}

pub(crate) async fn run(
    app: &Atelier,
    chat_id: &str,
    what: What<'_>,
    mut opts: SendOptions,
    yes: bool,
    json: bool,
) -> anyhow::Result<()> {
    opts.approval = if yes {
        Approval::Approved
    } else if std::io::stdin().is_terminal() {
        terminal_approval()
    } else {
        Approval::NotGiven
    };
    let cancel = opts.cancel.clone();
    tokio::spawn(async move {
        crate::interrupt::interrupted().await;
        cancel.cancel();
    });
    let mut midline = false;
    let mut on = |e: &ChatEvent| {
        // The answer: stdout, unless stdout is for JSON.
        let answer = |s: &str| {
            if json {
                eprint!("{s}");
            } else {
                print!("{s}");
                let _ = std::io::stdout().flush();
            }
        };
        match e {
            ChatEvent::RunStarted {
                agent_id,
                provider_id,
                model,
                ..
            } => {
                eprintln!("[{agent_id} · {provider_id} · {model}]");
            }
            ChatEvent::ContextNote { text } => eprintln!("({text})"),
            ChatEvent::ContextTrimmed {
                dropped_messages,
                context_window,
            } => {
                eprintln!(
                    "(the {dropped_messages} oldest message(s) were left out to fit the context window of {context_window} tokens)"
                );
            }
            ChatEvent::TextDelta { text } => {
                answer(text);
                midline = !text.ends_with('\n');
            }
            ChatEvent::ToolCallFinished { call } => {
                if midline {
                    answer("\n");
                    midline = false;
                }
                let how = match (&call.error_kind, &call.error) {
                    (Some(k), Some(e)) => format!("{k}: {e}"),
                    _ => call.status.as_str().to_owned(),
                };
                eprintln!("  ⚙ {} {} → {how}", call.tool_id, call.args);
            }
            // A sub-agent's steps: to stderr, indented (its answer is the
            // spawn's result, which the parent's answer uses).
            ChatEvent::SubAgent {
                agent_id, depth, event, ..
            } => {
                let pad = "  ".repeat(*depth as usize);
                match &**event {
                    ChatEvent::RunStarted { model, .. } => eprintln!("{pad}↳ sub-agent {agent_id} ({model})"),
                    ChatEvent::ToolCallFinished { call } => {
                        eprintln!("{pad}  ⚙ {} {} → {}", call.tool_id, call.args, call.status.as_str());
                    }
                    ChatEvent::RunFinished { status, .. } => eprintln!("{pad}↳ {agent_id} {}", status.as_str()),
                    _ => {}
                }
            }
            ChatEvent::RunFinished { status, error } => {
                if midline {
                    answer("\n");
                }
                match (status, error) {
                    (RunStatus::Complete, _) => {}
                    (RunStatus::Stopped, _) => eprintln!("(stopped: what streamed and what ran are kept)"),
                    (RunStatus::StepLimit, _) => eprintln!("(the step limit was reached)"),
                    // The error itself is the command's, printed once at exit.
                    (RunStatus::Failed, _) => {}
                }
            }
            _ => {}
        }
    };
    let conversation = app.conversation();
    // Ctrl-C also ends a wait for the chat's lock.
    let waits = atelier_core::lock::LockContext::default().cancel_on(opts.cancel.clone());
    let outcome = waits
        .scope(async {
            match what {
                What::Send(text) => conversation.send(chat_id, text, opts, &mut on).await,
                What::Retry(message) => conversation.retry(chat_id, message, opts, &mut on).await,
                What::Edit(message, text) => conversation.edit(chat_id, message, text, opts, &mut on).await,
            }
        })
        .await?;
    if json {
        output::json(&outcome)?;
    }
    let answered = outcome.messages.iter().any(|m| m.role == Role::Assistant);
    match outcome.status {
        RunStatus::Failed => anyhow::bail!("{}", outcome.error.unwrap_or_else(|| "the run failed".into())),
        _ if !answered => anyhow::bail!("no answer"),
        _ => Ok(()),
    }
}
