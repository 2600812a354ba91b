//! `atelier mcp …`: MCP servers a person adds, and those toolsets declare.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Add an MCP server of yours (shared by every chat), then connect to it
    /// once and list its tools.
    Add(McpAddArgs),
    /// Add the servers of a Claude Desktop / Cursor / VS Code config file
    /// (`mcpServers`, or `servers`): what each would run is shown first.
    #[command(after_help = "\
The values of each server's `env` and `headers` go to your secret store, \
never to the database. On a terminal you are asked to confirm; elsewhere \
(a script, FILE `-`) give --yes after reading the list. Each server added \
is connected to once to list its tools; the exit code is 1 if one of them \
could not connect (it stays added: fix it, then `atelier mcp restart ID`).")]
    ImportConfig {
        /// The config file, or `-` for stdin.
        file: PathBuf,
        /// Add without asking (needed where stdin is not a terminal).
        #[arg(long, short)]
        yes: bool,
        /// Add only this server of the file (repeatable).
        #[arg(long = "only", value_name = "ID")]
        only: Vec<String>,
    },
    /// List MCP servers: transport, state, tools, scope, who declared each.
    List,
    /// Show a server: what it runs, its state, last error, stderr tail, tools.
    Show { id: String },
    /// The tools a server offered when it was last listed.
    Tools { id: String },
    /// Connect to a server afresh and list its tools again (instances
    /// running in this process are stopped first).
    Restart { id: String },
    /// Enable a server (then connect once to list its tools).
    Enable { id: String },
    /// Disable a server: it stops and its tools leave the tool list.
    Disable { id: String },
    /// Remove a server you added, with its secrets (a toolset's server goes
    /// with its toolset).
    Remove { id: String },
    /// Sign in to an HTTP server that asks for it (OAuth): opens your
    /// browser at its sign-in page and waits for it to come back.
    #[command(after_help = "\
The sign-in page's address is printed, and opened with `xdg-open` when a \
display is there. After you approve, the browser comes back to a \
listener on 127.0.0.1 that Atelier opened for this sign-in; Ctrl+C or \
--timeout gives up. The tokens and the client Atelier registered go to \
your secret store (owner `mcp:ID`), never the database; the server is \
then connected to and listed.

Test hook: ATELIER_BROWSER=\"COMMAND ARGS…\" runs that command with the \
address appended instead of xdg-open (e.g. `curl -sL -o /dev/null` where \
the authorization server redirects at once).")]
    Login {
        id: String,
        /// How long to wait for the browser to come back, in seconds.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Forget a server's sign-in (its tokens and registered client).
    Logout { id: String },
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["url", "command"])))]
#[command(override_usage = "atelier mcp add [OPTIONS] ID (--url URL | -- CMD [ARGS]...)")]
#[command(after_help = "\
Values are never arguments (they would land in shell history and `ps`): \
for each --env or --header KEY the value is asked for without echo on a \
terminal; otherwise it is read from stdin — all of stdin for a single KEY \
(one trailing newline dropped), else one `KEY=VALUE` line per KEY. They are \
kept in your secret store (owner `mcp:ID`); the database holds only the \
names.

After adding, Atelier connects to the server once and lists its tools. If \
that fails, the server stays added, the error is printed (\"added; could \
not connect: …\") and the exit code is 1: fix the cause and run \
`atelier mcp restart ID`, or `atelier mcp remove ID`.

Examples:
  atelier mcp add everything -- npx -y @modelcontextprotocol/server-everything
  echo \"$GITHUB_TOKEN\" | atelier mcp add github --env GITHUB_TOKEN --agent assistant -- github-mcp-server stdio
  atelier mcp add remote --url https://example.com/mcp --header Authorization")]
pub(crate) struct McpAddArgs {
    /// The server's id: its tools are `ID:tool` (`ID.tool` for models).
    pub id: String,
    /// An environment variable the command gets (its value is asked for;
    /// repeatable).
    #[arg(long = "env", value_name = "KEY", conflicts_with = "url")]
    pub env: Vec<String>,
    /// An HTTP header sent to --url (its value is asked for; repeatable).
    #[arg(long = "header", value_name = "KEY", requires = "url")]
    pub headers: Vec<String>,
    /// Also allow the server's tools to this agent (repeatable), e.g.
    /// `--agent assistant`. Checked before anything is added.
    #[arg(long = "agent", value_name = "ID")]
    pub agents: Vec<String>,
    /// A streamable-HTTP server's address.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// How long a call of its tools may go without news (a result or
    /// progress), in seconds; 60 by default.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD ARGS")]
    pub command: Vec<String>,
}
