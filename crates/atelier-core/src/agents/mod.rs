//! Agents: who answers in a chat, and with which tools.
//!
//! An agent has a slug id (`researcher`: models name agents by it when they
//! start sub-agents), a name and description, an optional model, a system
//! prompt, and its tool allowlist — `toolsets` (all tools of those toolsets
//! or MCP servers) and `tools` (exact names or globs) — narrowed by filters
//! and policies, with run limits (`max_depth`, `max_steps`). A new agent
//! has no tools: nothing is allowed until someone allows it. A data dir
//! starts with one agent, *Assistant*, allowed the builtin workspace tools
//! (the migration that adds agents creates it) and, when the app opens it
//! fresh, the bundled example toolsets ([`seed`]).
//!
//! Agents live in the database and travel as YAML files ([`file`]). Their
//! tools for a run come from [`crate::routing::resolve`]; [`preview`] says
//! what an unsaved definition's rules would give, as it is being edited,
//! and what a save has to tell about them; [`id`] holds the id rule and
//! the id a name gives; [`seed`] a fresh data dir's examples.

pub mod file;
mod id;
pub mod preview;
mod seed;

pub use id::{id_from_name, is_agent_id};
pub use preview::SavedAgent;

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::model::ModelSettings;
use crate::routing::{AgentTools, Filter, Policy, ResolvedTools, resolve};
use crate::{Atelier, Error, Result, db, ids};

/// The agent a fresh data dir has.
pub const ASSISTANT: &str = "assistant";

/// Which model an agent prefers (the chat may override it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct AgentModel {
    pub provider: String,
    pub model: String,
}

/// An agent as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub description: String,
    pub model: Option<AgentModel>,
    /// Temperature, output limit, context window, reasoning effort (a chat
    /// may override each).
    pub model_settings: ModelSettings,
    pub system_prompt: String,
    /// Toolset or MCP server ids: all their tools.
    pub toolsets: Vec<String>,
    /// Canonical ids, model-facing names or globs (`csv-report.*`, `*`).
    pub tools: Vec<String>,
    pub filters: Vec<Filter>,
    pub policies: Vec<Policy>,
    /// How deep sub-agents may go (2: this agent's sub-agents may not start
    /// their own unless they opt in).
    pub max_depth: u32,
    /// The most model steps one run takes.
    pub max_steps: u32,
    pub created_at: String,
    pub updated_at: String,
}

/// What an agent is made of, without its timestamps: what a person
/// creates, edits, exports and imports. A key it does not have is
/// refused (an agent file's are named with a hint: [`file::from_yaml`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub model: Option<AgentModel>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub model_settings: ModelSettings,
    #[serde(default)]
    pub system_prompt: String,
    #[serde(default)]
    pub toolsets: Vec<String>,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default, deserialize_with = "filter_list")]
    pub filters: Vec<Filter>,
    #[serde(default, deserialize_with = "policy_list")]
    pub policies: Vec<Policy>,
    #[serde(default = "default_max_depth")]
    pub max_depth: u32,
    #[serde(default = "default_max_steps")]
    pub max_steps: u32,
}

/// A list of filters or policies, each a one-key map (`{deny: [...]}`, as
/// JSON and the README write it) or a YAML tag (`!deny [...]`, as older
/// exports did); a unit variant is its name either way.
fn enum_list<'de, D, T>(d: D, field: &str) -> std::result::Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde_norway::Value;
    use serde_norway::value::{Tag, TaggedValue};
    Vec::<Value>::deserialize(d)?
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let v = match v {
                Value::Mapping(m)
                    if m.len() == 1 && matches!(m.keys().next(), Some(Value::String(k)) if !k.is_empty()) =>
                {
                    match m.into_iter().next() {
                        Some((Value::String(tag), value)) => Value::Tagged(Box::new(TaggedValue {
                            tag: Tag::new(tag),
                            value,
                        })),
                        _ => Value::Null,
                    }
                }
                v => v,
            };
            T::deserialize(v).map_err(|e| serde::de::Error::custom(format_args!("{field}[{i}]: {e}")))
        })
        .collect()
}

fn filter_list<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<Filter>, D::Error> {
    enum_list(d, "filters")
}

fn policy_list<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<Policy>, D::Error> {
    enum_list(d, "policies")
}

fn is_default(s: &ModelSettings) -> bool {
    *s == ModelSettings::default()
}

fn default_max_depth() -> u32 {
    crate::routing::resolve::DEFAULT_MAX_DEPTH
}

fn default_max_steps() -> u32 {
    25
}

