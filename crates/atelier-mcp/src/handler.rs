//! Our side of the session: what the client answers when the server asks
//! (roots), and where the server's notifications go: tool-list changes to
//! the owner here; progress (to the call that asked for it) and log
//! messages (to the stderr tail) in `notices`, which takes them in order.
// Roots and logging are deprecated by SEP-2577 (protocol 2026-07-28), but
// servers on older versions (server-filesystem) still ask for roots.
#![allow(deprecated)]

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ListRootsResult, ProtocolVersion, Root};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};

use crate::ToolsChanged;
use crate::notices::Notices;
use crate::stderr::StderrLog;

pub(crate) struct Handler {
    pub(crate) info: ClientConfig,
    pub(crate) roots: Option<Vec<PathBuf>>,
    pub(crate) tools_changed: Option<ToolsChanged>,
    /// Progress and log messages, taken by the transport (see `notices`).
    pub(crate) notices: Arc<Notices>,
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handler")
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl Handler {
    pub(crate) fn new(
        roots: Option<Vec<PathBuf>>,
        name: &str,
        version: &str,
        tools_changed: Option<ToolsChanged>,
        log: Arc<StderrLog>,
    ) -> Self {
        // Roots are offered only to a server that works in a workspace; a
        // shared server is not told the capability exists.
        let caps = if roots.is_some() {
            serde_json::json!({"roots": {"listChanged": false}})
        } else {
            serde_json::json!({})
        };
        let capabilities: ClientCapabilities = serde_json::from_value(caps).unwrap_or_default();
        Self {
            // The version an `initialize` asks for when it is the only
            // handshake tried (discovery has its own list, see
            // `connection::lifecycle`); rmcp's default is the stateless
            // 2026-07-28, which has no `initialize`.
            info: ClientConfig::new(capabilities, Implementation::new(name, version))
                .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE),
            roots,
            tools_changed,
            notices: Arc::new(Notices::new(log)),
        }
    }
}

/// `file://` URI of a folder (percent-encoding what a URI path may not hold).
pub(crate) fn file_uri(path: &std::path::Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl Handler {
    /// Our roots as `roots/list` answers them (also inside a call's
    /// `input_required` round, see `input`).
    pub(crate) fn roots_result(&self) -> ListRootsResult {
        let roots = self
            .roots
            .iter()
            .flatten()
            .map(|p| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                let root = Root::new(file_uri(p));
                match name {
                    Some(n) => root.with_name(n),
                    None => root,
                }
            })
            .collect();
        ListRootsResult::new(roots)
    }
}

impl ClientHandler for Handler {
    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, rmcp::ErrorData> {
        let roots = self.roots_result();
        // rmcp sends it as we return: the first call may go (`roots_wait`).
        crate::roots_wait::mark(&self.notices.roots, crate::roots_wait::RootsAsked::Answered);
        Ok(roots)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(f) = &self.tools_changed {
            f();
        }
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_folder_becomes_a_file_uri() {
        assert_eq!(
            super::file_uri(std::path::Path::new("/data/chats/a b/ws")),
            "file:///data/chats/a%20b/ws"
        );
    }
}
