//! What to connect to, and how.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A server to run or reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

/// A command speaking MCP on its stdin/stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    /// The whole environment of the process: nothing is inherited (the
    /// core builds the same minimal base as for Python workers, plus the
    /// server's declared variables).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// A streamable-HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSpec {
    pub url: String,
    /// Sent with every request (`Authorization: Bearer …` among them).
    pub headers: Vec<(String, String)>,
}

impl ServerSpec {
    /// What a person would recognise: the command line or the URL.
    pub fn describe(&self) -> String {
        match self {
            ServerSpec::Stdio(s) => std::iter::once(s.command.as_str())
                .chain(s.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            ServerSpec::Http(h) => h.url.clone(),
        }
    }
}

/// How to connect.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The handshake (discovery, or `initialize` for older servers) must
    /// end within this.
    pub handshake_timeout: Duration,
    /// Folders offered to the server as roots. `None`: the client does not
    /// declare the roots capability at all (a shared server is offered
    /// none); `Some`: a chat-scoped server gets its workspace.
    pub roots: Option<Vec<PathBuf>>,
    /// How long stop waits at each step (close, then SIGTERM) before the
    /// next one.
    pub stop_grace: Duration,
    /// The name and version the client announces.
    pub client_name: String,
    pub client_version: String,
    /// What this server's earlier connections learnt of its handshake
    /// (share one per server).
    pub handshake: Handshake,
}

/// Whether a server answers only `initialize`, learnt by a connection and
/// shared by the next ones (a supervisor's restarts, each chat's instance).
/// Such a server is greeted with `initialize` at once: no `server/discover`
/// probe first, which costs a server that ignores unknown requests rmcp's
/// 10 s fallback wait, and one that answers it with `{}` a second process.
/// A connection that fails that way forgets it (the server may have been
/// upgraded), so the next one probes again.
#[derive(Debug, Clone, Default)]
pub struct Handshake(Arc<AtomicBool>);

impl Handshake {
    /// Whether the last connection that got through spoke `initialize`.
    pub fn initialize_only(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn learn(&self, initialize_only: bool) {
        self.0.store(initialize_only, Ordering::Relaxed);
    }
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            handshake_timeout: Duration::from_secs(30),
            roots: None,
            stop_grace: Duration::from_secs(2),
            client_name: "atelier".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            handshake: Handshake::default(),
        }
    }
}
