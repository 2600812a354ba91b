//! MCP servers in Atelier: their rows, how each is started, which ones
//! run, and calls of their tools.
//!
//! - [`servers`]: the `mcp_servers` rows — servers a person added and those
//!   toolsets declare (synced in by `toolsets`) — with the tools each
//!   offered when it was last listed. A run resolves its tools before any
//!   chat-scoped server is up, so the pool is built from this cache.
//! - [`launch`]: a row as an [`atelier_mcp::ServerSpec`]: the toolset's
//!   launch (its references resolved for it alone) or the person's
//!   settings (values from the secret store, owner `mcp:<id>`), on the
//!   same minimal environment as Python workers; `toolset run-server`'s
//!   by the same code ([`HandLaunch`]).
//! - [`running`]: the servers this process runs, one
//!   [`atelier_mcp::Supervisor`] per (server, chat) for chat-scoped servers
//!   and per server for shared ones; idle chat servers stop after
//!   [`McpSettings::idle`].
//! - [`call`]: a tool call as the run flow needs it, and the default
//!   render plan of MCP content.
//! - [`content`]: MCP content as a model reads it (words, not the JSON of
//!   its blocks).
//! - [`instructions`]: what a server says about its tools, in the system
//!   prompt of a run that offers them, framed as the server's words.
//! - `schemas`: a listed tool's input schema that is not an object schema
//!   or not valid JSON Schema, as a warning of its server.
//! - [`import`]: `mcpServers` JSON (Claude Desktop, Cursor) as servers to add.
//! - `signin`: an HTTP server's OAuth sign-in (`login`, `logout`), kept in
//!   the secret store under `mcp:<id>`; a server that wants one has the
//!   status "needs sign-in".
//!
//! Connections themselves are `atelier-mcp`'s; nothing here speaks the
//! protocol.

pub mod call;
pub mod content;
pub mod import;
pub mod instructions;
pub(crate) mod launch;
pub(crate) mod running;
mod schemas;
pub mod servers;
mod signin;

use std::time::Duration;

pub use atelier_mcp::oauth::Opener;
pub use atelier_mcp::{HttpSpec, ServerSpec, StdioSpec};
pub use import::ImportCandidate;
pub use launch::HandLaunch;
pub use servers::{McpTool, NewServer, ServerDetails, ServerRecord, ServerTransport};
/// What cuts a sign-in's wait short (`Mcp::login`).
pub use tokio_util::sync::CancellationToken;

use crate::Atelier;

/// Timings of MCP servers.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// A chat's server unused this long is stopped.
    pub idle: Duration,
    /// A server must finish its handshake within this.
    pub handshake: Duration,
    /// Stop waits this long at each step (close, SIGTERM) before the next.
    pub stop_grace: Duration,
    /// The first restart delay after a crash (doubling to 30 s).
    pub backoff_start: Duration,
}

impl Default for McpSettings {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(300),
            handshake: Duration::from_secs(30),
            stop_grace: Duration::from_secs(2),
            backoff_start: Duration::from_secs(1),
        }
    }
}

/// The MCP facet: `app.mcp()`.
#[derive(Debug, Clone, Copy)]
pub struct Mcp<'a> {
    pub(crate) app: &'a Atelier,
}

impl Atelier {
    pub fn mcp(&self) -> Mcp<'_> {
        Mcp { app: self }
    }
}
