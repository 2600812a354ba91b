//! A toolset's settings and secrets: `user_config` values ([`values`]), the
//! reference grammar of server launch fields ([`refs`]), plain-text values
//! moved into the secret store ([`literals`]), the `${NAME}`s its servers
//! read and the values the person sets for them ([`env_secrets`]), and the
//! resolved launch of a toolset's MCP server ([`launch`]). Every value is
//! resolved for its own toolset only (see [`crate::secrets`]).

pub mod check;
mod env_secrets;
pub mod import;
pub mod launch;
pub(crate) mod literals;
pub mod refs;
pub mod values;

pub use import::{Consent, EnvReference};
pub use launch::LaunchSpec;
pub use literals::SecretValue;
pub use values::{ConfigField, ToolsetConfig};
