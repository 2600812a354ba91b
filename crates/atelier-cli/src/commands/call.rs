//! `atelier run …` and `atelier call …`
#![allow(clippy::print_stdout)]

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::tools::{Approval, RunRequest, ToolCallRecord};

use crate::cli::{CallCommand, RunArgs};
use crate::output;

fn print_call(c: &ToolCallRecord) {
    println!("{}  {}  {}", c.id, c.tool_id, c.status);
    if let Some(e) = &c.error {
        println!("error ({}): {e}", c.error_kind.as_deref().unwrap_or("error"));
    }
    if let Some(r) = &c.result {
        println!("result: {r}");
    }
    if let Some(p) = &c.render_plan {
        println!("render: {} {}", p.renderer, p.config);
        for w in &p.warnings {
            println!("warning: {w}");
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
    let call = app
        .run_tool(RunRequest {
            chat_id: a.chat,
            tool_id: a.tool,
            args,
            parent_id: a.parent,
            approval,
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
        CallCommand::Show { id } => {
            let c = app.get_tool_call(&id).await?;
            if json { output::json(&c)? } else { print_call(&c) }
        }
        CallCommand::Render { id, html } => {
            if html {
                print!("{}", app.render_html(&id).await?);
            } else {
                let c = app.get_tool_call(&id).await?;
                output::json(&c.render_plan)?;
            }
        }
    }
    Ok(())
}
