//! The MCP client against real servers, one test binary (each links the
//! whole client; see `[profile.dev]` in the workspace manifest).
//!
//! - [`servers`]: `@modelcontextprotocol/server-everything` and the PyPI
//!   SDK's fixture server: handshake, calls, progress, cancel, crashes,
//!   stderr, `list_changed`, start errors.
//! - [`legacy`]: servers of protocol 2024-11-05, hand-written.
//! - [`listing`]: `tools/list` that never ends, never answers, or repeats.
//! - [`modern`]: the newest protocol's own cases: a slow start, a call
//!   answered `input_required`.
//! - [`notifications`]: progress and logs in the order sent.
//! - [`oversize`]: a message over 16 MiB fails its request at once.
//! - [`http_restart`]: a streamable-HTTP server that lost the session.
//! - [`old_sse`]: an old HTTP+SSE address or a dead one, said in words.
//! - [`conformance`]: the official client conformance suite against
//!   `atelier-mcp-conformance`.
//! - [`common`]: the repository, a server's environment, quick timings.

mod common;
mod conformance;
mod http_restart;
mod legacy;
mod listing;
mod modern;
mod notifications;
mod old_sse;
mod oversize;
mod servers;
