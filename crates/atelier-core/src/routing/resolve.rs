//! Resolution: which tools one run of an agent gets, under which names, and
//! where a call by name goes.
//!
//! `resolve(agent, snapshot, depth)` is a pure function: the toolsets on the
//! agent's allowlist give all their tools and those of the MCP servers they
//! declare (an MCP server id gives that server's), its `tools` patterns add pool
//! tools by exact name or glob, the sub-agent rule removes the coordination
//! tools where they are not allowed (a sub-agent that does not name them,
//! any run at its agent's `max_depth`), then filters and policies narrow the
//! set. Names that match nothing are warnings, never errors; two tools under
//! one model-facing name are an error naming both (never first-wins). The
//! result is fixed for the run: [`ResolvedTools::route`] (in `route`)
//! refuses anything outside it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RoutingError;
use super::filters::{Context, Filter, Policy, apply};
use super::names::{glob_match, is_glob};
use super::pool::{PoolTool, Snapshot, SourceKind};

/// Builtins that start or list sub-agents: a sub-agent keeps them only when
/// its definition names them and it is not at its depth limit.
pub const COORDINATION_TOOLS: [&str; 2] = ["list_available_agents", "spawn_agents"];

/// The definitions of the coordination tools.
pub fn coordination_tools() -> Vec<super::pool::ToolDef> {
    use serde_json::json;
    let def = |name: &str, description: &str, input_schema: Value, read_only| super::pool::ToolDef {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema,
        tags: vec!["agents".to_owned()],
        category: Some("agents".to_owned()),
        requires_confirmation: false,
        read_only,
    };
    vec![
        def(
            "list_available_agents",
            "List the agents you can hand tasks to with spawn_agents: their ids, names and descriptions",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            true,
        ),
        def(
            "spawn_agents",
            "Hand tasks to other agents. Each task runs as its own linked thread of this chat and returns the agent's final answer",
            json!({
                "type": "object",
                "properties": {"tasks": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {
                        "agent": {"type": "string", "description": "The agent's id (see list_available_agents)"},
                        "task": {"type": "string", "description": "What the agent should do, with everything it needs to know"}
                    },
                    "required": ["agent", "task"],
                    "additionalProperties": false
                }}},
                "required": ["tasks"],
                "additionalProperties": false
            }),
            false,
        ),
    ]
}

/// The default `max_depth` of an agent: a run may start sub-agents, and
/// those may not start their own unless they opt in.
pub const DEFAULT_MAX_DEPTH: u32 = 2;

/// What resolution needs of an agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentTools {
    /// Toolset or MCP server ids: all their tools (a toolset's with those
    /// of the MCP servers it declares).
    pub toolsets: Vec<String>,
    /// Canonical ids, model-facing names or globs of them.
    pub tools: Vec<String>,
    pub filters: Vec<Filter>,
    pub policies: Vec<Policy>,
    pub max_depth: u32,
}

/// A tool a run may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResolvedTool {
    /// The name the model uses: `csv-report.summarize`, `write_file`.
    pub model_name: String,
    pub canonical_id: String,
    pub source_kind: SourceKind,
    /// The toolset or MCP server id (none for builtins).
    pub source_id: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub requires_confirmation: bool,
    pub read_only: bool,
}

impl ResolvedTool {
    /// A builtin that starts or lists sub-agents: only the chat engine
    /// runs it.
    pub fn coordinates(&self) -> bool {
        self.source_kind == SourceKind::Builtin && COORDINATION_TOOLS.contains(&self.model_name.as_str())
    }
}

/// The tools of one run, fixed for that run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResolvedTools {
    /// The pool snapshot they were resolved against.
    pub generation: u64,
    /// Sorted by canonical id.
    pub tools: Vec<ResolvedTool>,
    /// Names that matched nothing, tools removed by the sub-agent rule.
    pub warnings: Vec<String>,
    /// Every prefix of the pool, so a router can tell an unknown toolset
    /// from an unknown tool.
    #[serde(skip)]
    #[ts(skip)]
    pub(super) pool_prefixes: BTreeSet<String>,
}

pub use super::route::RouteError;

