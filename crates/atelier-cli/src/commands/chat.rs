//! `atelier chat …`

use atelier_core::Atelier;
use atelier_core::model::{ContentPart, Role};
use serde::Serialize;

use crate::cli::ChatCommand;
use crate::output;

#[derive(Serialize)]
struct ChatWithMessages<T> {
    chat: atelier_core::model::Chat,
    messages: Vec<T>,
}

pub(crate) async fn run(app: &Atelier, cmd: ChatCommand, json: bool) -> anyhow::Result<()> {
    match cmd {
        ChatCommand::New { title } => {
            let chat = app.chats().create(title.as_deref()).await?;
            if json {
                output::json(&chat)?;
            } else {
                output::chat(&chat);
                #[allow(clippy::print_stdout)]
                {
                    println!("  workspace {}", app.workspace_dir(&chat.id).display());
                }
            }
        }
        ChatCommand::Send {
            chat,
            text,
            agent,
            provider,
            model,
            parent,
            yes,
            force_tool,
            images,
        } => {
            let chat = app.chats().get(&chat).await?;
            let opts = atelier_core::conversation::SendOptions {
                parent_id: parent,
                agent_id: agent,
                provider_id: provider,
                model,
                force_tool,
                images,
                ..Default::default()
            };
            super::send::run(app, &chat.id, super::send::What::Send(&text), opts, yes, json).await?;
        }
        ChatCommand::Retry { chat, message, yes } => {
            let chat = app.chats().get(&chat).await?;
            let what = super::send::What::Retry(&message);
            super::send::run(app, &chat.id, what, Default::default(), yes, json).await?;
        }
        ChatCommand::Edit {
            chat,
            message,
            text,
            yes,
        } => {
            let chat = app.chats().get(&chat).await?;
            let what = super::send::What::Edit(&message, &text);
            super::send::run(app, &chat.id, what, Default::default(), yes, json).await?;
        }
        ChatCommand::List => {
            let chats = app.chats().list().await?;
            if json {
                output::json(&chats)?
            } else {
                output::chat_list(&chats)
            }
        }
        ChatCommand::Show { chat, tree } => {
            let c = app.chats().get(&chat).await?;
            if tree {
                let nodes = app.chats().tree(&c.id).await?;
                if json {
                    output::json(&ChatWithMessages {
                        chat: c,
                        messages: nodes,
                    })?;
                } else {
                    output::chat(&c);
                    output::tree(&nodes, &c.active_leaf_message_id);
                }
            } else {
                let messages = app.chats().active_branch(&c.id).await?;
                if json {
                    output::json(&ChatWithMessages { chat: c, messages })?;
                } else {
                    output::chat(&c);
                    output::branch(&messages);
                }
            }
        }
        ChatCommand::Rename { chat, title } => {
            let c = app.chats().rename(&chat, &title).await?;
            if json { output::json(&c)? } else { output::chat(&c) }
        }
        ChatCommand::Checkout { chat, message } => {
            let c = app.workspace().checkout(&chat, &message).await?;
            if json { output::json(&c)? } else { output::chat(&c) }
        }
        ChatCommand::Say { chat, text, parent } => {
            let m = app
                .workspace()
                .append_message(&chat, parent.as_deref(), Role::User, vec![ContentPart::Text { text }])
                .await?;
            if json { output::json(&m)? } else { output::message(&m) }
        }
        ChatCommand::Fork { chat, message, title } => {
            let c = app.conversation().fork(&chat, &message, title.as_deref()).await?;
            if json { output::json(&c)? } else { output::chat(&c) }
        }
        ChatCommand::Settings { chat, settings, reset } => {
            let c = app.chats().get(&chat).await?;
            let mut s = if reset {
                Default::default()
            } else {
                c.model_settings.clone()
            };
            s.temperature = settings.temperature.or(s.temperature);
            s.max_tokens = settings.max_tokens.or(s.max_tokens);
            s.context_window = settings.context_window.or(s.context_window);
            s.images = settings.images.or(s.images);
            if let Some(e) = &settings.reasoning_effort {
                s.reasoning_effort = serde_json::from_value(serde_json::json!(e))?;
            }
            let c = if reset || s != c.model_settings {
                app.chats().set_model_settings(&c.id, &s).await?
            } else {
                c
            };
            if json {
                output::json(&c.model_settings)?;
            } else {
                #[allow(clippy::print_stdout)]
                {
                    let s = &c.model_settings;
                    if *s == Default::default() {
                        println!("(no overrides: the agent's settings apply)");
                    }
                    for (k, v) in [
                        ("temperature", s.temperature.map(|t| t.to_string())),
                        ("max_tokens", s.max_tokens.map(|t| t.to_string())),
                        ("context_window", s.context_window.map(|t| t.to_string())),
                        ("reasoning_effort", s.reasoning_effort.map(|e| e.as_str().to_owned())),
                        ("images", s.images.map(|b| b.to_string())),
                    ] {
                        if let Some(v) = v {
                            println!("{k}: {v}");
                        }
                    }
                }
            }
        }
        ChatCommand::Delete { chat } => {
            let c = app.chats().get(&chat).await?;
            app.chats().delete(&c.id).await?;
            if json {
                output::json(&serde_json::json!({ "id": c.id, "deleted": true }))?;
            } else {
                #[allow(clippy::print_stdout)]
                {
                    println!("Deleted chat {} ({})", c.id, c.title);
                }
            }
        }
    }
    Ok(())
}
