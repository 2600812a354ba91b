//! `atelier agent …`: agents and the tools a run of each gets.
#![allow(clippy::print_stdout)] // printing is this command's job

use anyhow::Context as _;
use atelier_core::Atelier;
use atelier_core::agents::{Agent, AgentSpec, SavedAgent};
use atelier_core::routing::{Exposure, expose};

use crate::cli::{AgentCommand, ExposureArg};
use crate::output;

pub(crate) async fn run(app: &Atelier, cmd: AgentCommand, json: bool) -> anyhow::Result<()> {
    let agents = app.agents();
    match cmd {
        AgentCommand::List => {
            let list = agents.list().await?;
            if json {
                return output::json(&list);
            }
            for a in &list {
                println!(
                    "{:<20} {:<24} {}",
                    output::shown(&a.id),
                    output::shown(&a.name),
                    output::shown(&allowlist(a))
                );
            }
        }
        AgentCommand::Show { id } => show(&agents.get(&id).await?, json)?,
        AgentCommand::Create {
            name,
            id,
            description,
            system_prompt,
            toolsets,
            tools,
        } => {
            let id = match id {
                Some(id) => id,
                None => atelier_core::agents::id_from_name(&name).ok_or_else(|| {
                    anyhow::anyhow!(
                        "no id can be made from the name {name:?} (ids take a-z, 0-9 and -): give one with --id, e.g. --id analyst"
                    )
                })?,
            };
            let mut spec = AgentSpec::new(&id, &name);
            spec.description = description;
            spec.system_prompt = system_prompt;
            spec.toolsets = toolsets;
            spec.tools = tools;
            saved(&agents.save(&spec, false).await?, json)?;
        }
        AgentCommand::Edit {
            id,
            name,
            description,
            system_prompt,
            add_toolsets,
            remove_toolsets,
            add_tools,
            remove_tools,
            max_depth,
            max_steps,
        } => {
            let mut spec = agents.get(&id).await?.spec();
            if let Some(n) = name {
                spec.name = n;
            }
            if let Some(d) = description {
                spec.description = d;
            }
            if let Some(p) = system_prompt {
                spec.system_prompt = p;
            }
            edit_list(&mut spec.toolsets, add_toolsets, &remove_toolsets);
            edit_list(&mut spec.tools, add_tools, &remove_tools);
            spec.max_depth = max_depth.unwrap_or(spec.max_depth);
            spec.max_steps = max_steps.unwrap_or(spec.max_steps);
            saved(&agents.save(&spec, true).await?, json)?;
        }
        AgentCommand::Delete { id } => {
            agents.delete(&id).await?;
            if !json {
                println!("Deleted agent {id}.");
            }
        }
        AgentCommand::Export { id, output: path } => {
            let yaml = agents.export(&id).await?;
            std::fs::write(&path, yaml).with_context(|| format!("could not write {}", path.display()))?;
            if !json {
                println!("Wrote agent {id} to {}.", path.display());
            }
        }
        AgentCommand::Import { file, replace } => {
            let text = std::fs::read_to_string(&file).with_context(|| format!("could not read {}", file.display()))?;
            let imported = agents.import(&text, &file.display().to_string(), replace).await?;
            for w in &imported.warnings {
                eprintln!("warning: {}", output::shown_lines(&w.to_string()));
            }
            if json {
                return output::json(&imported);
            }
            let verb = if imported.replaced { "Replaced" } else { "Imported" };
            println!("{verb} agent {} ({}).", imported.agent.id, allowlist(&imported.agent));
        }
        AgentCommand::Resolve { id, depth, exposure } => {
            let resolved = agents.resolve(&id, depth).await?;
            let exposed = exposure.map(|e| {
                expose(
                    &resolved,
                    match e {
                        ExposureArg::Openai => Exposure::Openai,
                        ExposureArg::Anthropic => Exposure::Anthropic,
                        ExposureArg::Mcp => Exposure::Mcp,
                    },
                )
            });
            if json {
                return output::json(&serde_json::json!({"resolved": resolved, "exposed": exposed}));
            }
            for w in resolved.warnings.iter().chain(exposed.iter().flat_map(|e| &e.warnings)) {
                eprintln!("warning: {}", output::shown_lines(&w.to_string()));
            }
            if resolved.tools.is_empty() {
                println!("Agent {id} gets no tools (allow some with `atelier agent edit {id} --add-tool …`).");
            }
            for t in &resolved.tools {
                // Names come from toolsets and MCP servers: escaped.
                let wire = exposed
                    .as_ref()
                    .and_then(|e| e.tools.iter().find(|x| x.canonical_id == t.canonical_id))
                    .map(|x| format!("  as {}", output::shown(&x.wire_name)))
                    .unwrap_or_default();
                let source = t.source_id.as_deref().unwrap_or("builtin");
                println!(
                    "{:<40} {:<12} {}{wire}",
                    output::shown(&t.model_name),
                    output::shown(source),
                    output::shown(&t.canonical_id)
                );
            }
        }
    }
    Ok(())
}

fn show(a: &Agent, json: bool) -> anyhow::Result<()> {
    if json {
        return output::json(a);
    }
    println!("{}  {}", output::shown(&a.id), output::shown(&a.name));
    if !a.description.is_empty() {
        println!("  {}", output::shown_lines(&a.description).replace('\n', "\n  "));
    }
    println!("  allowed: {}", output::shown(&allowlist(a)));
    println!("  max depth {}, max steps {}", a.max_depth, a.max_steps);
    Ok(())
}

/// An agent just created or edited, after what its rules match nothing with.
fn saved(s: &SavedAgent, json: bool) -> anyhow::Result<()> {
    for w in &s.warnings {
        eprintln!("warning: {}", output::shown_lines(&w.to_string()));
    }
    show(&s.agent, json)
}

/// "toolsets: csv-report; tools: write_file, *_file" or "no tools".
fn allowlist(a: &Agent) -> String {
    let mut parts = Vec::new();
    if !a.toolsets.is_empty() {
        parts.push(format!("toolsets: {}", a.toolsets.join(", ")));
    }
    if !a.tools.is_empty() {
        parts.push(format!("tools: {}", a.tools.join(", ")));
    }
    if parts.is_empty() {
        "no tools".to_owned()
    } else {
        parts.join("; ")
    }
}

fn edit_list(list: &mut Vec<String>, add: Vec<String>, remove: &[String]) {
    list.retain(|x| !remove.contains(x));
    for a in add {
        if !list.contains(&a) {
            list.push(a);
        }
    }
}