impl AgentSpec {
    /// A new agent: no tools, default limits.
    pub fn new(id: &str, name: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            description: String::new(),
            model: None,
            model_settings: ModelSettings::default(),
            system_prompt: String::new(),
            toolsets: Vec::new(),
            tools: Vec::new(),
            filters: Vec::new(),
            policies: Vec::new(),
            max_depth: default_max_depth(),
            max_steps: default_max_steps(),
        }
    }

    /// What resolution needs of it.
    pub fn tool_rules(&self) -> AgentTools {
        rules(
            &self.toolsets,
            &self.tools,
            &self.filters,
            &self.policies,
            self.max_depth,
        )
    }

    fn check(&self) -> Result<()> {
        let bad = |reason: String| Err(Error::InvalidData { what: "agent", reason });
        if !is_agent_id(&self.id) {
            return bad(format!(
                "id {:?}: use 1-64 lower-case letters, digits and `-` (the name models call the agent by), e.g. `researcher`",
                self.id
            ));
        }
        if self.name.trim().is_empty() {
            return bad(format!("agent {}: the name is empty", self.id));
        }
        if self.max_steps == 0 {
            return bad(format!("agent {}: max_steps must be at least 1", self.id));
        }
        if let Err(why) = self.model_settings.check() {
            return bad(format!("agent {}: model_settings: {why}", self.id));
        }
        Ok(())
    }
}

impl Agent {
    /// What resolution needs of it.
    pub fn tool_rules(&self) -> AgentTools {
        rules(
            &self.toolsets,
            &self.tools,
            &self.filters,
            &self.policies,
            self.max_depth,
        )
    }

    /// The editable part.
    pub fn spec(&self) -> AgentSpec {
        AgentSpec {
            id: self.id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            model: self.model.clone(),
            model_settings: self.model_settings.clone(),
            system_prompt: self.system_prompt.clone(),
            toolsets: self.toolsets.clone(),
            tools: self.tools.clone(),
            filters: self.filters.clone(),
            policies: self.policies.clone(),
            max_depth: self.max_depth,
            max_steps: self.max_steps,
        }
    }
}

/// The tool rules of an agent or a spec, as resolution takes them.
fn rules(toolsets: &[String], tools: &[String], filters: &[Filter], policies: &[Policy], max_depth: u32) -> AgentTools {
    AgentTools {
        toolsets: toolsets.to_vec(),
        tools: tools.to_vec(),
        filters: filters.to_vec(),
        policies: policies.to_vec(),
        max_depth,
    }
}

fn json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Internal(e.to_string()))
}

fn parse<T: serde::de::DeserializeOwned>(s: &str, what: &'static str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::InvalidData {
        what,
        reason: e.to_string(),
    })
}

fn agent_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<Agent> {
    let model: String = r.try_get("model")?;
    let model: serde_json::Value = parse(&model, "agent model")?;
    let model = match model.get("provider").and_then(|p| p.as_str()) {
        Some(_) => Some(serde_json::from_value(model).map_err(|e| Error::InvalidData {
            what: "agent model",
            reason: e.to_string(),
        })?),
        None => None,
    };
    Ok(Agent {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        description: r.try_get("description")?,
        model,
        model_settings: parse(&r.try_get::<String, _>("model_settings")?, "agent model_settings")?,
        system_prompt: r.try_get("system_prompt")?,
        toolsets: parse(&r.try_get::<String, _>("toolsets")?, "agent toolsets")?,
        tools: parse(&r.try_get::<String, _>("tools")?, "agent tools")?,
        filters: parse(&r.try_get::<String, _>("filters")?, "agent filters")?,
        policies: parse(&r.try_get::<String, _>("policies")?, "agent policies")?,
        max_depth: u32::try_from(r.try_get::<i64, _>("max_depth")?).unwrap_or(0),
        max_steps: u32::try_from(r.try_get::<i64, _>("max_steps")?).unwrap_or(1),
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
    })
}

/// Agents: `app.agents()`. A view of the [`Atelier`] handle (cheap, `Copy`).
#[derive(Debug, Clone, Copy)]
pub struct Agents<'a> {
    pub(crate) app: &'a Atelier,
}

