//! Toolsets: bundles of tools a person installs (seed 004 §3).
//!
//! - [`manifest`]: `toolset.yaml` as typed structs, and its YAML form.
//! - [`validate`]: reading a manifest and reporting every problem with its
//!   field path, line and column ([`locate`]).
//! - [`interp`]: the interpolation grammar of renderer configs.

pub mod interp;
pub mod locate;
pub mod manifest;
pub mod validate;

#[cfg(test)]
mod tests;
