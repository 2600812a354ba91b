//! Toolsets: bundles of tools a person installs (a `toolset.yaml`, Python
//! tools, renderers, assets, MCP server declarations).
//!
//! - [`manifest`]: `toolset.yaml` as typed structs, and its YAML form.
//! - [`validate`]: reading a manifest and reporting every problem with its
//!   field path, line and column ([`locate`]).
//! - [`interp`]: the interpolation grammar of renderer configs.
//! - [`bundle`]: reading ZIPs and folders safely; deterministic ZIPs.
//! - `load`: a bundle read from disk and checked (`check_bundle`), and
//!   `not_found`: what it holds where its manifest should be;
//!   [`install`]: import and upgrade (`rows`: the rows it writes; `undo`:
//!   what a refused one takes back); [`manage`]: listings, enable/disable,
//!   uninstall; `servers`: the rules they share.
//! - [`export`]: regenerating `toolset.yaml` and packing bundles.
//! - [`records`]: the records handed out.
//! - [`schema`]: the JSON Schema of `toolset.yaml`, derived from [`manifest`].
//! - [`watch`]: hot reload of a local folder; [`live`]: of every local
//!   toolset while an app runs.
//! - [`examples`]: the bundled example toolsets and the `init` scaffold.
//! - [`config`]: settings (`user_config`), secrets in declarations, and the
//!   resolved launch of a toolset's MCP server.

pub mod bundle;
pub mod config;
pub mod examples;
pub mod export;
pub mod ignore;
pub mod install;
pub mod interp;
pub mod live;
mod load;
pub mod locate;
pub mod manage;
pub mod manifest;
mod not_found;
pub mod records;
mod rows;
pub mod schema;
mod servers;
mod swap;
mod undo;
pub mod validate;
pub(crate) use swap::recover as recover_imports;
pub(crate) use swap::recover_uninstalls;
pub mod watch;
mod zipdir;
mod zipnames;

pub use install::{ImportOptions, tool_id};

#[cfg(test)]
mod tests;

/// Installed toolsets and their tools: import, upgrade, export, enable, uninstall, hot reload: `app.toolsets()`. A view of the [`Atelier`] handle (cheap, `Copy`);
/// every operation of this area is a method here.
#[derive(Debug, Clone, Copy)]
pub struct Toolsets<'a> {
    pub(crate) app: &'a crate::Atelier,
}
