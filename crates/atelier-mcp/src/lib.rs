//! Atelier's MCP client: connections to MCP servers, nothing else.
//!
//! A [`Connection`] is one live session with one server, over stdio (a
//! child process we own: its own process group, its stderr kept, its exit
//! status known; a message over 16 MiB on its stdout fails the request it
//! answers at once) or streamable HTTP. It lists the server's tools (every
//! page, within limits of pages, tools and time), calls them with progress, a timeout (reset by the
//! call's progress, under a ceiling) and cancellation (the protocol's `notifications/cancelled`), and stops cleanly: the
//! protocol's close, then `SIGTERM`, then `SIGKILL` of the whole group.
//! A [`Supervisor`] keeps one server up: it restarts a crashed server
//! with backoff and answers calls with the server's status while it is
//! down.
//!
//! Everything protocol-level is the official SDK, `rmcp`; this crate adds
//! process hygiene, the error words a person reads, and plain JSON values
//! at its edge so that the core does not depend on rmcp's types. It knows
//! nothing of chats, workspaces or the database: the core says what to
//! run, where, with which environment and which roots — and which values
//! of it are secrets ([`Redact`]): no error, status or stderr line handed
//! out shows them.

mod call;
mod connection;
mod error;
mod handler;
mod http;
mod input;
mod late_probe;
mod listing;
mod lost_session;
mod notices;
pub mod oauth;
mod oversize;
mod process;
mod redact;
mod roots_wait;
mod spec;
mod start;
mod stderr;
mod supervisor;
mod watchdog;
mod words;

pub use call::{CallOptions, CallResult, Progress, ceiling};
pub use connection::{Connection, ServerInfo};

/// The first protocol version with the stateless `server/discover`
/// handshake; a server that spoke an older one speaks only `initialize`.
pub const DISCOVERY_VERSION: &str = "2026-07-28";
pub use error::McpError;
pub use listing::{Listing, ToolInfo};
pub use redact::{REDACTED, Redact};
pub use spec::{ConnectOptions, Handshake, HttpSpec, LIST_TIMEOUT, ServerSpec, StdioSpec};
pub use stderr::StderrLog;
pub use supervisor::{Status, Supervisor, SupervisorOptions, ToolsListed};

/// Receives "the server's tool list changed" (from any task).
pub type ToolsChanged = std::sync::Arc<dyn Fn() + Send + Sync>;
