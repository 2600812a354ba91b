//! `atelier chat …`: chats, their branches, and talking to their agent.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub(crate) enum ChatCommand {
    /// Start a chat with an empty workspace.
    New {
        #[arg(long)]
        title: Option<String>,
    },
    /// Send a message and have the chat's agent answer through its model:
    /// the answer streams to stdout, tool activity to stderr; Ctrl-C stops.
    Send {
        chat: String,
        text: String,
        /// Answer as this agent (default: the chat's, else the Assistant).
        #[arg(long)]
        agent: Option<String>,
        /// Use this provider from now on in this chat.
        #[arg(long)]
        provider: Option<String>,
        /// Use this model from now on in this chat.
        #[arg(long)]
        model: Option<String>,
        /// Answer under this message instead of the active leaf (a branch).
        #[arg(long, value_name = "MESSAGE_ID")]
        parent: Option<String>,
        /// Run calls that ask for confirmation without asking (on a
        /// terminal you are asked; elsewhere they are denied without it).
        #[arg(long)]
        yes: bool,
        /// Make the first model turn call this tool (its model-facing
        /// name): small local models rarely choose a tool by themselves.
        #[arg(long, value_name = "TOOL")]
        force_tool: Option<String>,
        /// Send an image with the message (PNG, JPEG, GIF, WebP; repeat
        /// for more): it is added to the workspace, as a drop does.
        #[arg(long = "image", value_name = "FILE")]
        images: Vec<std::path::PathBuf>,
    },
    /// Answer again: a new run from where the model's message MESSAGE
    /// started (the old answer stays, a branch away).
    Retry {
        chat: String,
        message: String,
        #[arg(long)]
        yes: bool,
    },
    /// Edit a message of yours: the new text becomes its sibling and is answered.
    Edit {
        chat: String,
        message: String,
        text: String,
        #[arg(long)]
        yes: bool,
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
    /// Start a new chat from a message: its history is the path to that
    /// message and its workspace that message's state (the source chat is
    /// untouched).
    Fork {
        chat: String,
        message: String,
        #[arg(long)]
        title: Option<String>,
    },
    /// Show the chat's model settings, or override its agent's: only the
    /// options given change; --reset clears every override first.
    Settings {
        chat: String,
        #[command(flatten)]
        settings: ModelSettingsArgs,
        #[arg(long)]
        reset: bool,
    },
    /// Delete a chat, its history and its workspace.
    Delete { chat: String },
}

/// Model settings (each unset one falls through to the agent's, then to
/// the provider's default).
#[derive(Debug, Args)]
pub(crate) struct ModelSettingsArgs {
    /// 0 to 2.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// The most tokens of one answer.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens, when Atelier does not know it.
    #[arg(long)]
    pub context_window: Option<u32>,
    #[arg(long, value_parser = ["low", "medium", "high"])]
    pub reasoning_effort: Option<String>,
    /// Whether the model takes images (default: judged by its name).
    #[arg(long)]
    pub images: Option<bool>,
}
