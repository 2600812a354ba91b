//! The desktop app's IPC on Tauri's mock runtime, with the real capability
//! file and a real data dir: the commands as the UI calls them. One test
//! binary for all of it, because each binary links the whole app and
//! WebKitGTK's bindings (see `[profile.dev]` in the workspace manifest).
//!
//! - [`commands`]: every command registered and permitted for the main
//!   window and nothing else; failures as `{kind, message}`.
//! - [`bindings`]: `ui/src/bindings.ts` is what the Rust types generate
//!   (`UPDATE_BINDINGS=1 cargo test -p atelier-app --test ipc bindings`
//!   rewrites it).
//! - [`chat`]: providers, a message answered on a channel, fork, Stop.
//! - [`settings`]: agents, a provider's settings, a toolset's settings and
//!   secrets.
//! - [`mcp`]: MCP servers added, listed, restarted, disabled, imported.
//! - [`toolset_secrets`]: a value a toolset's server reads, set without a
//!   terminal; the server starts once it is.
//! - [`logs`]: the log file, and the UI's errors written into it.
//! - [`common`]: the harness and `invoke`.

mod bindings;
mod chat;
mod commands;
mod common;
mod logs;
mod mcp;
mod settings;
mod toolset_secrets;
