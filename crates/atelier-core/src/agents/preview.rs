//! What an agent's tool rules would give, before they are saved: the
//! Settings form's live preview.
//!
//! The spec is resolved exactly as a chat's run of it would be (depth 0,
//! the current pool), then exposed to the provider its model names, so the
//! person sees the tools under the names the model will call them by, the
//! names and toolsets that match nothing, and what the provider's protocol
//! takes away (names rewritten, schema features dropped). Nothing is
//! written: the spec need not even have a valid id yet.

use serde::Serialize;

use super::{AgentSpec, Agents};
use crate::Result;
use crate::routing::resolve::COORDINATION_TOOLS;
use crate::routing::{Exposure, SourceKind, expose, resolve};
use crate::tools::Policy;

/// One tool the agent would get.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct PreviewTool {
    /// The name the model calls it by: `csv-report.summarize`, `write_file`.
    pub model_name: String,
    pub canonical_id: String,
    pub source_kind: SourceKind,
    /// The toolset or MCP server id (none for builtins).
    pub source_id: Option<String>,
    pub description: String,
    /// What its author asked for (a person's policy may override it).
    pub requires_confirmation: bool,
    /// The person's confirmation policy for it (everywhere, not only in
    /// this agent); none for the coordination tools, which never ask.
    pub policy: Option<Policy>,
}

/// An agent spec's tools against the current pool, and what to tell about them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ToolsPreview {
    /// Sorted by canonical id.
    pub tools: Vec<PreviewTool>,
    /// Names and toolsets on the allowlist that match nothing in the pool.
    pub warnings: Vec<String>,
    /// The protocol the tools were exposed to: the agent's provider's, or
    /// OpenAI's (the strictest) when it names none.
    pub exposure: Exposure,
    /// What that protocol takes away, per tool (feature loss).
    pub feature_loss: Vec<String>,
}

impl Agents<'_> {
    /// What `spec`'s tool rules give now, without saving anything. Fails
    /// only when two of its tools would share one model-facing name (as a
    /// run would).
    pub async fn preview(&self, spec: &AgentSpec) -> Result<ToolsPreview> {
        let snapshot = self.app.routing().snapshot().await?;
        let resolved = resolve(&spec.tool_rules(), &snapshot, 0)?;
        let mut warnings = resolved.warnings.clone();
        let exposure = match &spec.model {
            None => Exposure::Openai,
            Some(m) => match self.app.providers().get(&m.provider).await {
                Ok(p) if p.kind == "anthropic" => Exposure::Anthropic,
                Ok(_) => Exposure::Openai,
                Err(_) => {
                    warnings.push(format!(
                        "the model's provider {:?} is not set up: add it in Settings → Model providers",
                        m.provider
                    ));
                    Exposure::Openai
                }
            },
        };
        let feature_loss = expose(&resolved, exposure).warnings;
        let policies = self.app.tools().policies().await?;
        let tools = resolved
            .tools
            .into_iter()
            .map(|t| PreviewTool {
                policy: match t.source_kind {
                    SourceKind::Builtin if COORDINATION_TOOLS.contains(&t.model_name.as_str()) => None,
                    _ => Some(policies.get(&t.canonical_id).copied().unwrap_or_default()),
                },
                model_name: t.model_name,
                canonical_id: t.canonical_id,
                source_kind: t.source_kind,
                source_id: t.source_id,
                description: t.description,
                requires_confirmation: t.requires_confirmation,
            })
            .collect();
        Ok(ToolsPreview {
            tools,
            warnings,
            exposure,
            feature_loss,
        })
    }
}
