//! `atelier toolset …`
#![allow(clippy::print_stdout)]

use std::io::IsTerminal;
use std::path::PathBuf;

use atelier_core::toolsets::ImportOptions;
use atelier_core::toolsets::records::ToolRecord;
use atelier_core::toolsets::validate::{Problem, Severity};
use atelier_core::{Atelier, Observer};

use super::toolset_report::{print_exported, print_will_run};
use super::toolset_settings as settings;
use crate::cli::ToolsetCommand;
use crate::output;

/// A progress bar on stderr when it is a terminal.
fn progress(label: &'static str) -> (Observer, Option<indicatif::ProgressBar>) {
    if !std::io::stderr().is_terminal() {
        // Installer steps (python.requirements) still say what happens.
        let obs = Observer::default().with_steps(|s| {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "  {s}");
        });
        return (obs, None);
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({pos_files})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "pos_files",
                |_s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str("files");
                },
            )
            .progress_chars("=> "),
    );
    bar.set_message(label);
    let b = bar.clone();
    let s = bar.clone();
    let obs = Observer::default()
        .with_progress(move |p| {
            b.set_length(p.bytes_total.max(p.bytes_done));
            b.set_position(p.bytes_done);
        })
        .with_steps(move |step| s.println(format!("  {step}")));
    (obs, Some(bar))
}

/// Problems name the bundle's keys and quote its text: escaped.
pub(super) fn print_problems(problems: &[Problem]) {
    for p in problems {
        println!("  {}", output::shown_lines(&p.to_string()));
    }
}

pub(super) fn print_tool(t: &ToolRecord) {
    use output::shown;
    let renderer = t.render_config.as_ref().map(|r| r.renderer.as_str()).unwrap_or("-");
    let confirm = if t.requires_confirmation { "  (asks first)" } else { "" };
    println!("{:<36} {:<9} {}{confirm}", shown(&t.tool_id), renderer, shown(&t.name));
}

