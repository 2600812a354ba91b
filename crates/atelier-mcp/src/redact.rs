//! The values a server's errors must never show: the secrets the core
//! resolved into its launch (an `env` value, a header, a token in its
//! URL). Every error, status and stderr line this crate hands out for
//! that server has them replaced by `<redacted>`, so they reach no
//! output, database row or log.

use std::sync::Arc;

use crate::error::McpError;

/// What stands in for a value.
pub const REDACTED: &str = "<redacted>";

/// A value this short is not replaced: no secret is, and replacing it
/// would garble the message (a port, a word of it).
const MIN_LEN: usize = 4;

/// The values to take out of one server's errors. Cloning shares them;
/// `Debug` says how many, never which.
#[derive(Clone, Default)]
pub struct Redact(Arc<[String]>);

impl std::fmt::Debug for Redact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redact(<{} values>)", self.0.len())
    }
}

impl Redact {
    /// Each value as given and as a URL writes it in a path or a query
    /// (percent-encoded: an error of the HTTP client shows the URL so),
    /// longest first, so a value inside another goes with it.
    pub fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut all: Vec<String> = Vec::new();
        for v in values {
            let v = v.as_ref();
            all.push(v.to_owned());
            for (prefix, part) in [("http://h/", Part::Path), ("http://h/?", Part::Query)] {
                if let Ok(u) = reqwest::Url::parse(&format!("{prefix}{v}")) {
                    let encoded = match part {
                        Part::Path => u.path().trim_start_matches('/').to_owned(),
                        Part::Query => u.query().unwrap_or_default().to_owned(),
                    };
                    all.push(encoded);
                }
            }
        }
        all.retain(|v| v.len() >= MIN_LEN);
        all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        all.dedup();
        Self(all.into())
    }

    /// Whether there is nothing to take out.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every value replaced by [`REDACTED`].
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for v in self.0.iter() {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), REDACTED);
            }
        }
        out
    }

    /// Every line redacted.
    pub fn lines(&self, lines: Vec<String>) -> Vec<String> {
        if self.is_empty() {
            return lines;
        }
        lines.iter().map(|l| self.text(l)).collect()
    }

    /// The error with every value taken out of what it says (the server's
    /// id stays: it is no secret, and the message must name it).
    pub fn error(&self, e: McpError) -> McpError {
        if self.is_empty() {
            return e;
        }
        let t = |s: String| self.text(&s);
        match e {
            McpError::Spawn {
                server,
                command,
                message,
            } => McpError::Spawn {
                server,
                command: t(command),
                message: t(message),
            },
            McpError::HandshakeTimeout { server, after, stderr } => McpError::HandshakeTimeout {
                server,
                after,
                stderr: self.lines(stderr),
            },
            McpError::Handshake {
                server,
                message,
                stderr,
            } => McpError::Handshake {
                server,
                message: t(message),
                stderr: self.lines(stderr),
            },
            McpError::Unauthorized { server, url, challenge } => McpError::Unauthorized {
                server,
                url: t(url),
                challenge,
            },
            McpError::InsufficientScope {
                server,
                url,
                scope,
                challenge,
            } => McpError::InsufficientScope {
                server,
                url: t(url),
                scope,
                challenge,
            },
            McpError::SignIn { server, message } => McpError::SignIn {
                server,
                message: t(message),
            },
            McpError::Exited { server, how } => McpError::Exited { server, how: t(how) },
            McpError::NotRunning { server, status } => McpError::NotRunning {
                server,
                status: t(status),
            },
            McpError::Protocol { server, message } => McpError::Protocol {
                server,
                message: t(message),
            },
            McpError::ToolList { server, message } => McpError::ToolList {
                server,
                message: t(message),
            },
            // Sizes and the server's id: nothing of the spec.
            e @ (McpError::TooLarge { .. } | McpError::Timeout { .. } | McpError::Cancelled) => e,
        }
    }
}

#[derive(Clone, Copy)]
enum Part {
    Path,
    Query,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_as_written_and_as_a_url_writes_them() {
        let r = Redact::new(["tok en/42", "s3cr3t-value", "ab"]);
        let said = r.text(
            "http://h/mcp/tok en/42/x?token=s3cr3t-value failed; \
             error sending request for url (http://h/mcp/tok%20en/42/x?token=s3cr3t-value&k=tok%20en/42)",
        );
        assert_eq!(
            said,
            "http://h/mcp/<redacted>/x?token=<redacted> failed; \
             error sending request for url (http://h/mcp/<redacted>/x?token=<redacted>&k=<redacted>)"
        );
        assert_eq!(r.text("a tab"), "a tab", "too short to be a secret");
        assert_eq!(format!("{r:?}"), "Redact(<3 values>)");
        let e = r.error(McpError::Handshake {
            server: "remote".into(),
            message: "could not connect (at http://h/s3cr3t-value)".into(),
            stderr: vec!["key s3cr3t-value".into()],
        });
        assert_eq!(
            e.to_string(),
            "MCP server remote failed to start: could not connect (at http://h/<redacted>); \
             its last stderr lines:\n  key <redacted>"
        );
    }
}