impl Agents<'_> {
    /// Every agent, by id.
    pub async fn list(&self) -> Result<Vec<Agent>> {
        let rows = sqlx::query("SELECT * FROM agents ORDER BY id")
            .fetch_all(self.app.db())
            .await?;
        rows.iter().map(agent_from_row).collect()
    }

    /// One agent.
    pub async fn get(&self, id: &str) -> Result<Agent> {
        let row = sqlx::query("SELECT * FROM agents WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?
            .ok_or_else(|| Error::AgentNotFound(id.to_owned()))?;
        agent_from_row(&row)
    }

    /// Creates an agent (its id must be new). A spec without an id gets
    /// the one its name gives ([`id_from_name`]).
    pub async fn create(&self, spec: &AgentSpec) -> Result<Agent> {
        if spec.id.is_empty() {
            let id = id_from_name(&spec.name).ok_or_else(|| Error::InvalidData {
                what: "agent",
                reason: format!(
                    "no id can be made from the name {:?} (ids take a-z, 0-9 and -): give the agent an id, e.g. analyst",
                    spec.name.trim()
                ),
            })?;
            return self.write(&AgentSpec { id, ..spec.clone() }, false).await;
        }
        self.write(spec, false).await
    }

    /// Replaces an agent's definition (its id stays).
    pub async fn update(&self, spec: &AgentSpec) -> Result<Agent> {
        self.write(spec, true).await
    }

    /// Writes `spec` as a new agent, or over an existing one.
    async fn write(&self, spec: &AgentSpec, existing: bool) -> Result<Agent> {
        spec.check()?;
        let now = ids::now();
        let mut tx = db::begin_write(self.app.db()).await?;
        let exists: Option<String> = sqlx::query_scalar("SELECT id FROM agents WHERE id = ?")
            .bind(&spec.id)
            .fetch_optional(&mut *tx)
            .await?;
        match (exists.is_some(), existing) {
            (true, false) => {
                return Err(Error::Conflict(format!(
                    "an agent {} exists already (edit it, or choose another id)",
                    spec.id
                )));
            }
            (false, true) => return Err(Error::AgentNotFound(spec.id.clone())),
            _ => {}
        }
        let model = spec
            .model
            .as_ref()
            .map_or(serde_json::json!({}), |m| serde_json::json!(m));
        sqlx::query(
            "INSERT INTO agents (id, name, description, model, system_prompt, toolsets, tools, filters, policies, \
             max_depth, max_steps, created_at, updated_at, model_settings) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13) \
             ON CONFLICT (id) DO UPDATE SET name = ?2, description = ?3, model = ?4, system_prompt = ?5, \
             toolsets = ?6, tools = ?7, filters = ?8, policies = ?9, max_depth = ?10, max_steps = ?11, \
             updated_at = ?12, model_settings = ?13",
        )
        .bind(&spec.id)
        .bind(spec.name.trim())
        .bind(&spec.description)
        .bind(json(&model)?)
        .bind(&spec.system_prompt)
        .bind(json(&spec.toolsets)?)
        .bind(json(&spec.tools)?)
        .bind(json(&spec.filters)?)
        .bind(json(&spec.policies)?)
        .bind(i64::from(spec.max_depth))
        .bind(i64::from(spec.max_steps))
        .bind(&now)
        .bind(json(&spec.model_settings)?)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get(&spec.id).await
    }

    /// Deletes an agent; its chats keep their history and lose the link.
    /// The Assistant stays: it answers in every chat that names no agent.
    pub async fn delete(&self, id: &str) -> Result<()> {
        if id == ASSISTANT {
            return Err(Error::Conflict(
                "the Assistant answers in every chat that has no other agent: edit it (its tools, model, prompt), it cannot be deleted".into(),
            ));
        }
        let done = sqlx::query("DELETE FROM agents WHERE id = ?")
            .bind(id)
            .execute(self.app.db())
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::AgentNotFound(id.to_owned()));
        }
        Ok(())
    }

    /// Puts a toolset (or MCP server) on an agent's allowlist; a no-op if
    /// it is there already.
    pub async fn allow_toolset(&self, id: &str, toolset: &str) -> Result<Agent> {
        let mut spec = self.get(id).await?.spec();
        if !spec.toolsets.iter().any(|t| t == toolset) {
            spec.toolsets.push(toolset.to_owned());
        }
        self.update(&spec).await
    }

    /// Imports a toolset and puts it on these agents' allowlists (the
    /// consent step's "use it in Assistant", the CLI's `--agent`). The
    /// agents are checked first: an unknown one fails before anything is
    /// installed.
    pub async fn import_toolset(
        &self,
        path: &std::path::Path,
        options: &crate::toolsets::ImportOptions,
        agent_ids: &[String],
    ) -> Result<crate::toolsets::records::ImportReport> {
        for id in agent_ids {
            self.get(id).await?;
        }
        let report = self.app.toolsets().import(path, options).await?;
        for id in agent_ids {
            self.allow_toolset(id, &report.toolset.id).await?;
        }
        Ok(report)
    }

    /// The tools a run of this agent at `depth` gets, from the current pool.
    pub async fn resolve(&self, id: &str, depth: u32) -> Result<ResolvedTools> {
        let agent = self.get(id).await?;
        let snapshot = self.app.routing().snapshot().await?;
        Ok(resolve(&agent.tool_rules(), &snapshot, depth)?)
    }
}
