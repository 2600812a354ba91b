//! `atelier secrets …`: values go in through stdin or a prompt without
//! echo, never as arguments (they would land in shell history and `ps`),
//! and never come out.
#![allow(clippy::print_stdout)]

use std::io::{BufRead, IsTerminal, Read, Write};

use anyhow::Context;
use atelier_core::Atelier;
use atelier_core::secrets::{Owner, Secret, SecretsStatus, Source};

use crate::cli::SecretsCommand;
use crate::output;

pub(crate) async fn run(app: &Atelier, command: SecretsCommand, json: bool) -> anyhow::Result<()> {
    let secrets = app.secrets();
    match command {
        SecretsCommand::Status => print_status(&secrets.status().await?, json)?,
        SecretsCommand::AllowFile { no } => print_status(&secrets.allow_file_fallback(!no).await?, json)?,
        SecretsCommand::Set { owner, key } => {
            let owner = Owner::parse(&owner)?;
            atelier_core::secrets::check_key(&key)?;
            let value = read_value(&format!("{key} for {owner}"))?;
            let name = secrets.set(&owner, &key, value).await?;
            if json {
                output::json(&name)?;
            } else {
                println!("Stored {} {} in the {}", name.owner, name.key, where_(name.store));
            }
        }
        SecretsCommand::Unset { owner, key } => {
            let had = secrets.unset(&Owner::parse(&owner)?, &key).await?;
            if json {
                output::json(&serde_json::json!({"owner": owner, "key": key, "removed": had}))?;
            } else {
                println!("{}", if had { "Removed" } else { "Nothing was stored" });
            }
        }
        SecretsCommand::Check { owner, key } => {
            let owner = Owner::parse(&owner)?;
            let (_value, source) = secrets.resolve(&owner, &key, &[], &format!("{key} of {owner}")).await?;
            let from = match &source {
                Source::Store(kind) => format!("the {}", where_(*kind)),
                Source::AtelierEnv(var) | Source::AllowedEnv(var) => format!("the environment variable {var}"),
            };
            if json {
                output::json(
                    &serde_json::json!({"owner": owner.to_string(), "key": key, "value": "<set>", "from": from}),
                )?;
            } else {
                println!("{owner} {key}: <set>, from {from}");
            }
        }
        SecretsCommand::List { owner } => {
            let owner = owner.as_deref().map(Owner::parse).transpose()?;
            let names = secrets.list(owner.as_ref()).await?;
            if json {
                output::json(&names)?;
            } else if names.is_empty() {
                println!("No secrets stored.");
            } else {
                for n in names {
                    // A bundle's value is said so: removed, only reinstalling
                    // its toolset brings it back.
                    let from = match n.origin {
                        atelier_core::secrets::SecretOrigin::Bundle => ", from the bundle",
                        atelier_core::secrets::SecretOrigin::Person => "",
                    };
                    println!("{}  {}  ({}{from}, {})", n.owner, n.key, where_(n.store), n.updated_at);
                }
            }
        }
    }
    Ok(())
}

fn where_(store: atelier_core::secrets::StoreKind) -> &'static str {
    match store {
        atelier_core::secrets::StoreKind::Keychain => "OS keychain",
        atelier_core::secrets::StoreKind::File => "0600 file of the data dir",
    }
}

fn print_status(s: &SecretsStatus, json: bool) -> anyhow::Result<()> {
    if json {
        return output::json(s);
    }
    match (&s.store, &s.keychain_error) {
        (Some(atelier_core::secrets::StoreKind::Keychain), _) => println!("Secrets go to the OS keychain."),
        (Some(_), err) => println!(
            "No keychain is reachable ({}); secrets go to {} (mode 0600), as you allowed.",
            err.as_deref().unwrap_or("?"),
            s.file.as_deref().unwrap_or("?")
        ),
        (None, err) => println!(
            "No keychain is reachable ({}). Secrets cannot be stored until you allow a file only you can read: \
             `atelier secrets allow-file`, or `--allow-file-secrets` for one command.",
            err.as_deref().unwrap_or("?")
        ),
    }
    println!("{} secret(s) stored.", s.count);
    Ok(())
}

/// The value: a line typed without echo on a terminal, else all of stdin
/// (one trailing newline dropped).
pub(crate) fn read_value(what: &str) -> anyhow::Result<Secret> {
    let stdin = std::io::stdin();
    let value = if stdin.is_terminal() {
        eprint!("Value of {what} (not shown): ");
        std::io::stderr().flush()?;
        let line = without_echo(|| {
            let mut line = String::new();
            stdin.lock().read_line(&mut line).map(|_| line)
        })?;
        eprintln!();
        line
    } else {
        let mut all = String::new();
        stdin
            .lock()
            .read_to_string(&mut all)
            .context("reading the value from stdin")?;
        all
    };
    let value = value.strip_suffix('\n').unwrap_or(&value);
    let value = value.strip_suffix('\r').unwrap_or(value);
    anyhow::ensure!(
        !value.is_empty(),
        "no value given (pipe it in, or type it at the prompt)"
    );
    Ok(Secret::new(value))
}

/// Runs `read` with the terminal's echo off, restoring it afterwards.
fn without_echo<T>(read: impl FnOnce() -> std::io::Result<T>) -> anyhow::Result<T> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let fd = rustix::stdio::stdin();
    let before = tcgetattr(fd).context("reading the terminal's settings")?;
    let mut quiet = before.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    tcsetattr(fd, OptionalActions::Now, &quiet).context("turning the echo off")?;
    let got = read();
    let _ = tcsetattr(fd, OptionalActions::Now, &before);
    Ok(got?)
}
