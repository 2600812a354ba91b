//! Where a call by name goes within a run's resolved tools, and what a
//! model is told when it goes nowhere: [`ResolvedTools::route`] refuses any
//! name outside the run, naming the run's tools nearest it
//! ([`ResolvedTools::near`]: another case, `__`/`_`/`.` for one another, a
//! bare name's prefixed form, the tail after a prefix no source has) so the
//! model can call one of them next.

use super::names::split;
use super::resolve::{ResolvedTool, ResolvedTools};

/// Why a call by name is refused (what the model is told).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    #[error("Toolset not found: {0}")]
    ToolsetNotFound(String),
    #[error("Tool not found: {0}")]
    ToolNotFound(String),
    /// A call with an empty name.
    #[error("Tool not found: the model called a tool without a name")]
    NoName,
    /// Not found, with the run's tools nearest the name, as the model is
    /// to call them.
    #[error("{missing}. Did you mean {}?", near.join(" or "))]
    Near {
        missing: Box<RouteError>,
        near: Vec<String>,
    },
}

impl RouteError {
    /// The same refusal with the names it suggests as `name` gives them
    /// (the wire names a provider was offered).
    pub fn naming(self, name: impl Fn(&str) -> String) -> Self {
        match self {
            Self::Near { missing, near } => Self::Near {
                missing,
                near: near.iter().map(|n| name(n)).collect(),
            },
            other => other,
        }
    }
}

/// A name as a model may garble it: lower case, and `.`, `-` and runs of
/// `_` all one `_` (`BAD__ECHO`, `bad_echo`, `bad.echo` are alike).
fn loose(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        let c = if matches!(c, '.' | '-') { '_' } else { c };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

impl ResolvedTools {
    /// The tool a model-facing name calls, if this run has it.
    pub fn route(&self, name: &str) -> Result<&ResolvedTool, RouteError> {
        if let Ok(i) = self.by_model_name(name) {
            return Ok(&self.tools[i]);
        }
        let missing = match split(name) {
            _ if name.trim().is_empty() => return Err(RouteError::NoName),
            (Some(prefix), _) if !self.pool_prefixes.contains(prefix) => RouteError::ToolsetNotFound(prefix.to_owned()),
            _ => RouteError::ToolNotFound(name.to_owned()),
        };
        let near: Vec<String> = self.near(name).into_iter().map(|t| t.model_name.clone()).collect();
        if near.is_empty() {
            return Err(missing);
        }
        Err(RouteError::Near {
            missing: Box::new(missing),
            near,
        })
    }

    /// The run's tools a name not among them most likely meant (at most
    /// three): the same name in another case or with `__`, `_` or `.` for
    /// one another; for a bare name, the tools it names under their prefix
    /// (`echo` → `bad.echo`); after a prefix no source has (`functions.`),
    /// what the rest would be.
    pub fn near(&self, name: &str) -> Vec<&ResolvedTool> {
        const MAX: usize = 3;
        let key = loose(name);
        if key.is_empty() || key == "_" {
            return Vec::new();
        }
        let same: Vec<&ResolvedTool> = self.tools.iter().filter(|t| loose(&t.model_name) == key).collect();
        if !same.is_empty() {
            return same.into_iter().take(MAX).collect();
        }
        if !name.contains('.') {
            let tail = |t: &&ResolvedTool| split(&t.model_name).0.is_some() && loose(split(&t.model_name).1) == key;
            let prefixed: Vec<&ResolvedTool> = self.tools.iter().filter(tail).collect();
            if !prefixed.is_empty() {
                return prefixed.into_iter().take(MAX).collect();
            }
        }
        match split(name) {
            (Some(prefix), rest) if !self.pool_prefixes.contains(prefix) && !rest.is_empty() => self.near_exact(rest),
            _ => Vec::new(),
        }
    }

    /// `name` itself when the run has it, else what [`Self::near`] finds.
    fn near_exact(&self, name: &str) -> Vec<&ResolvedTool> {
        match self.by_model_name(name) {
            Ok(i) => vec![&self.tools[i]],
            Err(()) => self.near(name),
        }
    }

    fn by_model_name(&self, name: &str) -> Result<usize, ()> {
        self.tools.iter().position(|t| t.model_name == name).ok_or(())
    }
}
