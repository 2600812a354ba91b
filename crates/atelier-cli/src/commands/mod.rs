//! One function per command: call the core, print the result.

mod agent;
mod call;
mod chat;
mod demo;
mod provider;
mod secrets;
mod send;
mod settings;
mod toolset;
mod toolset_dev;
mod toolset_settings;
mod workspace;

use atelier_core::{Atelier, DataDir};

use crate::cli::{Cli, Command};

/// Runs a parsed command line.
pub(crate) async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Demo(args) => demo::run(args, cli.json).await,
        Command::Chat(cmd) => chat::run(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await,
        Command::Workspace(cmd) => {
            workspace::run(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await
        }
        Command::Toolset(cmd) => toolset::run(cli.data_dir, cli.allow_file_secrets, cmd, cli.json).await,
        Command::Run(args) => call::run(&open(cli.data_dir, cli.allow_file_secrets).await?, args, cli.json).await,
        Command::Gc { verify } => {
            workspace::gc(&open(cli.data_dir, cli.allow_file_secrets).await?, verify, cli.json).await
        }
        Command::Call(cmd) => call::show(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await,
        Command::Settings(cmd) => {
            settings::run(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await
        }
        Command::Tool(cmd) => {
            toolset::run_tool(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await
        }
        Command::Agent(cmd) => agent::run(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await,
        Command::Provider(cmd) => {
            provider::run(&open(cli.data_dir, cli.allow_file_secrets).await?, cmd, cli.json).await
        }
        Command::Secrets(args) => {
            secrets::run(&open(cli.data_dir, cli.allow_file_secrets).await?, args, cli.json).await
        }
    }
}

/// Opens the data dir; `allow_file_secrets`: the person's consent (for this
/// command) to a 0600 file where no keychain is reachable.
pub(crate) async fn open(data_dir: Option<std::path::PathBuf>, allow_file_secrets: bool) -> anyhow::Result<Atelier> {
    let app = Atelier::open(DataDir::resolve(data_dir)?).await?;
    if allow_file_secrets {
        app.allow_file_secrets_for_this_process();
        // What the start could not move without a store, now it can.
        app.toolsets().move_plain_secrets().await?;
    }
    Ok(app)
}
