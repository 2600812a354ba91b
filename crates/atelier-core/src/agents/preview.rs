//! What an agent's tool rules give now: the Settings form's live preview
//! of an unsaved definition, and what a save tells about the saved one.
//!
//! The spec is resolved exactly as a chat's run of it would be (depth 0,
//! the current pool), then exposed to the provider its model names, so the
//! person sees the tools under the names the model will call them by, the
//! names and toolsets that match nothing, more tools than the provider
//! takes, and what the provider's protocol takes away (names rewritten,
//! schema features dropped). A preview writes nothing: the spec need not
//! even have a valid id yet. A save ([`Agents::save`]) answers the same
//! warnings beside the agent it wrote (`agent create`/`edit`, the app's
//! Save).

use serde::Serialize;

use super::{Agent, AgentSpec, Agents};
use crate::Result;
use crate::routing::resolve::COORDINATION_TOOLS;
use crate::routing::{Exposure, ResolvedTools, RoutingError, SourceKind, expose, resolve};
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
    /// Names and toolsets on the allowlist that match nothing in the pool,
    /// tools a run would lose, more tools than the provider takes, a
    /// provider that is not set up.
    pub warnings: Vec<String>,
    /// The protocol the tools were exposed to: the agent's provider's, or
    /// OpenAI's (the strictest) when it names none.
    pub exposure: Exposure,
    /// What that protocol takes away, per tool (feature loss).
    pub feature_loss: Vec<String>,
}

/// An agent just created or edited, and what its tool rules give now that
/// a person should hear (as [`ToolsPreview`] says them).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SavedAgent {
    pub agent: Agent,
    /// As the preview's, and two tools under one model-facing name (a run
    /// of it would fail).
    pub warnings: Vec<String>,
    pub exposure: Exposure,
    pub feature_loss: Vec<String>,
}

/// A spec's tools resolved and exposed, with the words about them.
struct Checked {
    resolved: std::result::Result<ResolvedTools, RoutingError>,
    warnings: Vec<String>,
    exposure: Exposure,
    feature_loss: Vec<String>,
}

impl Agents<'_> {
    /// What `spec`'s tool rules give now, without saving anything. Fails
    /// only when two of its tools would share one model-facing name (as a
    /// run would).
    pub async fn preview(&self, spec: &AgentSpec) -> Result<ToolsPreview> {
        let Checked {
            resolved,
            warnings,
            exposure,
            feature_loss,
        } = self.check(spec).await?;
        let resolved = resolved?;
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

    /// Creates an agent (`replace` false; a spec without an id gets the one
    /// its name gives) or replaces one's definition, and says what its tool
    /// rules give now that a person should hear: `agent create` and
    /// `agent edit`, the app's Save.
    pub async fn save(&self, spec: &AgentSpec, replace: bool) -> Result<SavedAgent> {
        let agent = if replace {
            self.update(spec).await?
        } else {
            self.create(spec).await?
        };
        let Checked {
            resolved,
            mut warnings,
            exposure,
            feature_loss,
        } = self.check(&agent.spec()).await?;
        if let Err(e) = resolved {
            warnings.insert(0, e.to_string());
        }
        Ok(SavedAgent {
            agent,
            warnings,
            exposure,
            feature_loss,
        })
    }

    /// What an agent's tool rules match nothing with (or lose) in the
    /// current pool, for a chat's own run of it: a save's warnings.
    pub(crate) async fn warnings(&self, agent: &Agent) -> Result<Vec<String>> {
        let checked = self.check(&agent.spec()).await?;
        Ok(match checked.resolved {
            Ok(_) => checked.warnings,
            Err(e) => std::iter::once(e.to_string()).chain(checked.warnings).collect(),
        })
    }

    /// Resolves `spec` as a chat's run would, and exposes its tools to its
    /// provider's protocol (OpenAI's when it names none, or one not set up).
    async fn check(&self, spec: &AgentSpec) -> Result<Checked> {
        let snapshot = self.app.routing().snapshot().await?;
        let resolved = resolve(&spec.tool_rules(), &snapshot, 0);
        let mut warnings = resolved.as_ref().map(|r| r.warnings.clone()).unwrap_or_default();
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
        let mut feature_loss = Vec::new();
        if let Ok(r) = &resolved {
            let exposed = expose(r, exposure);
            let too_many = exposed.too_many_tools();
            feature_loss = exposed
                .warnings
                .into_iter()
                .filter(|w| Some(w) != too_many.as_ref())
                .collect();
            warnings.extend(too_many);
        }
        Ok(Checked {
            resolved,
            warnings,
            exposure,
            feature_loss,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::routing::Source;
    use crate::{Atelier, DataDir};

    /// A connected MCP server with `n` tools, each with a `format` OpenAI's
    /// protocol drops.
    fn server(n: usize) -> Source {
        Source {
            kind: SourceKind::Mcp,
            id: Some("many".into()),
            version: None,
            prefix: Some("many".into()),
            tools: (0..n)
                .map(|i| {
                    serde_json::from_value(json!({
                        "name": format!("t{i:03}"), "description": "", "tags": [], "category": null,
                        "input_schema": {"type": "object", "properties": {"p": {"type": "string", "format": "uri"}}},
                        "requires_confirmation": false, "read_only": true,
                    }))
                    .expect("a tool")
                })
                .collect(),
            declared_by: Vec::new(),
        }
    }

    #[tokio::test]
    async fn a_save_says_more_tools_than_openai_takes_among_its_warnings_and_the_feature_loss_apart() {
        let dir = tempfile::tempdir().expect("tmp");
        let app = Atelier::open(DataDir::new(dir.path().join("data"))).await.expect("app");
        app.routing().set_source(server(130));
        let mut spec = AgentSpec::new("", "Wide Reader");
        spec.toolsets = vec!["many".into()];
        spec.tools = vec!["ghost.*".into()];

        let preview = app.agents().preview(&spec).await.expect("preview");
        assert_eq!(preview.tools.len(), 130);
        let saved = app.agents().save(&spec, false).await.expect("save");
        assert_eq!(saved.agent.id, "wide-reader");
        assert_eq!(saved.warnings, preview.warnings);
        assert_eq!(saved.warnings.len(), 2, "{:?}", saved.warnings);
        assert!(saved.warnings[0].contains("\"ghost.*\""), "{:?}", saved.warnings);
        assert!(
            saved.warnings[1].starts_with("130 tools: OpenAI's own API takes at most 128"),
            "{:?}",
            saved.warnings
        );
        assert_eq!(saved.feature_loss, preview.feature_loss);
        let formats = saved
            .feature_loss
            .iter()
            .filter(|w| w.contains("format \"uri\" removed"));
        assert_eq!(formats.count(), 130, "one per tool");
        assert!(saved.feature_loss.iter().all(|w| !w.contains("OpenAI's own API")));

        // Narrowed: nothing to say.
        spec.id = saved.agent.id;
        spec.tools.clear();
        app.routing().set_source(server(3));
        let saved = app.agents().save(&spec, true).await.expect("edit");
        assert_eq!(saved.warnings, Vec::<String>::new());
    }
}
