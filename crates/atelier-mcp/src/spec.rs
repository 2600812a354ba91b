//! What to connect to, and how.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::redact::Redact;

/// A server to run or reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

/// A command speaking MCP on its stdin/stdout. `Debug` names the
/// environment's variables, never their values (secrets among them).
#[derive(Clone, PartialEq, Eq)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    /// The whole environment of the process: nothing is inherited (the
    /// core builds the same minimal base as for Python workers, plus the
    /// server's declared variables).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// A streamable-HTTP endpoint. `Debug` shows the URL's origin and the
/// headers' names only (a token may be in either).
#[derive(Clone, PartialEq, Eq)]
pub struct HttpSpec {
    pub url: String,
    /// Sent with every request (`Authorization: Bearer …` among them).
    pub headers: Vec<(String, String)>,
}

fn names(pairs: &[(String, String)]) -> Vec<&str> {
    pairs.iter().map(|(k, _)| k.as_str()).collect()
}

impl std::fmt::Debug for StdioSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioSpec")
            .field("command", &self.command)
            .field("args", &format_args!("<{} args>", self.args.len()))
            .field("env", &names(&self.env))
            .field("cwd", &self.cwd)
            .finish()
    }
}

impl std::fmt::Debug for HttpSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let origin = reqwest::Url::parse(&self.url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|_| "<not a URL>".to_owned());
        f.debug_struct("HttpSpec")
            .field("origin", &origin)
            .field("headers", &names(&self.headers))
            .finish()
    }
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

/// How long a whole tool listing may take: a server that never answers
/// `tools/list` must not hold the listing (the app lists servers in the
/// background at start) forever. The spec's lifecycle asks clients to set
/// timeouts on all requests.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(60);

/// How to connect.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The handshake (discovery, or `initialize` for older servers) must
    /// end within this.
    pub handshake_timeout: Duration,
    /// A whole tool listing (every page) must end within this
    /// ([`LIST_TIMEOUT`] unless a test wants it shorter).
    pub list_timeout: Duration,
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
    /// The secrets in the spec (resolved `env` and header values, tokens
    /// in the URL): taken out of every error, status and stderr line.
    pub redact: Redact,
    /// Where an HTTP server's sign-in is kept (`None`: no sign-in is sent).
    pub oauth: Option<crate::oauth::OAuth>,
}

/// Whether a server answers only `initialize`, learnt by its connections
/// and shared by the next ones (a supervisor's restarts, each chat's
/// instance). Such a server is greeted with `initialize` at once: no
/// `server/discover` probe first, which costs a server that ignores unknown
/// requests rmcp's 10 s fallback wait, and one that answers it with `{}` a
/// second process.
///
/// A definite answer (an error, `{}`) is learnt at once. A probe that only
/// ran out of time is not, the first time: a modern server may just have
/// been slow to start (`npx` fetching it), and would then be greeted the
/// old way for good; a connection that times out the same way and began
/// after the first one ended is learnt (two that began together, while
/// the server was being fetched, count once). A server that refuses the
/// `initialize` greeting is forgotten (it may have been upgraded), so the
/// next connection probes again; other failures keep what was learnt.
#[derive(Debug, Clone, Default)]
pub struct Handshake(Arc<Mutex<Learnt>>);

/// What a [`Handshake`] knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Learnt {
    #[default]
    Unknown,
    /// A probe went unanswered, in a connection that ended then.
    TimedOut(Instant),
    InitializeOnly,
}

impl Handshake {
    /// What an earlier process learnt (the record of its last connection
    /// says the server spoke an older protocol): greet with `initialize`
    /// at once. A refused greeting forgets it, as any learnt answer.
    pub fn learnt_old() -> Self {
        Self(Arc::new(Mutex::new(Learnt::InitializeOnly)))
    }

    /// Whether connections greet the server with `initialize` at once.
    pub fn initialize_only(&self) -> bool {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) == Learnt::InitializeOnly
    }

    /// After a refused handshake: a server greeted the old way may have
    /// been upgraded, so the next connection probes again.
    pub(crate) fn refused(&self) {
        let mut learnt = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if *learnt == Learnt::InitializeOnly {
            *learnt = Learnt::Unknown;
        }
    }

    /// After a connection that began at `began`: `legacy`, it spoke
    /// `initialize`; `by_timeout`, only because the probe went unanswered.
    pub(crate) fn learn(&self, began: Instant, legacy: bool, by_timeout: bool) {
        let mut learnt = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *learnt = match (legacy, by_timeout, *learnt) {
            (false, _, _) => Learnt::Unknown,
            (true, false, _) => Learnt::InitializeOnly,
            (true, true, Learnt::Unknown) => Learnt::TimedOut(Instant::now()),
            (true, true, Learnt::TimedOut(ended)) if began > ended => Learnt::InitializeOnly,
            (true, true, same) => same,
        };
    }
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            handshake_timeout: Duration::from_secs(30),
            list_timeout: LIST_TIMEOUT,
            roots: None,
            stop_grace: Duration::from_secs(2),
            client_name: "atelier".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            handshake: Handshake::default(),
            redact: Redact::default(),
            oauth: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::Handshake;

    #[test]
    fn a_definite_answer_is_learnt_at_once_a_timeout_the_second_time_and_a_modern_answer_forgets() {
        let h = Handshake::default();
        let first = Instant::now();
        let together = Instant::now();
        h.learn(first, true, true);
        assert!(!h.initialize_only(), "one unanswered probe may be a slow start");
        h.learn(together, true, true);
        assert!(
            !h.initialize_only(),
            "begun before the first ended: it was the same slow start"
        );
        h.learn(Instant::now(), true, true);
        assert!(h.initialize_only(), "begun after: the server ignores the probe");
        h.learn(Instant::now(), false, false);
        assert!(!h.initialize_only(), "it answered the probe: modern now");
        h.learn(Instant::now(), true, false);
        assert!(h.initialize_only(), "an error or {{}} to the probe is definite");
        h.learn(Instant::now(), false, false);
        h.learn(Instant::now(), true, true);
        assert!(!h.initialize_only(), "a timeout after a reset counts from one again");
    }
}

#[cfg(test)]
mod debug_tests {
    use super::*;

    #[test]
    fn debug_output_names_what_is_there_never_a_value() {
        let http = HttpSpec {
            url: "https://mcp.example.com/v1/tok-in-path-991?key=tok-in-query-992".into(),
            headers: vec![("Authorization".into(), "Bearer tok-header-993".into())],
        };
        let stdio = StdioSpec {
            command: "server".into(),
            args: vec!["--token".into(), "tok-arg-994".into()],
            env: vec![("API_KEY".into(), "tok-env-995".into())],
            cwd: PathBuf::from("/tmp"),
        };
        let shown = format!("{:?} {:?}", ServerSpec::Http(http), ServerSpec::Stdio(stdio));
        assert!(
            shown.contains("https://mcp.example.com") && shown.contains("Authorization") && shown.contains("API_KEY"),
            "{shown}"
        );
        assert!(!shown.contains("tok-"), "{shown}");
    }
}
