//! One function per command: call the core, print the result.

mod agent;
mod call;
mod chat;
mod demo;
mod secrets;
mod settings;
mod toolset;
mod workspace;

use atelier_core::{Atelier, DataDir};

use crate::cli::{Cli, Command};

/// Runs a parsed command line.
pub(crate) async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Demo(args) => demo::run(args, cli.json).await,
        Command::Chat(cmd) => chat::run(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Workspace(cmd) => workspace::run(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Toolset(cmd) => toolset::run(cli.data_dir, cmd, cli.json).await,
        Command::Run(args) => call::run(&open(cli.data_dir).await?, args, cli.json).await,
        Command::Gc { verify } => workspace::gc(&open(cli.data_dir).await?, verify, cli.json).await,
        Command::Call(cmd) => call::show(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Settings(cmd) => settings::run(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Tool(cmd) => toolset::run_tool(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Agent(cmd) => agent::run(&open(cli.data_dir).await?, cmd, cli.json).await,
        Command::Secrets(args) => secrets::run(&open(cli.data_dir).await?, args, cli.json).await,
    }
}

pub(crate) async fn open(data_dir: Option<std::path::PathBuf>) -> anyhow::Result<Atelier> {
    Ok(Atelier::open(DataDir::resolve(data_dir)?).await?)
}