pub(crate) async fn run(
    data_dir: Option<PathBuf>,
    allow_file_secrets: bool,
    cmd: ToolsetCommand,
    json: bool,
) -> anyhow::Result<()> {
    // Authoring commands work on folders and need no data dir.
    match cmd {
        ToolsetCommand::Init { dir, id } => {
            let id = match id {
                Some(id) => id,
                None => dir
                    .file_name()
                    .map(|n| {
                        n.to_string_lossy()
                            .to_lowercase()
                            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
                    })
                    .unwrap_or_else(|| "my-toolset".into()),
            };
            atelier_core::toolsets::examples::init(&dir, &id)?;
            if json {
                output::json(&serde_json::json!({ "path": dir, "id": id }))?;
            } else {
                println!("Created toolset {id} in {}", dir.display());
                println!(
                    "Next: atelier toolset validate {0}  →  atelier toolset pack {0} -o {id}.zip",
                    dir.display()
                );
            }
            return Ok(());
        }
        ToolsetCommand::Schema { write } => {
            use atelier_core::toolsets::schema;
            let text = schema::manifest_schema_text();
            match write {
                None => print!("{text}"),
                Some(dir) => {
                    let path = dir.join(schema::SCHEMA_FILE);
                    std::fs::write(&path, text)
                        .map_err(|e| anyhow::anyhow!("could not write {}: {e}", path.display()))?;
                    if json {
                        output::json(&serde_json::json!({ "path": path }))?;
                    } else {
                        println!("Wrote {}; put this first in toolset.yaml:", path.display());
                        println!("{}", schema::MODELINE);
                    }
                }
            }
            return Ok(());
        }
        ToolsetCommand::Test { dir } => return super::toolset_dev::test(&dir, json).await,
        _ => {}
    }
    let app = super::open(data_dir, allow_file_secrets).await?;
    match cmd {
        ToolsetCommand::Pack {
            dir,
            output: out,
            allow_warnings,
        } => {
            // A worker reads the Python (nothing runs): the data dir holds
            // its caches.
            let packed = app
                .toolsets()
                .pack(&dir, &out, &Observer::default(), allow_warnings)
                .await?;
            if json {
                output::json(&packed)?;
            } else {
                let r = &packed.report;
                println!(
                    "Packed {} files into {} ({} bytes)\nsha256 {}",
                    r.file_count,
                    r.path.display(),
                    r.size,
                    r.sha256
                );
                print_problems(&packed.warnings);
                print_will_run(&packed.will_run);
            }
        }
        ToolsetCommand::Import {
            path,
            force,
            agents,
            config,
            allow_env,
        } => {
            let (observer, bar) = progress("importing");
            let mut options = ImportOptions {
                force,
                observer,
                config: settings::pairs(&config)?,
                allow_env,
                ..Default::default()
            };
            let result = settings::import(&app, &path, &mut options, &agents).await;
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            let report = result?;
            if json {
                output::json(&report)?;
            } else {
                // Every word of the bundle is escaped: a name holding an
                // escape sequence could hide the list of what it will run.
                use output::shown;
                let t = &report.toolset;
                let (id, version) = (shown(&t.id), shown(&t.version));
                match &report.previous_version {
                    Some(v) if v != &t.version => {
                        println!("{} {id} {} → {version}", capitalize(report.action.as_str()), shown(v))
                    }
                    _ => println!(
                        "{} {id} {version} ({})",
                        capitalize(report.action.as_str()),
                        shown(&t.name)
                    ),
                }
                print_will_run(&report.will_run);
                if report.secrets_moved > 0 {
                    println!(
                        "{} secret value(s) of the bundle are kept in your secret store, not in its files.",
                        report.secrets_moved
                    );
                }
                if !report.warnings.is_empty() {
                    println!("Warnings:");
                    print_problems(&report.warnings);
                }
                println!("Tools: {}", shown(&report.tools.join(", ")));
                // The app lists them after an install; here nothing is started.
                if t.enabled && !report.will_run.mcp_servers.is_empty() {
                    for s in &report.will_run.mcp_servers {
                        println!(
                            "Its MCP server {0} is not started yet: `atelier mcp restart {0}` lists its tools \
                             (the app does when it next starts).",
                            shown(&s.id)
                        );
                    }
                }
                for a in &agents {
                    println!("Allowed to agent {a}.");
                }
            }
        }
        ToolsetCommand::Validate { path, strict } => {
            let mut report = app.toolsets().check_bundle(&path, &Observer::default()).await?;
            if strict {
                atelier_core::toolsets::validate::strict(&mut report.problems);
                report.valid &= report.problems.iter().all(|p| p.severity != Severity::Error);
            }
            if json {
                output::json(&report)?;
            } else {
                match (&report.id, &report.version) {
                    (Some(id), Some(v)) => println!(
                        "{} {}: {} files, {} bytes",
                        output::shown(id),
                        output::shown(v),
                        report.file_count,
                        report.total_size
                    ),
                    _ => println!("{}: {} files", path.display(), report.file_count),
                }
                if report.problems.is_empty() {
                    println!("No problems found.");
                } else {
                    print_problems(&report.problems);
                }
                if report.valid {
                    let id = report.id.as_deref().unwrap_or("?");
                    print_exported(
                        "Tools its tools_from modules export (arguments derived from their signatures):",
                        id,
                        &report.exported,
                    );
                    print_exported(
                        "Tools without an input_schema (arguments derived from their functions' signatures):",
                        id,
                        &report.derived,
                    );
                    print_will_run(&report.will_run);
                    settings::print_consent(&report.consent);
                }
            }
            if !report.valid {
                anyhow::bail!("{} is not a valid toolset (see the problems above)", path.display());
            }
        }
        ToolsetCommand::Export { id, output: out } => {
            let report = app.toolsets().export(&id, &out).await?;
            if json {
                output::json(&report)?;
            } else {
                println!(
                    "Exported {id} to {} ({} files, {} bytes)",
                    report.path.display(),
                    report.file_count,
                    report.size
                );
            }
        }
        ToolsetCommand::List => {
            let list = app.toolsets().list().await?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!("No toolsets installed. Try `atelier toolset install-examples`.");
            } else {
                use output::shown;
                for t in list {
                    let state = if t.enabled { "enabled" } else { "disabled" };
                    println!(
                        "{:<24} {:<10} {:<9} {:<6} {}",
                        shown(&t.id),
                        shown(&t.version),
                        state,
                        t.source_type,
                        shown(&t.name)
                    );
                }
            }
        }
        ToolsetCommand::Show { id } => {
            let d = app.toolsets().get(&id).await?;
            if json {
                output::json(&d)?;
            } else {
                use output::shown;
                let t = &d.toolset;
                println!(
                    "{} {} — {}{}",
                    shown(&t.id),
                    shown(&t.version),
                    shown(&t.name),
                    if t.enabled { "" } else { " (disabled)" }
                );
                if !t.description.is_empty() {
                    println!("{}", output::shown_lines(&t.description));
                }
                println!(
                    "source: {} {}",
                    t.source_type,
                    shown(t.source_ref.as_deref().unwrap_or(""))
                );
                println!(
                    "models call its tools {}.<tool>; one worker per {}",
                    shown(&t.prefix),
                    match t.scope {
                        atelier_core::toolsets::manifest::Scope::Chat => "chat",
                        atelier_core::toolsets::manifest::Scope::Shared => "app (shared by every chat)",
                    }
                );
                println!("\nTools:");
                d.tools.iter().for_each(print_tool);
                if !d.mcp_servers.is_empty() {
                    println!("\nMCP servers:");
                    for s in &d.mcp_servers {
                        println!("  {}  {}", shown(&s.server_id), s.config);
                    }
                }
                println!("\nFiles:");
                for f in &d.files {
                    println!("  {:<9} {:>8}  {}", f.kind, f.size, output::shown(&f.path));
                }
            }
        }
        ToolsetCommand::Enable { id } => set_enabled(&app, &id, true, json).await?,
        ToolsetCommand::Disable { id } => set_enabled(&app, &id, false, json).await?,
        ToolsetCommand::Uninstall { id } => {
            app.toolsets().uninstall(&id).await?;
            if json {
                output::json(&serde_json::json!({ "id": id, "uninstalled": true }))?;
            } else {
                println!("Uninstalled {id} (the history of its tool calls is kept)");
            }
        }
        ToolsetCommand::Config { id, key, value, unset } => {
            settings::config(&app, &id, key, value, unset, json).await?;
        }
        ToolsetCommand::RunServer { id, server, dry_run } => {
            settings::run_server(&app, &id, &server, dry_run, json).await?;
        }
        ToolsetCommand::AllowEnv { id, var, no } => {
            let allowed = app.toolsets().allow_env(&id, &var, !no).await?;
            if json {
                output::json(&serde_json::json!({ "id": id, "allowed_env": allowed }))?;
            } else if no {
                println!("{id} may no longer read {var} from your environment.");
            } else {
                println!("{id} may read {var} from your environment (for its ${{{var}}} references).");
            }
        }
        ToolsetCommand::InstallExamples => {
            let reports = app.toolsets().install_examples().await?;
            if json {
                output::json(&reports)?;
            } else if reports.is_empty() {
                println!("The examples are already installed.");
            } else {
                for r in reports {
                    println!(
                        "{} {} {}",
                        capitalize(r.action.as_str()),
                        r.toolset.id,
                        r.toolset.version
                    );
                }
            }
        }
        ToolsetCommand::Dev { dir, run, args, chat } => {
            super::toolset_dev::dev(&app, &dir, run.map(|tool| (tool, args, chat))).await?;
        }
        ToolsetCommand::Init { .. } | ToolsetCommand::Schema { .. } | ToolsetCommand::Test { .. } => {}
    }
    Ok(())
}

pub(super) fn now() -> String {
    let t = atelier_core::ids::now();
    t.get(11..19).unwrap_or(&t).to_owned()
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

async fn set_enabled(app: &Atelier, id: &str, enabled: bool, json: bool) -> anyhow::Result<()> {
    let t = app.toolsets().set_enabled(id, enabled).await?;
    if json {
        output::json(&t)?;
    } else {
        println!(
            "{} {}",
            if enabled { "Enabled" } else { "Disabled" },
            output::shown(&t.id)
        );
    }
    Ok(())
}
