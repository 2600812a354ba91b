//! The command tree. `toolset …`, `tool …` and `run …` slot in beside
//! `chat` and `workspace` as the core grows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod chat;
mod mcp;
pub(crate) use chat::ChatCommand;
pub(crate) use mcp::{McpAddArgs, McpCommand};

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

    /// Where no keychain is reachable, keep secrets in a file only you can
    /// read (mode 0600) in the data dir, for this command.
    #[arg(long, global = true)]
    pub allow_file_secrets: bool,

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
    Gc {
        /// Also read every kept version and check it against its hash;
        /// damaged ones are moved aside (a snapshot of a good copy repairs them).
        #[arg(long)]
        verify: bool,
    },
    /// Recorded tool calls.
    #[command(subcommand)]
    Call(CallCommand),
    /// Build a chat with two branches in a throwaway data dir and show it.
    Demo(DemoArgs),
    /// App settings (shared with the desktop app).
    #[command(subcommand)]
    Settings(SettingsCommand),
    /// Agents: who answers in a chat, and which tools each may use.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// API keys and tokens, kept in the OS keychain (values are never printed).
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// LLM providers: OpenAI-compatible servers (OpenAI, Ollama, LM Studio,
    /// llama.cpp, vLLM, OpenRouter…) and Anthropic.
    #[command(subcommand)]
    Provider(ProviderCommand),
    /// MCP servers: add your own, import a Claude Desktop config, see their
    /// state and tools.
    #[command(subcommand)]
    Mcp(McpCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum ProviderCommand {
    /// Add (or replace) a provider. `--preset` fills in the kind and URL.
    Add {
        id: String,
        #[arg(long, value_parser = ["openai", "anthropic", "openrouter", "ollama", "lmstudio", "llamacpp", "vllm"])]
        preset: Option<String>,
        #[arg(long, value_parser = ["openai", "anthropic"])]
        kind: Option<String>,
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// The model chats use unless they say otherwise.
        #[arg(long)]
        model: Option<String>,
        /// A header sent with every request (not a secret: see `provider secret`).
        #[arg(long = "header", value_name = "NAME=VALUE")]
        headers: Vec<String>,
        /// Then ask for its API key (typed without echo, or read from stdin).
        #[arg(long)]
        key: bool,
    },
    /// Store the API key (or, with --header, a secret header's value): from
    /// stdin or typed without echo, never an argument.
    Secret {
        id: String,
        #[arg(long, value_name = "NAME")]
        header: Option<String>,
    },
    /// List providers (and where each one's key comes from).
    List,
    /// Show a provider.
    Show { id: String },
    /// Try a provider: list its models.
    Test { id: String },
    /// The models a provider offers.
    Models { id: String },
    /// Remove a provider and its secrets.
    Remove { id: String },
    /// Find model servers running on this computer (Ollama, LM Studio, llama.cpp, vLLM).
    Detect,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SecretsCommand {
    /// Where secrets are kept on this machine.
    Status,
    /// Store a secret; the value is read from stdin (or asked for without
    /// echo on a terminal), never taken as an argument.
    Set {
        /// provider:ID, toolset:ID or mcp:ID.
        owner: String,
        key: String,
    },
    /// Remove a secret.
    Unset { owner: String, key: String },
    /// The names of stored secrets (never their values).
    List { owner: Option<String> },
    /// Whether OWNER has a value for KEY, and where it comes from (the
    /// value itself is never printed: `<set>` or an error).
    Check { owner: String, key: String },
    /// Allow (or with --no, forbid) the file fallback for good.
    AllowFile {
        #[arg(long)]
        no: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum AgentCommand {
    /// List agents.
    List,
    /// Show an agent.
    Show { id: String },
    /// Create an agent. A new agent has no tools until you allow some.
    Create {
        /// Its name, e.g. "Researcher".
        name: String,
        /// Its id (models call it by this): default, the name in lower case with `-`, accents dropped.
        #[arg(long)]
        id: Option<String>,
        #[arg(long, default_value = "")]
        description: String,
        #[arg(long, default_value = "")]
        system_prompt: String,
        /// Allow all tools of a toolset or MCP server (repeatable).
        #[arg(long = "toolset", value_name = "ID")]
        toolsets: Vec<String>,
        /// Allow tools by name or glob: `write_file`, `csv-report.*`, `*` (repeatable).
        #[arg(long = "tool", value_name = "PATTERN")]
        tools: Vec<String>,
    },
    /// Change an agent: what is given replaces what it had.
    Edit {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        description: Option<String>,
        #[arg(long)]
        system_prompt: Option<String>,
        /// Add a toolset or MCP server to the allowlist (repeatable).
        #[arg(long = "add-toolset", value_name = "ID")]
        add_toolsets: Vec<String>,
        /// Take a toolset off the allowlist (repeatable).
        #[arg(long = "remove-toolset", value_name = "ID")]
        remove_toolsets: Vec<String>,
        /// Add a tool pattern (repeatable).
        #[arg(long = "add-tool", value_name = "PATTERN")]
        add_tools: Vec<String>,
        /// Remove a tool pattern (repeatable).
        #[arg(long = "remove-tool", value_name = "PATTERN")]
        remove_tools: Vec<String>,
        #[arg(long)]
        max_depth: Option<u32>,
        #[arg(long)]
        max_steps: Option<u32>,
    },
    /// Delete an agent (its chats keep their history).
    Delete { id: String },
    /// Write an agent to a YAML file.
    Export {
        id: String,
        #[arg(short, long, value_name = "FILE.yaml")]
        output: PathBuf,
    },
    /// Create an agent from a YAML file (unknown toolsets are kept, with a warning).
    Import {
        file: PathBuf,
        /// Replace an agent with the same id.
        #[arg(long)]
        replace: bool,
    },
    /// The tools a run of the agent gets: model-facing names, sources, warnings.
    Resolve {
        id: String,
        /// 0: a chat's own run; 1: a sub-agent; …
        #[arg(long, default_value_t = 0)]
        depth: u32,
        /// Also the wire names a provider gets.
        #[arg(long, value_enum)]
        exposure: Option<ExposureArg>,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum ExposureArg {
    Openai,
    Anthropic,
    Mcp,
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
    /// The canonical tool id (`write_file`, `app-builder:run_command`), or
    /// with --agent the name a model would use (`app-builder.run_command`).
    pub tool: String,
    /// Call as this agent's run would: TOOL is routed within the agent's
    /// resolved tools, and a name outside them is refused (and recorded).
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// With --agent: the run's depth (0: a chat's own run; 1: a sub-agent).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "agent")]
    pub depth: u32,
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
    /// The calls of a chat, oldest first (every branch).
    List { chat: String },
    /// Show a recorded call (its id, or a unique prefix of it).
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
        /// Also allow the toolset's tools to this agent (repeatable), e.g. `--agent assistant`.
        #[arg(long = "agent", value_name = "ID")]
        agents: Vec<String>,
        /// A setting of its `user_config` (repeatable). Sensitive settings are
        /// never arguments: they are asked for on a terminal, or read from stdin.
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Let it read this variable of your environment for its `${VAR}`
        /// references (repeatable); without this it reads none.
        #[arg(long = "allow-env", value_name = "VAR")]
        allow_env: Vec<String>,
    },
    /// Check a ZIP or folder without installing it: every problem, and what it would run.
    Validate {
        path: PathBuf,
        /// Warnings (an unknown key…) fail it too.
        #[arg(long)]
        strict: bool,
    },
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
    /// Print the JSON Schema of toolset.yaml (for an editor), or write it into
    /// a toolset folder as `.toolset.schema.json`, where `toolset init`'s
    /// first line points an editor at it.
    Schema {
        /// The toolset folder to write it into (refreshes an older copy).
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
    /// Validate a toolset folder and pack it into a deterministic ZIP.
    Pack {
        dir: PathBuf,
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Pack even with warnings (by default a warning fails the pack, as
        /// `validate --strict` does).
        #[arg(long)]
        allow_warnings: bool,
    },
    /// Show a toolset's settings, show one, or set one (`user_config`).
    /// A sensitive setting's value is asked for on a terminal or read from
    /// stdin, never taken as an argument.
    Config {
        id: String,
        key: Option<String>,
        value: Option<String>,
        /// Remove the value (back to the default, if any).
        #[arg(long, conflicts_with = "value")]
        unset: bool,
    },
    /// Let a toolset read a variable of your environment for its `${VAR}`
    /// references (or, with --no, take that back).
    AllowEnv {
        id: String,
        var: String,
        #[arg(long)]
        no: bool,
    },
    /// Start one of a toolset's MCP servers in the foreground, as Atelier
    /// starts it: references resolved for that toolset only (its secrets and
    /// settings, the variables you allowed it). Its stdio is this terminal's.
    RunServer {
        id: String,
        server: String,
        /// Print what would start (values of env and headers as <set>), start nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Install the example toolsets that ship with Atelier.
    InstallExamples,
    /// Run the fixture calls of a folder's `tests/*.yaml` in a scratch data dir; exit 1 if one fails.
    Test { dir: PathBuf },
    /// Install a folder as a local toolset and reload it on every change (Ctrl-C stops).
    Dev {
        dir: PathBuf,
        /// After each good reload, run this tool (its id in the toolset, or
        /// a canonical id) and print its result and render plan.
        #[arg(long, value_name = "TOOL")]
        run: Option<String>,
        /// The arguments of --run, as a JSON object.
        #[arg(long, value_name = "JSON", default_value = "{}", requires = "run")]
        args: String,
        /// The chat --run runs in (default: a new chat named after the toolset).
        #[arg(long, requires = "run")]
        chat: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolCommand {
    /// List tools, sorted by canonical id.
    List,
    /// Show a tool with its input schema and render config.
    Show { id: String },
    /// Show or set whether a tool asks before it runs: `default` (its
    /// author's choice), `ask` (always) or `allow` (never).
    Policy {
        id: String,
        #[arg(value_parser = ["default", "ask", "allow"])]
        policy: Option<String>,
    },
    /// Let a tool run without a question in one chat (until revoked).
    Allow {
        id: String,
        #[arg(long)]
        chat: String,
    },
    /// Take back `tool allow`.
    Revoke {
        id: String,
        #[arg(long)]
        chat: String,
    },
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
