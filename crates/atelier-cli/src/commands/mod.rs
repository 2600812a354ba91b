//! One function per command: call the core, print the result.

mod agent;
mod call;
mod chat;
mod demo;
mod mcp;
mod mcp_login;
mod mcp_show;
mod provider;
mod secrets;
mod send;
mod settings;
mod tool;
mod toolset;
mod toolset_dev;
mod toolset_report;
mod toolset_settings;
mod workspace;

use atelier_core::{Atelier, DataDir};

use crate::cli::{Cli, Command};

/// Runs a parsed command line.
pub(crate) async fn run(cli: Cli) -> anyhow::Result<()> {
    let json = cli.json;
    match cli.command {
        Command::Demo(args) => demo::run(args, json).await,
        Command::Toolset(cmd) => toolset::run(cli.data_dir, cli.allow_file_secrets, cmd, json).await,
        command => {
            let app = open(cli.data_dir, cli.allow_file_secrets).await?;
            let result = on_app(&app, command, json).await;
            // `run SERVER:TOOL`, `chat send`, `mcp add|restart|…` may have
            // started MCP servers: none outlives the command.
            app.mcp().stop_everything().await;
            result
        }
    }
}

/// A command on an opened data dir.
async fn on_app(app: &Atelier, command: Command, json: bool) -> anyhow::Result<()> {
    match command {
        Command::Chat(cmd) => chat::run(app, cmd, json).await,
        Command::Workspace(cmd) => workspace::run(app, cmd, json).await,
        Command::Run(args) => call::run(app, args, json).await,
        Command::Gc { verify } => workspace::gc(app, verify, json).await,
        Command::Call(cmd) => call::show(app, cmd, json).await,
        Command::Settings(cmd) => settings::run(app, cmd, json).await,
        Command::Tool(cmd) => tool::run(app, cmd, json).await,
        Command::Agent(cmd) => agent::run(app, cmd, json).await,
        Command::Provider(cmd) => provider::run(app, cmd, json).await,
        Command::Secrets(args) => secrets::run(app, args, json).await,
        Command::Mcp(cmd) => mcp::run(app, cmd, json).await,
        Command::Demo(_) | Command::Toolset(_) => unreachable!("handled before the data dir is opened"),
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
