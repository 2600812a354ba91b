//! `atelier provider …`: keys go in through stdin or a prompt, never as
//! arguments, and never come out (`key_from` says where one comes from).
#![allow(clippy::print_stdout)]

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::providers::{ProviderRecord, ProviderSpec};

use crate::cli::ProviderCommand;
use crate::output;

fn print(p: &ProviderRecord) {
    println!(
        "{:<16} {:<9} {:<36} model: {:<20} key: {}",
        p.id,
        p.kind,
        p.base_url,
        p.default_model.as_deref().unwrap_or("-"),
        p.key_from.as_deref().unwrap_or("none")
    );
}

pub(crate) async fn run(app: &Atelier, cmd: ProviderCommand, json: bool) -> anyhow::Result<()> {
    let providers = app.providers();
    match cmd {
        ProviderCommand::Add {
            id,
            preset,
            kind,
            base_url,
            model,
            headers,
            key,
        } => {
            let mut spec = ProviderSpec {
                id: id.clone(),
                preset,
                kind,
                base_url,
                default_model: model,
                ..Default::default()
            };
            for h in headers {
                let (k, v) = h
                    .split_once('=')
                    .with_context(|| format!("--header {h:?}: expected NAME=VALUE"))?;
                spec.headers.insert(k.trim().to_owned(), v.trim().to_owned());
            }
            let key = match key {
                true => Some(super::secrets::read_value(&format!("the API key of provider {id}"))?),
                false => None,
            };
            // As the app's add forms: a key that cannot be kept undoes the
            // add, and with no --model its chat model is chosen now.
            let rec = providers.add_with_key(&spec, key).await?;
            if json {
                output::json(&rec)?;
            } else {
                print(&rec);
            }
        }
        ProviderCommand::Secret { id, header } => {
            let what = match &header {
                Some(h) => format!("header {h} of provider {id}"),
                None => format!("the API key of provider {id}"),
            };
            let value = super::secrets::read_value(&what)?;
            let rec = providers.set_secret(&id, header.as_deref(), value).await?;
            if json {
                output::json(&rec)?;
            } else {
                println!("Stored {what}.");
            }
        }
        ProviderCommand::List => {
            let list = providers.list().await?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!(
                    "No providers. Try `atelier provider detect`, or `atelier provider add ID --preset openai --key`."
                );
            } else {
                list.iter().for_each(print);
            }
        }
        ProviderCommand::Show { id } => {
            let rec = providers.get(&id).await?;
            if json {
                output::json(&rec)?;
            } else {
                print(&rec);
                for (k, v) in &rec.headers {
                    println!("  header {k}: {v}");
                }
                for k in &rec.secret_headers {
                    println!("  header {k}: <set>");
                }
            }
        }
        ProviderCommand::Test { id } => {
            let t = providers.test(&id).await?;
            if json {
                output::json(&t)?;
            } else if t.ok {
                println!("{id} answers: {} model(s)", t.models.len());
            } else {
                println!(
                    "{id} failed ({}): {}",
                    t.error_kind.as_deref().unwrap_or("?"),
                    t.error.as_deref().unwrap_or("")
                );
            }
            anyhow::ensure!(t.ok, "provider {id} did not answer");
        }
        ProviderCommand::Models { id } => {
            let models = providers.models(&id).await?;
            if json {
                output::json(&models)?;
            } else {
                models.iter().for_each(|m| println!("{m}"));
            }
        }
        ProviderCommand::Remove { id } => {
            providers.remove(&id).await?;
            if json {
                output::json(&serde_json::json!({"id": id, "removed": true}))?;
            } else {
                println!("Removed provider {id} and its secrets.");
            }
        }
        ProviderCommand::Detect => {
            let found = providers.detect().await;
            if json {
                output::json(&found)?;
            } else if found.is_empty() {
                println!(
                    "No model server found on this computer (Ollama :11434, LM Studio :1234, llama.cpp :8080, vLLM :8000)."
                );
            } else {
                for d in found {
                    println!(
                        "{:<10} {:<28} {} model(s): {}",
                        d.preset,
                        d.base_url,
                        d.models.len(),
                        d.models.join(", ")
                    );
                    println!("  add it: atelier provider add {0} --preset {0}", d.preset);
                }
            }
        }
    }
    Ok(())
}
