//! A toolset's settings from a terminal: `--config` of `toolset import`,
//! `toolset config`, and the consent lines `toolset validate` prints.
//! Sensitive values are asked for without echo, or read from stdin; they
//! are never arguments (shell history, `ps`) and never printed.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::Path;

use anyhow::Context;
use atelier_core::mcp::ServerSpec;
use atelier_core::secrets::Secret;
use atelier_core::toolsets::ImportOptions;
use atelier_core::toolsets::config::{Consent, ToolsetConfig};
use atelier_core::{Atelier, Error, Observer};
use serde_json::{Map, Value};

use crate::output;

/// `KEY=VALUE` pairs as text (the core reads numbers and booleans).
pub(crate) fn pairs(raw: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut out = Map::new();
    for p in raw {
        let (k, v) = p
            .split_once('=')
            .with_context(|| format!("--config {p:?}: expected KEY=VALUE"))?;
        out.insert(k.trim().to_owned(), Value::String(v.to_owned()));
    }
    Ok(out)
}

/// Values for sensitive settings: one typed without echo per key on a
/// terminal; from stdin otherwise (the whole of it for one key, else
/// `KEY=VALUE` lines).
pub(crate) fn ask_secrets(toolset: &str, keys: &[String]) -> anyhow::Result<BTreeMap<String, Secret>> {
    ask_values(keys, |k| format!("setting {k} of toolset {toolset}"))
}

/// Secret values for `keys`, never from arguments: one typed without echo
/// per key on a terminal (`what` names it in the prompt); from stdin
/// otherwise, the whole of it for one key, else one `KEY=VALUE` line per key.
pub(crate) fn ask_values(keys: &[String], what: impl Fn(&str) -> String) -> anyhow::Result<BTreeMap<String, Secret>> {
    let mut out = BTreeMap::new();
    if std::io::stdin().is_terminal() || keys.len() <= 1 {
        for k in keys {
            out.insert(k.clone(), super::secrets::read_value(&what(k))?);
        }
        return Ok(out);
    }
    let mut all = String::new();
    std::io::stdin()
        .lock()
        .read_to_string(&mut all)
        .context("reading the values from stdin")?;
    for line in all.lines().filter(|l| !l.trim().is_empty()) {
        let (k, v) = line
            .split_once('=')
            .context("stdin: expected one KEY=VALUE line per value asked for")?;
        anyhow::ensure!(
            keys.iter().any(|x| x == k.trim()),
            "stdin: {:?} is not asked for here",
            k.trim()
        );
        out.insert(k.trim().to_owned(), Secret::new(v));
    }
    Ok(out)
}

/// The sensitive keys among `missing`, from the bundle's settings.
async fn sensitive_missing(app: &Atelier, path: &Path, missing: &[String]) -> anyhow::Result<Vec<String>> {
    let report = app.toolsets().check_bundle(path, &Observer::default()).await?;
    Ok(report
        .consent
        .settings
        .map(|s| {
            s.fields
                .into_iter()
                .filter(|f| f.decl.sensitive && missing.contains(&f.key))
                .map(|f| f.key)
                .collect()
        })
        .unwrap_or_default())
}

/// Imports; when required sensitive settings have no value, asks for them
/// (terminal or stdin) and imports again.
pub(crate) async fn import(
    app: &Atelier,
    path: &Path,
    options: &mut ImportOptions,
    agents: &[String],
) -> anyhow::Result<atelier_core::toolsets::records::ImportReport> {
    match app.agents().import_toolset(path, options, agents).await {
        Err(Error::ConfigMissing { toolset, keys, .. }) => {
            let ask = sensitive_missing(app, path, &keys).await?;
            let rest: Vec<&String> = keys.iter().filter(|k| !ask.contains(k)).collect();
            if !rest.is_empty() {
                anyhow::bail!(
                    "toolset {toolset:?} needs {}: give {} with --config KEY=VALUE",
                    rest.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", "),
                    if rest.len() == 1 { "it" } else { "them" }
                );
            }
            options.secrets.extend(ask_secrets(&toolset, &ask)?);
            Ok(app.agents().import_toolset(path, options, agents).await?)
        }
        other => Ok(other?),
    }
}

fn shown(f: &atelier_core::toolsets::config::ConfigField) -> String {
    match (&f.value, f.decl.sensitive, f.is_set) {
        (_, true, true) => "<set>".into(),
        (_, true, false) | (None, _, _) => "<not set>".into(),
        (Some(Value::String(s)), _, set) => format!("{s}{}", if set { "" } else { " (default)" }),
        (Some(v), _, set) => format!("{v}{}", if set { "" } else { " (default)" }),
    }
}

fn print_config(c: &ToolsetConfig) {
    if c.fields.is_empty() {
        println!("{} has no settings.", output::shown(&c.toolset_id));
        return;
    }
    for f in &c.fields {
        let req = if f.decl.required { "*" } else { " " };
        // Keys, titles and default values are the bundle's words: escaped.
        println!(
            "{req}{:<22} {:<9} {:<28} {}",
            output::shown(&f.key),
            f.decl.kind.as_str(),
            output::shown(&shown(f)),
            output::shown(&f.decl.title)
        );
    }
    if !c.missing.is_empty() {
        println!("Required and not set: {}", output::shown(&c.missing.join(", ")));
    }
}

