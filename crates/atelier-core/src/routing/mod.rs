//! Tool routing: which tools a run sees, under which names, and where a
//! call by name goes.
//!
//! - [`pool`]: every tool a run could get, as immutable snapshots built from
//!   [`pool::Source`]s (builtins, enabled toolsets, connected MCP servers —
//!   one interface for all).
//! - [`names`]: model-facing names (`<prefix>.<tool>`) and globs.
//! - [`filters`]: filters (AND-composed) and policies (deny only).
//! - [`resolve`]: an agent's tools for one run, and the router.
//! - [`exposure`]: the resolved tools as OpenAI, Anthropic or MCP take
//!   them (wire names, schema feature loss).
//!
//! Everything here is pure except loading the pool ([`Routing::snapshot`]),
//! so resolution can be benchmarked and property-tested on its own. The
//! cached snapshot is rebuilt after any change to what provides tools: a
//! toolset imported, upgraded, enabled, disabled, uninstalled or reloaded
//! — by this process or another one on the same data dir, which is why the
//! cache checks a fingerprint of the toolset rows (one small query) rather
//! than waiting to be told — and a source added or removed; and after a
//! person's confirmation policy changes (the sub-agent policy reads it). A
//! run keeps the snapshot it resolved with.

pub mod exposure;
pub mod filters;
pub mod names;
pub mod pool;
pub mod resolve;
mod route;
mod schema;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

pub use exposure::{Exposed, Exposure, expose};
pub use filters::{Filter, Policy};
pub use pool::{Snapshot, Source, SourceKind, ToolDef};
pub use resolve::{AgentTools, ResolvedTool, ResolvedTools, RouteError, resolve};

use crate::{Atelier, Result};

/// Why a pool or a resolution cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoutingError {
    #[error("prefix {prefix:?} is used by both {first} and {second}: give one of them another prefix")]
    PrefixClash {
        prefix: String,
        first: String,
        second: String,
    },
    #[error("id {id:?} is used by both {first} and {second} (toolsets and MCP servers share one namespace)")]
    DuplicateSource { id: String, first: String, second: String },
    #[error("two tools would both be called {name:?}: {first} and {second}; rename or re-prefix one of them")]
    DuplicateName {
        name: String,
        first: String,
        second: String,
    },
}

impl From<RoutingError> for crate::Error {
    fn from(e: RoutingError) -> Self {
        crate::Error::RoutingConflict(e.to_string())
    }
}

/// The pool cache of one data dir: the current snapshot (if still valid)
/// and sources that are not in the database (connected MCP servers).
#[derive(Debug, Default)]
pub(crate) struct PoolCache {
    state: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    /// Bumped by every change to what provides tools.
    version: u64,
    /// Snapshots built so far (the next one's generation is this + 1).
    built: u64,
    current: Option<Arc<Snapshot>>,
    /// What the toolset rows looked like when `current` was built.
    fingerprint: String,
    extra: BTreeMap<String, Source>,
}

/// The routing facet: `app.routing()`.
#[derive(Debug, Clone, Copy)]
pub struct Routing<'a> {
    pub(crate) app: &'a Atelier,
}

