//! The one error type of the crate: every message names the server and
//! says what went wrong in words a person can act on.

use std::time::Duration;

/// What went wrong talking to an MCP server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The command could not be started (not found, not executable).
    #[error("MCP server {server}: cannot start {command:?}: {message}")]
    Spawn {
        server: String,
        command: String,
        message: String,
    },
    /// No answer to the handshake in time.
    #[error("MCP server {server} did not answer the handshake within {} s{}", secs(*after), tail(stderr))]
    HandshakeTimeout {
        server: String,
        after: Duration,
        stderr: Vec<String>,
    },
    /// The handshake failed (the process exited, bad answers, a refusal).
    #[error("MCP server {server} failed to start: {message}{}", tail(stderr))]
    Handshake {
        server: String,
        message: String,
        stderr: Vec<String>,
    },
    /// An HTTP server wants a sign-in (none is kept, or the kept one was
    /// refused and could not be refreshed).
    /// `challenge` is its `WWW-Authenticate` (where its metadata is, the
    /// scopes it wants), which the sign-in starts from.
    #[error("MCP server {server} at {url} needs a sign-in (it answered 401 Unauthorized)")]
    Unauthorized {
        server: String,
        url: String,
        challenge: Option<String>,
    },
    /// The server wants a sign-in with more scopes than the kept one has
    /// (a 403 `insufficient_scope`); `challenge` is its `WWW-Authenticate`,
    /// which the next sign-in starts from.
    #[error("MCP server {server} at {url} needs a new sign-in for more permissions{}", scope.as_ref().map(|s| format!(" ({s})")).unwrap_or_default())]
    InsufficientScope {
        server: String,
        url: String,
        scope: Option<String>,
        challenge: String,
    },
    /// Signing in failed.
    #[error("MCP server {server}: the sign-in failed: {message}")]
    SignIn { server: String, message: String },
    /// The server process ended.
    #[error("MCP server {server} exited ({how})")]
    Exited { server: String, how: String },
    /// The server is not running (stopped, or waiting to restart).
    #[error("MCP server {server} is not running: {status}")]
    NotRunning { server: String, status: String },
    /// The server answered a request with an error, or the connection
    /// broke in a way that is not an exit.
    #[error("MCP server {server}: {message}")]
    Protocol { server: String, message: String },
    /// A stdio server answered with a message longer than Atelier reads
    /// (`bytes` when known): the answer was dropped, the request failed,
    /// the server runs on.
    #[error(
        "MCP server {server} answered with a message of {}, over the {} a message from a server may be: the answer was dropped and the request failed",
        bytes.map_or_else(|| format!("more than {}", crate::oversize::mib(*limit as u64)), crate::oversize::mib),
        crate::oversize::mib(*limit as u64)
    )]
    TooLarge {
        server: String,
        bytes: Option<u64>,
        limit: usize,
    },
    /// Listing the server's tools failed: it never ended, or went on too
    /// long (pages, tools, time).
    #[error("MCP server {server} {message}")]
    ToolList { server: String, message: String },
    /// A call ran out of time (the server was told to cancel it).
    #[error("timed out after {} s", secs(*after))]
    Timeout { after: Duration },
    /// A call was cancelled by the caller (the server was told).
    #[error("cancelled by user")]
    Cancelled,
}

pub(crate) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

fn tail(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        let from = lines.len().saturating_sub(5);
        format!("; its last stderr lines:\n  {}", lines[from..].join("\n  "))
    }
}

impl McpError {
    /// Whether the server wants the person to sign in (again): no retry
    /// fixes it.
    pub fn needs_sign_in(&self) -> bool {
        matches!(self, McpError::Unauthorized { .. } | McpError::InsufficientScope { .. })
    }

    /// Whether `message` (an error's text, as kept with a server's last
    /// listing) is one of [`Self::needs_sign_in`]'s.
    pub fn says_sign_in_needed(message: &str) -> bool {
        message.contains(" needs a sign-in (it answered 401") || message.contains(" needs a new sign-in for more")
    }

    /// The server's `WWW-Authenticate` when it wants a sign-in: what
    /// [`crate::oauth::sign_in`] starts from.
    pub fn challenge(&self) -> Option<&str> {
        match self {
            McpError::Unauthorized { challenge, .. } => challenge.as_deref(),
            McpError::InsufficientScope { challenge, .. } => Some(challenge),
            _ => None,
        }
    }

    /// The id of the server it is about, when it names one.
    pub fn server(&self) -> Option<&str> {
        match self {
            McpError::Spawn { server, .. }
            | McpError::HandshakeTimeout { server, .. }
            | McpError::Handshake { server, .. }
            | McpError::Unauthorized { server, .. }
            | McpError::InsufficientScope { server, .. }
            | McpError::SignIn { server, .. }
            | McpError::Exited { server, .. }
            | McpError::NotRunning { server, .. }
            | McpError::Protocol { server, .. }
            | McpError::TooLarge { server, .. }
            | McpError::ToolList { server, .. } => Some(server),
            McpError::Timeout { .. } | McpError::Cancelled => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_server_and_show_the_last_stderr_lines() {
        let e = McpError::HandshakeTimeout {
            server: "slow".into(),
            after: Duration::from_millis(1500),
            stderr: (1..=7).map(|i| format!("line {i}")).collect(),
        };
        for e in [
            McpError::Unauthorized {
                server: "s".into(),
                url: "http://h/mcp".into(),
                challenge: None,
            },
            McpError::InsufficientScope {
                server: "s".into(),
                url: "http://h/mcp".into(),
                scope: Some("write".into()),
                challenge: "Bearer".into(),
            },
        ] {
            assert!(
                e.needs_sign_in() && McpError::says_sign_in_needed(&e.to_string()),
                "{e}"
            );
        }
        assert!(!McpError::says_sign_in_needed(&e.to_string()));
        let text = e.to_string();
        assert!(
            text.starts_with("MCP server slow did not answer the handshake within 1.5 s"),
            "{text}"
        );
        assert!(
            text.contains("line 3") && text.contains("line 7") && !text.contains("line 2\n"),
            "{text}"
        );
        assert_eq!(
            McpError::Exited {
                server: "files".into(),
                how: "code 3".into()
            }
            .to_string(),
            "MCP server files exited (code 3)"
        );
    }
}