/// `atelier toolset config ID [KEY [VALUE]] [--unset]`.
pub(crate) async fn config(
    app: &Atelier,
    id: &str,
    key: Option<String>,
    value: Option<String>,
    unset: bool,
    json: bool,
) -> anyhow::Result<()> {
    let ts = app.toolsets();
    let result = match (key, value) {
        (None, _) => ts.config(id).await?,
        (Some(k), _) if unset => ts.set_config(id, &Map::new(), &BTreeMap::new(), &[k]).await?,
        (Some(k), Some(v)) => {
            let given = pairs(&[format!("{k}={v}")])?;
            ts.set_config(id, &given, &BTreeMap::new(), &[]).await?
        }
        (Some(k), None) => {
            let current = ts.config(id).await?;
            let field = current
                .fields
                .iter()
                .find(|f| f.key == k)
                .with_context(|| format!("toolset {id:?} has no setting {k:?}"))?;
            if !field.decl.sensitive {
                if json {
                    output::json(field)?;
                } else {
                    println!("{}", shown(field));
                }
                return Ok(());
            }
            let secrets = ask_secrets(id, std::slice::from_ref(&k))?;
            ts.set_config(id, &Map::new(), &secrets, &[]).await?
        }
    };
    if json {
        output::json(&result)?;
    } else {
        print_config(&result);
    }
    Ok(())
}

/// What `toolset validate` says about settings and secrets.
pub(crate) fn print_consent(c: &Consent) {
    if !c.secret_values.is_empty() {
        let n = c.secret_values.len();
        println!(
            "This bundle contains {n} secret value{}; {} will be kept in your {}:",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "they" },
            match c.secret_store {
                Some(atelier_core::secrets::StoreKind::Keychain) => "keychain",
                Some(atelier_core::secrets::StoreKind::File) => "secrets file (mode 0600)",
                None => "keychain (none is reachable: allow the file fallback first)",
            }
        );
        for v in &c.secret_values {
            println!(
                "  {}  {}.{}",
                output::shown(&v.server_id),
                output::shown(&v.field),
                output::shown(&v.name)
            );
        }
    }
    if let Some(s) = &c.settings {
        println!("Settings (* required):");
        print_config(s);
    }
    for r in &c.env_references {
        let state = if r.stored {
            "stored".to_owned()
        } else if r.allowed {
            "read from your environment (allowed)".to_owned()
        } else if r.in_environment {
            format!("in your environment; allow it with --allow-env {}", r.name)
        } else {
            "not set".to_owned()
        };
        println!(
            "Reads ${{{}}} ({}): {state}",
            output::shown(&r.name),
            output::shown(&r.server_ids.join(", "))
        );
    }
}

/// `atelier toolset run-server ID SERVER [--dry-run]`: the server as the
/// app starts its shared instance (the core's launch, one place): in
/// `<data>/mcp/<id>/`, its bundle's files by full path, on the app's
/// minimal environment.
pub(crate) async fn run_server(app: &Atelier, id: &str, server: &str, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let launch = app.mcp().toolset_launch(id, server).await?;
    for w in &launch.warnings {
        eprintln!("warning: {w}");
    }
    let set =
        |keys: &[String]| -> BTreeMap<String, &'static str> { keys.iter().map(|k| (k.clone(), "<set>")).collect() };
    let (command, args, cwd) = match &launch.spec {
        ServerSpec::Stdio(s) => (Some(s.command.as_str()), s.args.len(), Some(&s.cwd)),
        ServerSpec::Http(_) => (None, 0, None),
    };
    if dry_run {
        let is_url = matches!(launch.spec, ServerSpec::Http(_));
        let shown = serde_json::json!({
            "toolset_id": launch.toolset_id,
            "server_id": launch.server_id,
            "command": command,
            "args": args,
            "env": set(&launch.env_keys),
            "url": is_url.then_some("<set>"),
            "headers": set(&launch.header_keys),
            "dir": cwd,
        });
        if json {
            output::json(&shown)?;
        } else {
            println!("{id} / {server}: {}", command.unwrap_or("<url>"));
            if let Some(cwd) = cwd {
                println!("  {args} argument(s); run in {}", cwd.display());
            }
            for k in &launch.env_keys {
                println!("  env {k}=<set>");
            }
            for k in &launch.header_keys {
                println!("  header {k}: <set>");
            }
        }
        return Ok(());
    }
    let ServerSpec::Stdio(spec) = &launch.spec else {
        anyhow::bail!("MCP server {server:?} of {id} is a URL server: there is no process to start");
    };
    let status = tokio::process::Command::new(&spec.command)
        .args(&spec.args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .status()
        .await
        .with_context(|| format!("starting {:?} (MCP server {server:?} of {id})", spec.command))?;
    anyhow::ensure!(status.success(), "MCP server {server:?} of {id} exited with {status}");
    Ok(())
}
