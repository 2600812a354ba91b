//! The tool pool: every tool a run could be given — builtins, the tools of
//! enabled toolsets, the tools of connected MCP servers — as one immutable
//! [`Snapshot`] with a generation number.
//!
//! Every kind of source enters the same way, as a [`Source`]: an id, a
//! prefix and a list of tool definitions. The snapshot checks that prefixes
//! are unique (two sources under one prefix would make routing ambiguous)
//! and keeps tools sorted by canonical id, so everything built from it is
//! deterministic. A run resolves its tools against one snapshot and keeps
//! it; a newer snapshot never changes a run under way.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RoutingError;
use super::names::model_name;
use crate::tools::Policy;

/// What kind of thing provides tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Builtin,
    Toolset,
    Mcp,
}

/// One tool as its source defines it (the bare name, without prefix).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub tags: Vec<String>,
    pub category: Option<String>,
    pub requires_confirmation: bool,
    /// The source says the tool changes nothing (MCP `readOnlyHint`).
    pub read_only: bool,
}

/// A provider of tools: builtins (no id, no prefix), a toolset, or an MCP
/// server. Toolset and server ids share one namespace.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub kind: SourceKind,
    /// The toolset or server id; `None` for builtins.
    pub id: Option<String>,
    /// The toolset's version, for toolsets.
    pub version: Option<String>,
    /// What model-facing names start with; `None` for builtins.
    pub prefix: Option<String>,
    pub tools: Vec<ToolDef>,
    /// For an MCP server, the toolsets that declare it: a toolset on an
    /// agent's allowlist brings them (empty for the person's own).
    pub declared_by: Vec<String>,
}

impl Source {
    /// How errors and listings name the source: `builtin`, `toolset csv-report 1.1.0`, `MCP server files`.
    pub fn label(&self) -> String {
        match (self.kind, &self.id, &self.version) {
            (SourceKind::Builtin, _, _) => "builtin".to_owned(),
            (SourceKind::Toolset, Some(id), Some(v)) => format!("toolset {id} {v}"),
            (SourceKind::Toolset, id, _) => format!("toolset {}", id.as_deref().unwrap_or("?")),
            (SourceKind::Mcp, id, _) => format!("MCP server {}", id.as_deref().unwrap_or("?")),
        }
    }

    /// The canonical id of one of its tools: bare for builtins,
    /// `<source id>:<tool>` otherwise.
    pub fn canonical_id(&self, tool: &str) -> String {
        match &self.id {
            Some(id) => format!("{id}:{tool}"),
            None => tool.to_owned(),
        }
    }
}

/// A tool in the pool, with where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolTool {
    /// `write_file`, `csv-report:summarize`, `files:read_text_file`.
    pub canonical_id: String,
    /// `write_file`, `csv-report.summarize`.
    pub model_name: String,
    /// Index of its source in [`Snapshot::sources`].
    pub source: usize,
    pub def: ToolDef,
}

/// One immutable state of the pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Grows by one each time the pool is rebuilt.
    pub generation: u64,
    /// Builtins first, then the other sources by id.
    pub sources: Vec<Source>,
    /// Sorted by canonical id.
    pub tools: Vec<PoolTool>,
    /// Indices into `tools`, sorted by model-facing name.
    by_model: Vec<usize>,
    /// Source id → index in `sources`.
    by_id: BTreeMap<String, usize>,
    /// Prefix → index in `sources`.
    by_prefix: BTreeMap<String, usize>,
    /// A person's confirmation policy per canonical id, over the author's
    /// `requires_confirmation` (no entry: the author's choice).
    confirmations: BTreeMap<String, Policy>,
}

impl Snapshot {
    /// Builds a snapshot. Two sources with one prefix, or one id, are an
    /// error naming both.
    pub fn build(generation: u64, sources: Vec<Source>) -> Result<Arc<Self>, RoutingError> {
        Self::build_with(generation, sources, BTreeMap::new())
    }

