//! `atelier demo`: a chat with two branches, built in a throwaway data dir,
//! to see what the workspace store does without touching real data.
#![allow(clippy::print_stdout)]

use std::path::Path;

use anyhow::Context;
use atelier_core::model::{ContentPart, Role};
use atelier_core::{Atelier, DataDir, Observer};

use crate::cli::DemoArgs;
use crate::output;

fn write(ws: &Path, rel: &str, content: &str) -> anyhow::Result<()> {
    let p = ws.join(rel);
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&p, content).with_context(|| format!("writing {}", p.display()))
}

fn say(text: &str) -> Vec<ContentPart> {
    vec![ContentPart::Text { text: text.to_owned() }]
}

pub(crate) async fn run(args: DemoArgs, json: bool) -> anyhow::Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("atelier-demo-")
        .tempdir()
        .context("creating a temp folder")?;
    let app = Atelier::open(DataDir::new(dir.path())).await?;
    let chat = app.chats().create(Some("Demo: two plans")).await?;
    let ws = app.workspace_dir(&chat.id);

    // A person drops two files in, and asks for plan A.
    write(&ws, "notes.md", "# Notes\n\nWe need a plan.\n")?;
    write(&ws, "src/hello.py", "print('hello')\n")?;
    let base = app.workspace().snapshot(&chat.id, &Observer::default()).await?;
    let base_id = base.message_id.context("the first snapshot records the two files")?;
    app.workspace()
        .append_message(&chat.id, None, Role::User, say("Let's go with plan A."))
        .await?;
    write(&ws, "plan.md", "# Plan A\n\n1. Do the thing.\n")?;
    let plan_a = app
        .workspace()
        .append_message(&chat.id, None, Role::User, say("Plan A is written."))
        .await?;

    // Branch from the base: plan B, in a workspace that never saw plan A.
    app.workspace()
        .append_message(&chat.id, Some(&base_id), Role::User, say("Actually, plan B."))
        .await?;
    write(&ws, "plan.md", "# Plan B\n\n1. Do the other thing.\n2. Celebrate.\n")?;
    let plan_b = app.workspace().snapshot(&chat.id, &Observer::default()).await?;
    let plan_b_id = plan_b.message_id.context("plan B was written")?;

    let tree = app.chats().tree(&chat.id).await?;
    app.workspace().checkout(&chat.id, &plan_a.id).await?;
    let files_a = app.workspace().list_files(&chat.id, None).await?;
    let plan_a_text = std::fs::read_to_string(ws.join("plan.md"))?;
    app.workspace().checkout(&chat.id, &plan_b_id).await?;
    let files_b = app.workspace().list_files(&chat.id, None).await?;
    let plan_b_text = std::fs::read_to_string(ws.join("plan.md"))?;
    let diff = app.workspace().diff(&chat.id, &plan_a.id, &plan_b_id).await?;
    let chat = app.chats().get(&chat.id).await?;

    if json {
        output::json(&serde_json::json!({
            "data_dir": dir.path(),
            "chat": chat,
            "messages": tree,
            "branch_a": { "message_id": plan_a.id, "files": files_a },
            "branch_b": { "message_id": plan_b_id, "files": files_b },
            "diff": diff,
        }))?;
    } else {
        println!("Demo data dir: {}\n", dir.path().display());
        println!("The conversation tree (* = active leaf):");
        output::tree(&tree, &chat.active_leaf_message_id);
        println!("\nWorkspace on branch A (message {}):", plan_a.id);
        output::files(&files_a);
        println!("--- plan.md ---\n{plan_a_text}");
        println!("Workspace on branch B (message {plan_b_id}):");
        output::files(&files_b);
        println!("--- plan.md ---\n{plan_b_text}");
        println!("Diff A → B:");
        output::diff(&diff);
    }
    app.close().await;
    if args.keep {
        let kept = dir.keep();
        eprintln!(
            "Kept {}; try: atelier --data-dir {} chat list",
            kept.display(),
            kept.display()
        );
    }
    Ok(())
}
