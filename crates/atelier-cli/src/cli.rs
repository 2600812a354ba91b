//! The command tree. `toolset …`, `tool …` and `run …` slot in beside
//! `chat` and `workspace` as the core grows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Atelier: chat with LLM tools in versioned, branching workspaces.
#[derive(Debug, Parser)]
#[command(name = "atelier", version, about, propagate_version = true)]
pub(crate) struct Cli {
    /// The data directory (default: $ATELIER_DATA_DIR, else <OS data dir>/atelier).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Print records as JSON (field names are the database column names).
    #[arg(long, global = true)]
    pub json: bool,

    /// Log more to stderr (-v: info, -vv: debug; ATELIER_LOG overrides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Chats and their branching message trees.
    #[command(subcommand)]
    Chat(ChatCommand),
    /// A chat's versioned workspace folder.
    #[command(subcommand, alias = "ws")]
    Workspace(WorkspaceCommand),
    /// Toolsets: install, check, export and author tool bundles.
    #[command(subcommand)]
    Toolset(ToolsetCommand),
    /// Tools of the enabled toolsets.
    #[command(subcommand)]
    Tool(ToolCommand),
    /// Run a tool in a chat; prints the recorded call.
    Run(RunArgs),
    /// Remove stored file versions that no workspace manifest references.
    Gc,
    /// Recorded tool calls.
    #[command(subcommand)]
    Call(CallCommand),
    /// Build a chat with two branches in a throwaway data dir and show it.
    Demo(DemoArgs),
    /// App settings (shared with the desktop app).
    #[command(subcommand)]
    Settings(SettingsCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum SettingsCommand {
    /// Print the settings.
    Show,
    /// Let frame renderers show pages from an origin (`https://host[:port]`)
    /// besides this computer's; the desktop app applies it at its next start.
    AllowFrameOrigin { origin: String },
    /// Take an origin off the frame renderers' list.
    ForbidFrameOrigin { origin: String },
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The canonical tool id (`write_file`, `app-builder:run_command`).
    pub tool: String,
    #[arg(long)]
    pub chat: String,
    /// The arguments as a JSON object.
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    pub args: Option<String>,
    /// Read the arguments (a JSON object) from a file.
    #[arg(long, value_name = "FILE")]
    pub args_file: Option<PathBuf>,
    /// Run under this message instead of the active leaf (a new branch).
    #[arg(long, value_name = "MESSAGE_ID")]
    pub parent: Option<String>,
    /// Approve a tool that asks for confirmation (without it, the call is recorded as denied).
    #[arg(long)]
    pub yes: bool,
    /// Time limit for this call, in seconds (default: the tool's `timeout_s`, else 60).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Do not echo the tool's output to stderr while it runs.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CallCommand {
    /// Show a recorded call.
    Show { id: String },
    /// Print a call's render plan, or with --html the complete document of an html plan.
    Render {
        id: String,
        #[arg(long)]
        html: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolsetCommand {
    /// Install (or upgrade) a toolset from a ZIP file or a folder. Shows what it will run.
    Import {
        path: PathBuf,
        /// Reinstall even if this version is already installed.
        #[arg(long)]
        force: bool,
    },
    /// Check a ZIP or folder without installing it: every problem, and what it would run.
    Validate { path: PathBuf },
    /// Write an installed toolset to a ZIP (deterministic; secrets stripped).
    Export {
        id: String,
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// List installed toolsets.
    List,
    /// Show a toolset with its tools, files and MCP servers.
    Show { id: String },
    /// Enable a toolset: its tools join the tool list.
    Enable { id: String },
    /// Disable a toolset: its tools leave the tool list.
    Disable { id: String },
    /// Remove a toolset (tool-call history stays).
    Uninstall { id: String },
    /// Create a working toolset to start from: a Python tool, an HTML renderer, a README.
    Init {
        dir: PathBuf,
        /// The toolset id (default: the folder's name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Validate a toolset folder and pack it into a deterministic ZIP.
    Pack {
        dir: PathBuf,
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Install the example toolsets that ship with Atelier.
    InstallExamples,
    /// Install a folder as a local toolset and reload it on every save (Ctrl-C stops).
    Dev { dir: PathBuf },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolCommand {
    /// List tools, sorted by canonical id.
    List,
    /// Show a tool with its input schema and render config.
    Show { id: String },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ChatCommand {
    /// Start a chat with an empty workspace.
    New {
        #[arg(long)]
        title: Option<String>,
    },
    /// List chats, most recent first.
    List,
    /// Show a chat's active branch (or, with --tree, every branch).
    Show {
        chat: String,
        #[arg(long)]
        tree: bool,
    },
    /// Rename a chat.
    Rename { chat: String, title: String },
    /// Make a message the active leaf; the workspace follows.
    Checkout { chat: String, message: String },
    /// Append a user message (under --parent: a new branch).
    Say {
        chat: String,
        text: String,
        #[arg(long, value_name = "MESSAGE_ID")]
        parent: Option<String>,
    },
    /// Delete a chat, its history and its workspace.
    Delete { chat: String },
}

#[derive(Debug, Subcommand)]
pub(crate) enum WorkspaceCommand {
    /// Print the workspace folder's path.
    Path { chat: String },
    /// List the files of the active state, or of --manifest (a manifest or message id).
    Ls {
        chat: String,
        #[arg(long, value_name = "M")]
        manifest: Option<String>,
    },
    /// Print a file of the active state, or of --manifest.
    Cat {
        chat: String,
        path: String,
        #[arg(long, value_name = "M")]
        manifest: Option<String>,
    },
    /// Record edits made in the workspace folder as an `edit` node.
    Snapshot { chat: String },
    /// Compare the workspaces of two messages.
    Diff { chat: String, from: String, to: String },
    /// Show a manifest record (default: the active one).
    Manifest {
        chat: String,
        #[arg(value_name = "M")]
        manifest: Option<String>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Keep the demo's data dir (its path is printed) instead of deleting it.
    #[arg(long)]
    pub keep: bool,
}