impl Routing<'_> {
    fn cache(&self) -> std::sync::MutexGuard<'_, CacheState> {
        // A panic while holding this lock leaves a valid state.
        self.app.pool_cache().state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current pool, rebuilt if something changed since the last one.
    pub async fn snapshot(&self) -> Result<Arc<Snapshot>> {
        let fingerprint = load::fingerprint(self.app).await?;
        let seen = {
            let cache = self.cache();
            if let Some(s) = &cache.current
                && cache.fingerprint == fingerprint
            {
                return Ok(Arc::clone(s));
            }
            cache.version
        };
        let mut sources = vec![load::builtins(self.app).await?];
        let servers = load::mcp_servers(self.app).await?;
        // A toolset of no tools of its own that wraps a server under its
        // own id (the one case validation allows) is that server here: its
        // id on an allowlist brings the server's tools.
        let toolsets = load::toolsets(self.app).await?;
        sources.extend(
            toolsets
                .into_iter()
                .filter(|t| !(t.tools.is_empty() && servers.iter().any(|s| s.id == t.id))),
        );
        sources.extend(servers);
        let confirmations = self.app.tools().policies().await?;
        let mut cache = self.cache();
        sources.extend(cache.extra.values().cloned());
        cache.built += 1;
        let snap = Snapshot::build_with(cache.built, sources, confirmations)?;
        // A source changed while we read does not hide behind this
        // snapshot: only one built from the latest state is kept.
        if cache.version == seen {
            cache.current = Some(Arc::clone(&snap));
            cache.fingerprint = fingerprint;
        }
        Ok(snap)
    }

    /// Marks the pool stale: the next [`Routing::snapshot`] rebuilds it.
    pub fn invalidate(&self) {
        let mut cache = self.cache();
        cache.current = None;
        cache.version += 1;
    }

    /// Adds (or replaces) a source that is not in the database — a
    /// connected MCP server — and rebuilds the pool on next use.
    pub fn set_source(&self, source: Source) {
        let mut cache = self.cache();
        if let Some(id) = source.id.clone() {
            cache.extra.insert(id, source);
        }
        cache.current = None;
        cache.version += 1;
    }

    /// Runs a call a model made by name, within the tools resolved for its
    /// run: the name is routed to its canonical tool, which runs as any
    /// call does. A name the run does not have — an unknown prefix
    /// (`Toolset not found: x`), an unknown tool, or a tool outside the
    /// run's set, even one in the pool (`Tool not found: x.y`) — never runs
    /// and is recorded as a call with status `error` and `error_kind`
    /// `not_found`, the message being what the model is told.
    pub async fn run(
        &self,
        resolved: &ResolvedTools,
        req: crate::tools::RunRequest,
    ) -> Result<crate::tools::ToolCallRecord> {
        Ok(self.run_full(resolved, req, crate::tools::Known::default()).await?.0)
    }

    /// [`Self::run`], with the `tool` message of a call that ran (none for
    /// a refusal: read it by the record's `node_id`), given what the
    /// caller already knows of it (the parent message, the tool's target).
    pub(crate) async fn run_full(
        &self,
        resolved: &ResolvedTools,
        mut req: crate::tools::RunRequest,
        mut known: crate::tools::Known,
    ) -> Result<(crate::tools::ToolCallRecord, Option<crate::model::Message>)> {
        use crate::tools::ErrorKind;
        let refused = |r: crate::tools::ToolCallRecord| (r, None);
        let tool = match resolved.route(&req.tool_id) {
            Ok(tool) => tool,
            Err(e) => {
                return self
                    .app
                    .tools()
                    .refuse(req, ErrorKind::NotFound, e.to_string())
                    .await
                    .map(refused);
            }
        };
        if tool.coordinates() {
            let message = format!(
                "{} starts or lists sub-agents: only the chat engine runs it",
                tool.model_name
            );
            return self
                .app
                .tools()
                .refuse(req, ErrorKind::Unavailable, message)
                .await
                .map(refused);
        }
        let asked = std::mem::replace(&mut req.tool_id, tool.canonical_id.clone());
        known.mcp = Some(tool.source_kind == SourceKind::Mcp);
        match self.app.tools().run_full(req.clone(), known).await {
            // Uninstalled or disabled since the run resolved its tools.
            Err(crate::Error::ToolNotFound(_) | crate::Error::ToolsetNotFound(_)) => {
                req.tool_id = asked.clone();
                let message = RouteError::ToolNotFound(asked).to_string();
                self.app
                    .tools()
                    .refuse(req, ErrorKind::NotFound, message)
                    .await
                    .map(refused)
            }
            other => other.map(|(r, m)| (r, Some(m))),
        }
    }

    /// Removes a source added with [`Routing::set_source`].
    pub fn remove_source(&self, id: &str) {
        let mut cache = self.cache();
        if cache.extra.remove(id).is_some() {
            cache.current = None;
            cache.version += 1;
        }
    }
}

mod load {
    //! Reading the pool's sources from the database.

    use super::pool::{Source, SourceKind, ToolDef};
    use crate::toolsets::records::ToolRecord;
    use crate::{Atelier, Result};