/// Resolves an agent's tools against a snapshot, for a run at `depth` (0:
/// a chat's own run; 1: a sub-agent it started; …).
pub fn resolve(agent: &AgentTools, snapshot: &Snapshot, depth: u32) -> Result<ResolvedTools, RoutingError> {
    let mut warnings = Vec::new();
    let mut picked: BTreeMap<&str, &PoolTool> = BTreeMap::new();
    for id in &agent.toolsets {
        match snapshot.source_by_id(id) {
            Some((i, source)) => {
                // A toolset brings the MCP servers it declares: they are
                // part of it, whatever their own ids.
                let servers: Vec<usize> = match source.kind {
                    SourceKind::Toolset => snapshot.servers_of(id).collect(),
                    _ => Vec::new(),
                };
                for t in snapshot.tools.iter().filter(|t| t.source == i || servers.contains(&t.source)) {
                    picked.insert(&t.canonical_id, t);
                }
            }
            None => warnings.push(format!(
                "toolset or MCP server {id:?} is on the allowlist but not in the tool pool (not installed, disabled or not connected): skipped"
            )),
        }
    }
    for pattern in &agent.tools {
        let mut matched = false;
        if is_glob(pattern) {
            // Only names starting with the pattern's literal head can match:
            // found by binary search, so `csv-report.*` costs its matches,
            // not the pool.
            let head = &pattern[..pattern.find(['*', '?']).unwrap_or(pattern.len())];
            for t in snapshot.tools_starting_with(head) {
                if glob_match(pattern, &t.canonical_id) || glob_match(pattern, &t.model_name) {
                    matched = true;
                    picked.insert(&t.canonical_id, t);
                }
            }
        } else if let Some(t) = snapshot.tool_named(pattern) {
            matched = true;
            picked.insert(&t.canonical_id, t);
        }
        if !matched {
            warnings.push(format!(
                "{pattern:?} in the agent's tools matches no tool in the pool: skipped"
            ));
        }
    }

    // Sub-agents keep coordination tools only by explicit opt-in; no run
    // keeps them at its depth limit, where every spawn would be refused
    // (its children would run at depth + 1 > max_depth).
    for name in COORDINATION_TOOLS {
        if !picked.contains_key(name) {
            continue;
        }
        let named = agent.tools.iter().any(|p| p == name);
        let why = if depth > 0 && !named {
            format!("{name} removed: a sub-agent keeps it only if its definition names it")
        } else if agent.max_depth == 0 {
            format!("{name} removed: the agent's max_depth is 0, so it starts no sub-agents")
        } else if depth >= agent.max_depth {
            format!(
                "{name} removed: depth {depth} reached the agent's max_depth {}",
                agent.max_depth
            )
        } else {
            continue;
        };
        picked.remove(name);
        warnings.push(why);
    }

    let cx = Context { snapshot, depth };
    let kept = apply(picked.into_values(), &agent.filters, &agent.policies, cx);

    // Two tools under one model-facing name: fail, naming both.
    let mut seen: BTreeMap<&str, &PoolTool> = BTreeMap::new();
    for t in &kept {
        if let Some(first) = seen.insert(&t.model_name, t) {
            return Err(RoutingError::DuplicateName {
                name: t.model_name.clone(),
                first: format!("{} ({})", first.canonical_id, snapshot.sources[first.source].label()),
                second: format!("{} ({})", t.canonical_id, snapshot.sources[t.source].label()),
            });
        }
    }
    let tools = kept
        .into_iter()
        .map(|t| {
            let source = &snapshot.sources[t.source];
            ResolvedTool {
                model_name: t.model_name.clone(),
                canonical_id: t.canonical_id.clone(),
                source_kind: source.kind,
                source_id: source.id.clone(),
                description: t.def.description.clone(),
                input_schema: t.def.input_schema.clone(),
                requires_confirmation: t.def.requires_confirmation,
                read_only: t.def.read_only,
            }
        })
        .collect();
    Ok(ResolvedTools {
        generation: snapshot.generation,
        tools,
        warnings,
        pool_prefixes: snapshot.sources.iter().filter_map(|s| s.prefix.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::pool::tests::source;

    fn snapshot() -> std::sync::Arc<Snapshot> {
        Snapshot::build(
            7,
            vec![
                source(
                    SourceKind::Builtin,
                    "",
                    &[
                        "write_file",
                        "read_file",
                        "list_files",
                        "spawn_agents",
                        "list_available_agents",
                    ],
                ),
                source(SourceKind::Toolset, "csv-report", &["summarize", "chart"]),
                source(SourceKind::Mcp, "files", &["read_text_file", "write_file"]),
            ],
        )
        .expect("build")
    }

    fn names(r: &ResolvedTools) -> Vec<&str> {
        r.tools.iter().map(|t| t.model_name.as_str()).collect()
    }

    fn agent(toolsets: &[&str], tools: &[&str]) -> AgentTools {
        AgentTools {
            toolsets: toolsets.iter().map(|s| s.to_string()).collect(),
            tools: tools.iter().map(|s| s.to_string()).collect(),
            max_depth: DEFAULT_MAX_DEPTH,
            ..Default::default()
        }
    }

    #[test]
    fn an_empty_allowlist_sees_nothing_and_a_star_sees_everything() {
        let snap = snapshot();
        let none = resolve(&AgentTools::default(), &snap, 0).expect("resolve");
        assert!(none.tools.is_empty() && none.warnings.is_empty());
        let all = resolve(&agent(&[], &["*"]), &snap, 0).expect("resolve");
        assert_eq!(all.tools.len(), snap.tools.len());
        assert_eq!(all.generation, 7);
    }

    #[test]
    fn toolsets_exact_names_and_globs_select_and_unknown_names_warn() {
        let snap = snapshot();
        let r = resolve(
            &agent(
                &["csv-report", "nope"],
                &["files.read_text_file", "write_file", "*_files", "ghost.*"],
            ),
            &snap,
            0,
        )
        .expect("resolve");
        assert_eq!(
            names(&r),
            [
                "csv-report.chart",
                "csv-report.summarize",
                "files.read_text_file",
                "list_files",
                "write_file"
            ],
            "sorted by canonical id"
        );
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        assert!(r.warnings[0].contains("\"nope\""));
        assert!(r.warnings[1].contains("\"ghost.*\""));
        // Canonical ids work as patterns too.
        let by_id = resolve(&agent(&[], &["files:write_file"]), &snap, 0).expect("resolve");
        assert_eq!(names(&by_id), ["files.write_file"]);
    }

    #[test]
    fn a_toolset_brings_the_mcp_servers_it_declares_and_only_those() {
        let mut declared = source(SourceKind::Mcp, "csv-srv", &["query"]);
        declared.declared_by = vec!["csv-report".into()];
        let mut snap = (*snapshot()).clone();
        snap.sources.push(declared);
        let snap = Snapshot::build(8, snap.sources).expect("build");
        let r = resolve(&agent(&["csv-report"], &[]), &snap, 0).expect("resolve");
        assert_eq!(
            names(&r),
            ["csv-report.chart", "csv-report.summarize", "csv-srv.query"],
            "the toolset's own tools and its server's"
        );
        // A server on the allowlist gives its own tools, not its toolset's.
        let r = resolve(&agent(&["csv-srv"], &[]), &snap, 0).expect("resolve");
        assert_eq!(names(&r), ["csv-srv.query"]);
        // Another server (the person's) stays out.
        assert!(
            !names(&resolve(&agent(&["csv-report"], &[]), &snap, 0).expect("resolve"))
                .contains(&"files.read_text_file")
        );
    }

    #[test]
    fn the_router_refuses_unknown_prefixes_unknown_tools_and_tools_outside_the_run() {
        let snap = snapshot();
        let r = resolve(&agent(&["csv-report"], &[]), &snap, 0).expect("resolve");
        assert_eq!(
            r.route("csv-report.chart").map(|t| t.canonical_id.as_str()),
            Ok("csv-report:chart")
        );
        assert_eq!(
            r.route("nope.x").map(|_| ()),
            Err(RouteError::ToolsetNotFound("nope".into()))
        );
        assert_eq!(
            r.route("nope.x").map(|_| ()).expect_err("unknown prefix").to_string(),
            "Toolset not found: nope"
        );
        assert_eq!(
            r.route("csv-report.zap").map(|_| ()),
            Err(RouteError::ToolNotFound("csv-report.zap".into()))
        );
        // In the pool, not in this run: never reachable.
        assert_eq!(
            r.route("files.write_file").map(|_| ()),
            Err(RouteError::ToolNotFound("files.write_file".into()))
        );
        assert_eq!(
            r.route("write_file").map(|_| ()),
            Err(RouteError::ToolNotFound("write_file".into()))
        );
    }

    /// What a model that slipped is told: the run's tools nearest the name
    /// it used, only ever those it is offered.
    #[test]
    fn a_name_not_found_is_told_the_offered_names_near_it() {
        let snap = snapshot();
        let r = resolve(&agent(&["csv-report"], &["write_file", "read_file"]), &snap, 0).expect("resolve");
        let said = |name: &str| r.route(name).map(|_| ()).expect_err(name).to_string();
        for (name, told) in [
            ("Write_File", "Tool not found: Write_File. Did you mean write_file?"),
            (
                "summarize",
                "Tool not found: summarize. Did you mean csv-report.summarize?",
            ),
            (
                "CSV_REPORT__CHART",
                "Tool not found: CSV_REPORT__CHART. Did you mean csv-report.chart?",
            ),
            (
                "csv-report_chart",
                "Tool not found: csv-report_chart. Did you mean csv-report.chart?",
            ),
            (
                "functions.read_file",
                "Toolset not found: functions. Did you mean read_file?",
            ),
            (
                "functions.Summarize",
                "Toolset not found: functions. Did you mean csv-report.summarize?",
            ),
            ("", "Tool not found: the model called a tool without a name"),
            // In the pool but not offered: never suggested.
            ("read_text_file", "Tool not found: read_text_file"),
            ("files.read_text_file", "Tool not found: files.read_text_file"),
            ("delete_everything", "Tool not found: delete_everything"),
        ] {
            assert_eq!(said(name), told, "{name:?}");
        }
        // Said in the names the provider was offered.
        let wire = r
            .route("summarize")
            .map(|_| ())
            .expect_err("near")
            .naming(|n| n.replace('.', "__"));
        assert_eq!(
            wire.to_string(),
            "Tool not found: summarize. Did you mean csv-report__summarize?"
        );
    }

    #[test]
    fn sub_agents_keep_coordination_tools_only_by_opt_in_below_max_depth() {
        let snap = snapshot();
        let has_spawn = |tools: &[&str], depth, max_depth| {
            let mut a = agent(&[], tools);
            a.max_depth = max_depth;
            let r = resolve(&a, &snap, depth).expect("resolve");
            (r.route("spawn_agents").is_ok(), r.warnings.len())
        };
        // Not named (a glob does not opt in): kept at depth 0 only, and
        // never by an agent that may start no sub-agents.
        assert_eq!(has_spawn(&["*"], 0, 2), (true, 0));
        assert!(!has_spawn(&["*"], 1, 2).0);
        assert_eq!(
            has_spawn(&["*"], 0, 0),
            (false, 2),
            "both coordination tools, each said"
        );
        // Named: kept while depth < max_depth.
        for (depth, max_depth, kept) in [
            (0, 0, false),
            (1, 0, false),
            (0, 1, true),
            (1, 1, false),
            (2, 1, false),
            (0, 2, true),
            (1, 2, true),
            (2, 2, false),
            (0, 3, true),
            (1, 3, true),
            (2, 3, true),
        ] {
            let (yes, warned) = has_spawn(&["spawn_agents", "list_available_agents"], depth, max_depth);
            assert_eq!(yes, kept, "depth {depth}, max_depth {max_depth}");
            assert_eq!(
                warned > 0,
                !kept,
                "a removal is a warning (depth {depth}, max_depth {max_depth})"
            );
        }
    }

    #[test]
    fn two_tools_under_one_model_facing_name_fail_naming_both() {
        // A tool name with a dot under prefix `a`, and a prefix `a.b`: both
        // are `a.b.c` to the model.
        let dotted = source(SourceKind::Mcp, "a", &["b.c"]);
        let mut other = source(SourceKind::Mcp, "ab", &["c"]);
        other.prefix = Some("a.b".into());
        let snap = Snapshot::build(1, vec![dotted, other]).expect("build");
        let err = resolve(&agent(&["a", "ab"], &[]), &snap, 0)
            .expect_err("duplicate")
            .to_string();
        assert!(
            err.contains("a.b.c") && err.contains("a:b.c (MCP server a)") && err.contains("ab:c (MCP server ab)"),
            "{err}"
        );
    }
}
