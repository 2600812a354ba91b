//! Agent files: one agent per YAML file, the fields of [`AgentSpec`].
//!
//! An agent file can travel before its toolsets: importing one that names
//! toolsets or tools this data dir does not have keeps them (they start
//! working once installed) and says so in warnings.

use serde::Serialize;

use super::{Agent, AgentSpec, Agents};
use crate::{Error, Result};

/// An imported agent and what it names that is not here (yet).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ImportedAgent {
    pub agent: Agent,
    /// Whether an agent with this id was replaced.
    pub replaced: bool,
    pub warnings: Vec<String>,
}

/// The YAML of an agent file.
pub fn to_yaml(spec: &AgentSpec) -> Result<String> {
    serde_norway::to_string(spec).map_err(|e| Error::Internal(format!("agent {} as YAML: {e}", spec.id)))
}

/// Reads an agent file; `origin` names it in errors.
pub fn from_yaml(text: &str, origin: &str) -> Result<AgentSpec> {
    serde_norway::from_str(text).map_err(|e| Error::InvalidData {
        what: "agent file",
        reason: format!("{origin}: {e}"),
    })
}

impl Agents<'_> {
    /// An agent as a YAML file's text.
    pub async fn export(&self, id: &str) -> Result<String> {
        to_yaml(&self.get(id).await?.spec())
    }

    /// Imports an agent file's text: creates the agent, or replaces the one
    /// with its id when `replace` is set. Unknown toolsets and tools are
    /// kept and reported.
    pub async fn import(&self, text: &str, origin: &str, replace: bool) -> Result<ImportedAgent> {
        let spec = from_yaml(text, origin)?;
        let exists = self.get(&spec.id).await.is_ok();
        let agent = match (exists, replace) {
            (true, true) => self.update(&spec).await?,
            (true, false) => {
                return Err(Error::Conflict(format!(
                    "{origin}: an agent {} exists already (import with --replace to overwrite it)",
                    spec.id
                )));
            }
            (false, _) => self.create(&spec).await?,
        };
        let warnings = self.warnings(&agent).await?;
        Ok(ImportedAgent {
            agent,
            replaced: exists,
            warnings,
        })
    }
}