    fn def(t: &ToolRecord) -> ToolDef {
        ToolDef {
            name: t
                .tool_id
                .split_once(':')
                .map_or(t.tool_id.as_str(), |(_, n)| n)
                .to_owned(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
            tags: t.tags.clone(),
            category: t.category.clone(),
            requires_confirmation: t.requires_confirmation,
            read_only: false,
        }
    }

    /// The state of every row the pool is built from, in one string: a
    /// toolset's id, version, enabled flag and last change, and which tools
    /// are disabled, each MCP server's switch and last listing, and the
    /// person's confirmation policies. Another process's import changes it
    /// too.
    pub(super) async fn fingerprint(app: &Atelier) -> Result<String> {
        Ok(sqlx::query_scalar(
            "SELECT coalesce((SELECT group_concat(id || ':' || version || ':' || enabled || ':' \
             || coalesce(updated_at, installed_at), ',') FROM (SELECT * FROM toolsets ORDER BY id)), '') \
             || '|' || (SELECT count(*) FROM tools) || '|' \
             || coalesce((SELECT group_concat(tool_id, ',') FROM tools WHERE enabled = 0), '') || '|' \
             || coalesce((SELECT group_concat(id || ':' || enabled || ':' || user_declared || ':' || updated_at || ':' \
             || coalesce(listed_at, ''), ',') FROM (SELECT * FROM mcp_servers ORDER BY id)), '') || '|' \
             || coalesce((SELECT group_concat(tool_id || '=' || policy, ',') \
             FROM (SELECT * FROM tool_policies ORDER BY tool_id)), '')",
        )
        .fetch_one(app.db())
        .await?)
    }

    /// The builtin tools: the workspace tools (rows synced from
    /// `tools::builtin`) and the coordination tools, which only a model run
    /// can call (they start or list sub-agents), so they have no rows and
    /// are not in the tool picker.
    pub(super) async fn builtins(app: &Atelier) -> Result<Source> {
        let tools = app.toolsets().tools().await?;
        let mut defs: Vec<ToolDef> = tools.iter().filter(|t| t.toolset_id.is_none()).map(def).collect();
        defs.extend(super::resolve::coordination_tools());
        Ok(Source {
            kind: SourceKind::Builtin,
            id: None,
            version: None,
            prefix: None,
            tools: defs,
            declared_by: Vec::new(),
        })
    }

    /// Active MCP servers that were listed, with the tools of their last
    /// listing (a run resolves its tools before a chat's server is up).
    pub(super) async fn mcp_servers(app: &Atelier) -> Result<Vec<Source>> {
        Ok(app
            .mcp()
            .list()
            .await?
            .into_iter()
            .filter(|s| s.active)
            .filter_map(|s| {
                let tools = s.tools?;
                Some(Source {
                    kind: SourceKind::Mcp,
                    prefix: Some(s.id.clone()),
                    id: Some(s.id),
                    version: None,
                    tools: tools
                        .into_iter()
                        .map(|t| ToolDef {
                            name: t.name,
                            description: t.description,
                            input_schema: t.input_schema,
                            tags: Vec::new(),
                            category: None,
                            requires_confirmation: !t.read_only,
                            read_only: t.read_only,
                        })
                        .collect(),
                    // A server the person declared runs with their own
                    // config and tokens: a toolset declaring the same one
                    // does not bring it to an agent; its own id does.
                    declared_by: if s.user_declared { Vec::new() } else { s.toolsets },
                })
            })
            .collect())
    }

    /// Enabled toolsets, each with its enabled tools.
    pub(super) async fn toolsets(app: &Atelier) -> Result<Vec<Source>> {
        let tools = app.toolsets().tools().await?;
        let mut out = Vec::new();
        for ts in app.toolsets().list().await?.into_iter().filter(|t| t.enabled) {
            out.push(Source {
                kind: SourceKind::Toolset,
                id: Some(ts.id.clone()),
                version: Some(ts.version.clone()),
                prefix: Some(ts.prefix.clone()),
                tools: tools
                    .iter()
                    .filter(|t| t.toolset_id.as_deref() == Some(ts.id.as_str()))
                    .map(def)
                    .collect(),
                declared_by: Vec::new(),
            });
        }
        Ok(out)
    }
}
