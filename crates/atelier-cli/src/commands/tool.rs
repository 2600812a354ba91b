//! `atelier tool …`: the installed tools, one tool's details, and whether it
//! asks before it runs (its policy, and the chats it may run in unasked).
#![allow(clippy::print_stdout)]

use atelier_core::Atelier;

use super::toolset::print_tool;
use crate::cli::ToolCommand;
use crate::output;
use crate::output::shown_lines;

pub(crate) async fn run(app: &Atelier, cmd: ToolCommand, json: bool) -> anyhow::Result<()> {
    match cmd {
        ToolCommand::List => {
            let tools = app.tools().list().await?;
            if json {
                output::json(&tools)?;
            } else if tools.is_empty() {
                println!("No tools. Install a toolset: `atelier toolset import BUNDLE.zip`.");
            } else {
                tools.iter().for_each(print_tool);
            }
        }
        ToolCommand::Show { id } => {
            let t = app.tools().tool(&id).await?;
            if json {
                output::json(&t)?;
            } else {
                print_tool(&t);
                if !t.description.is_empty() {
                    println!("{}", shown_lines(&t.description));
                }
                if let Some(e) = &t.entrypoint {
                    println!("entrypoint: {}", output::shown(e));
                }
                println!("input schema: {}", serde_json::to_string_pretty(&t.input_schema)?);
                if let Some(r) = &t.render_config {
                    println!("renderer {}: {}", r.renderer, r.config);
                }
            }
        }
        ToolCommand::Policy { id, policy } => {
            let p = match policy.as_deref().and_then(atelier_core::tools::Policy::parse) {
                Some(policy) => app.tools().set_policy(&id, policy).await?,
                None => app.tools().policy(&id).await?,
            };
            if json {
                output::json(&p)?;
            } else {
                let author = if p.requires_confirmation {
                    "asks"
                } else {
                    "does not ask"
                };
                let now = if p.asks {
                    "asks before it runs"
                } else {
                    "runs without asking"
                };
                println!(
                    "{}: {} (its author's choice: {author}) — {now}",
                    output::shown(&p.tool_id),
                    p.policy
                );
            }
        }
        ToolCommand::Allow { id, chat } => {
            app.tools().allow_in_chat(&chat, &id).await?;
            if json {
                output::json(&serde_json::json!({"tool_id": id, "chat_id": chat, "allowed": true}))?;
            } else {
                println!("{id} runs without asking in chat {chat} (until `atelier tool revoke`)");
            }
        }
        ToolCommand::Revoke { id, chat } => {
            let had = app.tools().revoke_in_chat(&chat, &id).await?;
            if json {
                output::json(&serde_json::json!({"tool_id": id, "chat_id": chat, "revoked": had}))?;
            } else {
                println!("{}", if had { "Revoked" } else { "Nothing to revoke" });
            }
        }
    }
    Ok(())
}
