//! Filters and policies: pure predicates over pool tools.
//!
//! Filters narrow what an agent's allowlist selected and are AND-composed
//! in the order given; policies come after every filter and can only deny,
//! so a policy decision holds whatever the filters let through. Neither
//! changes a tool, and the order of the input never changes the output
//! (results are sorted by canonical id).

use serde::{Deserialize, Serialize};

use super::names::glob_match;
use super::pool::{PoolTool, Snapshot};

/// A predicate a tool must pass (AND-composed with the others).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Only tools of these prefixes (`builtin` for the bare builtins).
    Namespace(Vec<String>),
    /// Tools with at least one of these tags.
    TagsAny(Vec<String>),
    /// Tools with every one of these tags.
    TagsAll(Vec<String>),
    /// Tools of this category.
    Category(String),
    /// Only tools whose canonical id or model-facing name matches one of
    /// these (exact names or globs).
    AllowIds(Vec<String>),
    /// No tool whose canonical id or model-facing name matches one of these.
    DenyIds(Vec<String>),
}

/// A decision applied after every filter: it can only deny. (In
/// TypeScript `RoutingPolicy`: `Policy` is a tool's confirmation policy.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "RoutingPolicy")]
pub enum Policy {
    /// Deny tools matching any of these names or globs (`*.run_command`).
    Deny(Vec<String>),
    /// Deny tools that ask for confirmation in sub-agents (depth > 0): no
    /// person watches a sub-agent's steps. Whether a tool asks is its
    /// author's choice unless the person said `ask` or `allow` for it.
    NoConfirmationInSubAgents,
}

/// Where a tool is looked at: the snapshot (for its source) and the depth
/// of the run.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub snapshot: &'a Snapshot,
    pub depth: u32,
}

/// Whether `tool` matches one of `patterns` by canonical id or
/// model-facing name.
pub fn matches_any(tool: &PoolTool, patterns: &[String]) -> bool {
    patterns
        .iter()
        .any(|p| glob_match(p, &tool.canonical_id) || glob_match(p, &tool.model_name))
}

impl Filter {
    pub fn allows(&self, tool: &PoolTool, cx: Context<'_>) -> bool {
        match self {
            Filter::Namespace(prefixes) => {
                let prefix = cx.snapshot.sources[tool.source].prefix.as_deref().unwrap_or("builtin");
                prefixes.iter().any(|p| p == prefix)
            }
            Filter::TagsAny(tags) => tags.iter().any(|t| tool.def.tags.contains(t)),
            Filter::TagsAll(tags) => tags.iter().all(|t| tool.def.tags.contains(t)),
            Filter::Category(c) => tool.def.category.as_deref() == Some(c.as_str()),
            Filter::AllowIds(patterns) => matches_any(tool, patterns),
            Filter::DenyIds(patterns) => !matches_any(tool, patterns),
        }
    }
}

impl Policy {
    pub fn allows(&self, tool: &PoolTool, cx: Context<'_>) -> bool {
        match self {
            Policy::Deny(patterns) => !matches_any(tool, patterns),
            Policy::NoConfirmationInSubAgents => cx.depth == 0 || !cx.snapshot.asks(tool),
        }
    }
}