    /// [`Self::build`], with a person's confirmation policies by canonical
    /// id ([`Self::asks`]).
    pub fn build_with(
        generation: u64,
        mut sources: Vec<Source>,
        confirmations: BTreeMap<String, Policy>,
    ) -> Result<Arc<Self>, RoutingError> {
        sources.sort_by(|a, b| (a.kind != SourceKind::Builtin, &a.id).cmp(&(b.kind != SourceKind::Builtin, &b.id)));
        let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
        let mut by_prefix: BTreeMap<String, usize> = BTreeMap::new();
        for (i, s) in sources.iter().enumerate() {
            if let Some(id) = &s.id
                && let Some(&j) = by_id.get(id)
            {
                return Err(RoutingError::DuplicateSource {
                    id: id.clone(),
                    first: sources[j].label(),
                    second: s.label(),
                });
            }
            if let Some(id) = &s.id {
                by_id.insert(id.clone(), i);
            }
            if let Some(prefix) = &s.prefix {
                if let Some(&j) = by_prefix.get(prefix) {
                    return Err(RoutingError::PrefixClash {
                        prefix: prefix.clone(),
                        first: sources[j].label(),
                        second: s.label(),
                    });
                }
                by_prefix.insert(prefix.clone(), i);
            }
        }
        let mut tools: Vec<PoolTool> = sources
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.tools.iter().map(move |t| PoolTool {
                    canonical_id: s.canonical_id(&t.name),
                    model_name: model_name(s.prefix.as_deref(), &t.name),
                    source: i,
                    def: t.clone(),
                })
            })
            .collect();
        tools.sort_by(|a, b| a.canonical_id.cmp(&b.canonical_id));
        let mut by_model: Vec<usize> = (0..tools.len()).collect();
        by_model.sort_by(|&a, &b| tools[a].model_name.cmp(&tools[b].model_name));
        Ok(Arc::new(Self {
            generation,
            sources,
            tools,
            by_model,
            by_id,
            by_prefix,
            confirmations,
        }))
    }

    /// Whether a call of `tool` asks a person first: its author's choice,
    /// unless the person said `ask` or `allow` for it.
    pub fn asks(&self, tool: &PoolTool) -> bool {
        self.confirmations
            .get(&tool.canonical_id)
            .copied()
            .unwrap_or_default()
            .asks(tool.def.requires_confirmation)
    }

    /// The source with this toolset or server id.
    pub fn source_by_id(&self, id: &str) -> Option<(usize, &Source)> {
        self.by_id.get(id).map(|&i| (i, &self.sources[i]))
    }

    /// The MCP servers the toolset `id` declares, as indices into
    /// `sources`.
    pub fn servers_of<'s>(&'s self, id: &'s str) -> impl Iterator<Item = usize> + 's {
        self.sources
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.kind == SourceKind::Mcp && s.declared_by.iter().any(|t| t == id))
            .map(|(i, _)| i)
    }

    /// The source with this prefix.
    pub fn source_by_prefix(&self, prefix: &str) -> Option<(usize, &Source)> {
        self.by_prefix.get(prefix).map(|&i| (i, &self.sources[i]))
    }

    /// The tool with this canonical id.
    pub fn tool(&self, canonical_id: &str) -> Option<&PoolTool> {
        self.tools
            .binary_search_by(|t| t.canonical_id.as_str().cmp(canonical_id))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// The tool with this canonical id or model-facing name.
    pub fn tool_named(&self, name: &str) -> Option<&PoolTool> {
        self.tool(name).or_else(|| {
            self.by_model
                .binary_search_by(|&i| self.tools[i].model_name.as_str().cmp(name))
                .ok()
                .map(|k| &self.tools[self.by_model[k]])
        })
    }

    /// The tools whose canonical id or model-facing name starts with
    /// `prefix` (each once), found by binary search in the sorted orders.
    pub fn tools_starting_with<'s>(&'s self, prefix: &'s str) -> impl Iterator<Item = &'s PoolTool> + 's {
        let by_id_start = self.tools.partition_point(|t| t.canonical_id.as_str() < prefix);
        let by_id = self.tools[by_id_start..]
            .iter()
            .take_while(move |t| t.canonical_id.starts_with(prefix));
        let by_model_start = self
            .by_model
            .partition_point(|&i| self.tools[i].model_name.as_str() < prefix);
        let by_model = self.by_model[by_model_start..]
            .iter()
            .map(move |&i| &self.tools[i])
            .take_while(move |t| t.model_name.starts_with(prefix))
            .filter(move |t| !t.canonical_id.starts_with(prefix));
        by_id.chain(by_model)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn def(name: &str) -> ToolDef {
        ToolDef {
            name: name.to_owned(),
            description: format!("the {name} tool"),
            input_schema: serde_json::json!({"type": "object"}),
            tags: Vec::new(),
            category: None,
            requires_confirmation: false,
            read_only: false,
        }
    }

    pub(crate) fn source(kind: SourceKind, id: &str, tools: &[&str]) -> Source {
        Source {
            kind,
            id: (kind != SourceKind::Builtin).then(|| id.to_owned()),
            version: (kind == SourceKind::Toolset).then(|| "1.0.0".to_owned()),
            prefix: (kind != SourceKind::Builtin).then(|| id.to_owned()),
            tools: tools.iter().map(|t| def(t)).collect(),
            declared_by: Vec::new(),
        }
    }

    #[test]
    fn tools_are_sorted_by_canonical_id_and_named_by_prefix() {
        let snap = Snapshot::build(
            1,
            vec![
                source(SourceKind::Toolset, "zeta", &["b", "a"]),
                source(SourceKind::Builtin, "", &["write_file"]),
                source(SourceKind::Mcp, "files", &["read"]),
            ],
        )
        .expect("build");
        let ids: Vec<&str> = snap.tools.iter().map(|t| t.canonical_id.as_str()).collect();
        assert_eq!(ids, ["files:read", "write_file", "zeta:a", "zeta:b"]);
        let names: Vec<&str> = snap.tools.iter().map(|t| t.model_name.as_str()).collect();
        assert_eq!(names, ["files.read", "write_file", "zeta.a", "zeta.b"]);
        assert_eq!(snap.sources[0].kind, SourceKind::Builtin, "builtins first");
        assert_eq!(snap.tool("zeta:a").map(|t| t.def.name.as_str()), Some("a"));
        assert!(snap.tool("zeta:c").is_none());
        assert_eq!(
            snap.tool_named("zeta.b").map(|t| t.canonical_id.as_str()),
            Some("zeta:b")
        );
        assert_eq!(
            snap.tool_named("files:read").map(|t| t.model_name.as_str()),
            Some("files.read")
        );
        let starting = |p| {
            snap.tools_starting_with(p)
                .map(|t| t.canonical_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(starting("zeta"), ["zeta:a", "zeta:b"]);
        assert_eq!(starting("files."), ["files:read"], "by model-facing name");
        assert_eq!(starting("").len(), 4, "each tool once");
    }

    #[test]
    fn a_prefix_clash_names_both_sources() {
        let mut other = source(SourceKind::Mcp, "csv-server", &["x"]);
        other.prefix = Some("csv".into());
        let mut first = source(SourceKind::Toolset, "csv-report", &["y"]);
        first.prefix = Some("csv".into());
        let err = Snapshot::build(1, vec![first, other]).expect_err("clash").to_string();
        assert!(
            err.contains("csv") && err.contains("toolset csv-report 1.0.0") && err.contains("MCP server csv-server"),
            "{err}"
        );
    }
}