/// The tools that pass every filter, then every policy, sorted by
/// canonical id.
pub fn apply<'s>(
    tools: impl IntoIterator<Item = &'s PoolTool>,
    filters: &[Filter],
    policies: &[Policy],
    cx: Context<'_>,
) -> Vec<&'s PoolTool> {
    let mut out: Vec<&PoolTool> = tools
        .into_iter()
        .filter(|t| filters.iter().all(|f| f.allows(t, cx)))
        .filter(|t| policies.iter().all(|p| p.allows(t, cx)))
        .collect();
    out.sort_by(|a, b| a.canonical_id.cmp(&b.canonical_id));
    out.dedup_by(|a, b| a.canonical_id == b.canonical_id);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::routing::pool::SourceKind;
    use crate::routing::pool::tests::source;

    fn snapshot() -> std::sync::Arc<Snapshot> {
        let mut csv = source(SourceKind::Toolset, "csv", &["summarize", "chart", "run_command"]);
        csv.tools[0].tags = vec!["data".into(), "read".into()];
        csv.tools[1].tags = vec!["data".into()];
        csv.tools[1].category = Some("charts".into());
        csv.tools[2].requires_confirmation = true;
        let files = source(SourceKind::Mcp, "files", &["read", "write"]);
        let builtins = source(SourceKind::Builtin, "", &["write_file", "read_file"]);
        Snapshot::build(3, vec![csv, files, builtins]).expect("build")
    }

    fn ids(tools: &[&PoolTool]) -> Vec<String> {
        tools.iter().map(|t| t.canonical_id.clone()).collect()
    }

    #[test]
    fn each_filter_and_their_and_composition() {
        let snap = snapshot();
        let cx = Context {
            snapshot: &snap,
            depth: 0,
        };
        let run = |filters: &[Filter]| ids(&apply(&snap.tools, filters, &[], cx));
        assert_eq!(
            run(&[Filter::Namespace(vec!["files".into()])]),
            ["files:read", "files:write"]
        );
        assert_eq!(
            run(&[Filter::Namespace(vec!["builtin".into()])]),
            ["read_file", "write_file"]
        );
        assert_eq!(
            run(&[Filter::TagsAny(vec!["read".into(), "x".into()])]),
            ["csv:summarize"]
        );
        assert_eq!(
            run(&[Filter::TagsAll(vec!["data".into()])]),
            ["csv:chart", "csv:summarize"]
        );
        assert_eq!(
            run(&[Filter::TagsAll(vec!["data".into(), "read".into()])]),
            ["csv:summarize"]
        );
        assert_eq!(run(&[Filter::Category("charts".into())]), ["csv:chart"]);
        assert_eq!(
            run(&[Filter::AllowIds(vec!["*_file".into()])]),
            ["read_file", "write_file"]
        );
        assert_eq!(
            run(&[
                Filter::AllowIds(vec!["csv.*".into()]),
                Filter::DenyIds(vec!["csv:chart".into()])
            ]),
            ["csv:run_command", "csv:summarize"]
        );
    }

    #[test]
    fn a_policy_deny_beats_a_filter_allow() {
        let snap = snapshot();
        let at = |depth| Context { snapshot: &snap, depth };
        let allow = [Filter::AllowIds(vec!["csv.run_command".into(), "write_file".into()])];
        let deny = [Policy::Deny(vec!["*.run_command".into()])];
        assert_eq!(ids(&apply(&snap.tools, &allow, &deny, at(0))), ["write_file"]);
        let sub = [Policy::NoConfirmationInSubAgents];
        assert_eq!(
            ids(&apply(&snap.tools, &allow, &sub, at(0))),
            ["csv:run_command", "write_file"]
        );
        assert_eq!(ids(&apply(&snap.tools, &allow, &sub, at(1))), ["write_file"]);
    }

    #[test]
    fn in_sub_agents_the_persons_confirmation_policy_decides_over_the_authors() {
        let plain = snapshot();
        let overridden = Snapshot::build_with(
            4,
            plain.sources.clone(),
            [
                ("csv:run_command".to_owned(), crate::tools::Policy::Allow),
                ("write_file".to_owned(), crate::tools::Policy::Ask),
            ]
            .into(),
        )
        .expect("build");
        let allow = [Filter::AllowIds(vec!["csv.run_command".into(), "*_file".into()])];
        let sub = [Policy::NoConfirmationInSubAgents];
        let at = |snapshot| Context { snapshot, depth: 1 };
        assert_eq!(
            ids(&apply(&plain.tools, &allow, &sub, at(&plain))),
            ["read_file", "write_file"]
        );
        assert_eq!(
            ids(&apply(&overridden.tools, &allow, &sub, at(&overridden))),
            ["csv:run_command", "read_file"],
            "never asks: kept; always asks: removed"
        );
    }

    fn any_filter() -> impl Strategy<Value = Filter> {
        let word = prop::sample::select(vec![
            "csv", "files", "builtin", "data", "read", "charts", "*", "*_file", "csv.*",
        ]);
        let words = prop::collection::vec(word.clone().prop_map(str::to_owned), 0..3);
        prop_oneof![
            words.clone().prop_map(Filter::Namespace),
            words.clone().prop_map(Filter::TagsAny),
            words.clone().prop_map(Filter::TagsAll),
            word.prop_map(|w| Filter::Category(w.to_owned())),
            words.clone().prop_map(Filter::AllowIds),
            words.prop_map(Filter::DenyIds),
        ]
    }

    proptest! {
        #[test]
        fn input_order_never_changes_the_output_and_applying_twice_changes_nothing(
            filters in prop::collection::vec(any_filter(), 0..4),
            shuffle in any::<u64>(),
            depth in 0u32..3,
        ) {
            let snap = snapshot();
            let cx = Context { snapshot: &snap, depth };
            let policies = [Policy::NoConfirmationInSubAgents];
            let once = apply(&snap.tools, &filters, &policies, cx);
            let mut shuffled: Vec<&PoolTool> = snap.tools.iter().collect();
            let n = shuffled.len();
            for i in 0..n {
                let j = (shuffle.rotate_left(i as u32) as usize + i) % n;
                shuffled.swap(i, j);
            }
            let again = apply(shuffled, &filters, &policies, cx);
            prop_assert_eq!(ids(&once), ids(&again));
            let twice = apply(once.iter().copied(), &filters, &policies, cx);
            prop_assert_eq!(ids(&once), ids(&twice));
        }
    }
}
