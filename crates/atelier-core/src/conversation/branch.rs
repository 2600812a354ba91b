//! Where a run stands: what it begins from (the chat, its agent, the
//! provider and model, the client, the tool pool), the branch it answers
//! (root → leaf), and the rows of the calls on that branch.

use std::collections::HashMap;

use serde_json::Value;

use super::context::CallRow;
use super::{Conversation, DEFAULT_AGENT, SendOptions, Start};
use crate::model::{ContentPart, Message, Role};
use crate::{Error, Result, db};

/// Which provider and model a run uses.
#[derive(Debug, Clone)]
pub(super) struct Choice {
    /// The provider's settings (its id too), as read when the run began.
    pub provider: crate::providers::ProviderRecord,
    pub model: String,
}

/// The ids of the calls the `tool` messages of `branch` name, in order.
pub(super) fn call_ids(branch: &[Message]) -> Vec<&String> {
    branch
        .iter()
        .filter(|m| m.role == Role::Tool)
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ToolCall { tool_call_id } => Some(tool_call_id),
            _ => None,
        })
        .collect()
}

/// What a run begins from, read at its start.
pub(super) struct Begun {
    pub chat: crate::model::Chat,
    pub agent: crate::agents::Agent,
    /// 0 for a person's run, deeper for a sub-agent's.
    pub depth: u32,
    pub choice: Choice,
    pub client: atelier_llm::Client,
    /// The pool the run's tools are resolved from.
    pub snapshot: std::sync::Arc<crate::routing::pool::Snapshot>,
}

impl<'a> Conversation<'a> {
    /// Reads what a run begins from. The pool depends on nothing else
    /// here: it is read while the chat, its agent, the model and the
    /// client (its key from the secret store) are; each read is a hand-off
    /// to a database thread, and overlapping them is most of what a run's
    /// start costs. Errors come in this order: no chat, no agent, the
    /// provider or model, the pool (a busy chat was refused at the door,
    /// see `Registered`, before the options could make a model the chat's).
    pub(super) async fn begin(&self, chat_id: &str, start: &Start<'_>, opts: &SendOptions) -> Result<Begun> {
        let (providers, routing) = (self.app.providers(), self.app.routing());
        // The provider the options name, or the only one set up, read with
        // the chat: most runs use it (see `choose`).
        let early = async {
            match (start, &opts.provider_id) {
                (Start::Thread { .. }, _) => None,
                (_, Some(p)) => providers.get(p).await.ok(),
                (_, None) => providers.sole().await.ok().and_then(Result::ok),
            }
        };
        let setup = async {
            let (read, early) = tokio::join!(self.chat_and_agent(chat_id, opts), early);
            let (chat, agent) = read?;
            let (depth, choice) = match start {
                Start::Thread { depth, choice, .. } => (*depth, (**choice).clone()),
                _ => (0, self.choose(&chat, &agent, opts, early).await?),
            };
            let client = providers.client_for(choice.provider.clone()).await?;
            Ok::<_, Error>((chat, agent, depth, choice, client))
        };
        let (setup, snapshot) = tokio::join!(setup, routing.snapshot());
        let (chat, agent, depth, choice, client) = setup?;
        Ok(Begun {
            chat,
            agent,
            depth,
            choice,
            client,
            snapshot: snapshot?,
        })
    }
}

impl Conversation<'_> {
    /// The chat and the agent that answers in it: the options' (read at
    /// the same time), else the chat's. A missing chat is the error to
    /// report, before its agent.
    async fn chat_and_agent(
        &self,
        chat_id: &str,
        opts: &SendOptions,
    ) -> Result<(crate::model::Chat, crate::agents::Agent)> {
        let (chats, agents) = (self.app.chats(), self.app.agents());
        match &opts.agent_id {
            Some(id) => {
                let (chat, agent) = tokio::join!(chats.get(chat_id), agents.get(id));
                Ok((chat?, agent?))
            }
            None => {
                let chat = chats.get(chat_id).await?;
                let id = chat.agent_id.clone().unwrap_or_else(|| DEFAULT_AGENT.to_owned());
                let agent = agents.get(&id).await?;
                Ok((chat, agent))
            }
        }
    }

    /// The provider and model: the options (which become the chat's) >
    /// the chat's > the agent's > the only provider, with its default model.
    /// `early`: the provider the options name, or else the only one, read
    /// beside the chat; used when it is the one chosen.
    pub(super) async fn choose(
        &self,
        chat: &crate::model::Chat,
        agent: &crate::agents::Agent,
        opts: &SendOptions,
        early: Option<crate::providers::ProviderRecord>,
    ) -> Result<Choice> {
        let agent_model = agent.model.as_ref();
        let wanted = opts
            .provider_id
            .clone()
            .or_else(|| chat.provider_id.clone())
            .or_else(|| agent_model.map(|m| m.provider.clone()));
        let provider = match (wanted, early) {
            (Some(p), Some(e)) if e.id == p => e,
            (Some(p), _) => self.app.providers().get(&p).await?,
            // None named: `early` is the only provider.
            (None, Some(e)) => e,
            (None, None) => match self.app.providers().sole().await? {
                Ok(one) => one,
                Err(0) => {
                    return Err(Error::InvalidData {
                        what: "provider",
                        reason: "no LLM provider is set up: `atelier provider detect`, then `atelier provider add …`"
                            .into(),
                    });
                }
                Err(_) => {
                    return Err(Error::InvalidData {
                        what: "provider",
                        reason: "several providers are set up: choose one with --provider (it stays the chat's)".into(),
                    });
                }
            },
        };
        let provider_id = provider.id.clone();
        // The chat's model is its provider's: another provider named for
        // this message brings its own (its default, the agent's for it).
        let same_provider = chat.provider_id.as_deref() == Some(provider_id.as_str());
        let named = opts
            .model
            .clone()
            .or_else(|| {
                chat.model
                    .clone()
                    .filter(|_| same_provider || chat.provider_id.is_none())
            })
            .or_else(|| {
                agent_model
                    .filter(|m| m.provider == provider_id)
                    .map(|m| m.model.clone())
            })
            .or_else(|| provider.default_model.clone());
        let model = match named {
            Some(model) => model,
            // Added while its server was down (or before it had a model):
            // given one now, as an add would have.
            None => self
                .app
                .providers()
                .give_default_model(&provider_id)
                .await?
                .ok_or_else(|| Error::InvalidData {
                    what: "model",
                    reason: format!(
                        "provider {provider_id:?} has no default model, and none could be chosen from its model list (Test connection in Settings, or `atelier provider test {provider_id}`, says why): choose a model"
                    ),
                })?,
        };
        // The switcher sends its choice with every message: written only
        // when it changes the chat's.
        let changed = chat.provider_id.as_deref() != Some(&provider_id) || chat.model.as_deref() != Some(&model);
        if (opts.provider_id.is_some() || opts.model.is_some()) && changed {
            let mut tx = db::begin_write(self.app.db()).await?;
            sqlx::query("UPDATE chats SET provider_id = ?, model = ? WHERE id = ?")
                .bind(&provider_id)
                .bind(&model)
                .bind(&chat.id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        }
        Ok(Choice { provider, model })
    }

    /// The messages root → `leaf`.
    pub(super) async fn path_to(&self, chat_id: &str, leaf: &str) -> Result<Vec<Message>> {
        let rows = sqlx::query(crate::messages::select_messages!(
            "WHERE id IN (WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM messages WHERE id = ?1 \
             UNION ALL SELECT m.id, m.parent_id FROM messages m JOIN up ON m.id = up.parent_id) SELECT id FROM up) \
             AND chat_id = ?2"
        ))
        .bind(leaf)
        .bind(chat_id)
        .fetch_all(self.app.db())
        .await?;
        let mut by_id: HashMap<String, Message> = HashMap::new();
        for r in &rows {
            let m = crate::messages::message_from_row(r)?;
            by_id.insert(m.id.clone(), m);
        }
        let mut path = Vec::new();
        let mut at = Some(leaf.to_owned());
        while let Some(id) = at {
            let Some(m) = by_id.remove(&id) else { break };
            at = m.parent_id.clone();
            path.push(m);
        }
        path.reverse();
        Ok(path)
    }

    /// What each `edit` node of the branch changed, as a note naming the
    /// files (from its manifest's change set), in one query.
    pub(super) async fn edit_notes(&self, chat_id: &str, branch: &[Message]) -> Result<HashMap<String, String>> {
        let edits: Vec<&Message> = branch.iter().filter(|m| m.role == Role::Edit).collect();
        if edits.is_empty() {
            return Ok(HashMap::new());
        }
        let ids: Vec<&String> = edits.iter().map(|m| &m.manifest_id).collect();
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT id, files, source FROM workspace_manifests WHERE chat_id = ? AND id IN (SELECT value FROM json_each(?))",
        )
        .bind(chat_id)
        .bind(serde_json::to_string(&ids).map_err(|e| Error::Internal(e.to_string()))?)
        .fetch_all(self.app.db())
        .await?;
        let by_manifest: HashMap<String, String> = rows
            .into_iter()
            .filter_map(|(id, files, source)| {
                let files: serde_json::Map<String, Value> = serde_json::from_str(&files).ok()?;
                Some((id, super::context::edit_note(&files, source == "user_upload")))
            })
            .collect();
        Ok(edits
            .into_iter()
            .filter_map(|m| by_manifest.get(&m.manifest_id).map(|n| (m.id.clone(), n.clone())))
            .collect())
    }

    /// The rows of every call on the branch, in one query (each step of a
    /// run reads them again); with those of the branch's model calls that
    /// have no node yet because they have not ended (another process asks
    /// about or runs them), so the model is told so, not that they were
    /// cancelled. Such a row is the branch's only when its parent (the
    /// message its caller named, the place once placed) is on the branch:
    /// a retry's answer on a sibling branch may reuse the model call id.
    pub(super) async fn call_rows(&self, branch: &[Message]) -> Result<HashMap<String, CallRow>> {
        use sqlx::Row as _;
        let ids = call_ids(branch);
        let asked: Vec<&String> = branch
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(|p| match p {
                ContentPart::ModelCall { call_id, .. } => Some(call_id),
                _ => None,
            })
            .collect();
        let Some(chat_id) = branch.first().map(|m| &m.chat_id) else {
            return Ok(HashMap::new());
        };
        if ids.is_empty() && asked.is_empty() {
            return Ok(HashMap::new());
        }
        let json = |ids: &[&String]| serde_json::to_string(ids).map_err(|e| Error::Internal(e.to_string()));
        let rows = sqlx::query(concat!(
            "SELECT id, tool_id, args, result, status, error_kind, error, model_call_id, render_plan, post_manifest_id, ",
            crate::mcp::content::is_mcp_tool_sql!(),
            " AS mcp FROM tool_calls WHERE id IN (SELECT value FROM json_each(?1)) OR (chat_id = ?2 ",
            "AND message_id IS NULL AND status IN ('pending', 'awaiting_approval', 'running') ",
            "AND model_call_id IN (SELECT value FROM json_each(?3)) ",
            // Rows from before parents were written: as they were read then.
            "AND (parent_id IS NULL OR parent_id IN (SELECT value FROM json_each(?4))))"
        ))
        .bind(json(&ids)?)
        .bind(chat_id)
        .bind(json(&asked)?)
        .bind(json(&branch.iter().map(|m| &m.id).collect::<Vec<_>>())?)
        .fetch_all(self.app.db())
        .await?;
        let mut out = HashMap::new();
        for r in rows {
            let args: String = r.try_get("args")?;
            let result: Option<String> = r.try_get("result")?;
            let row = CallRow {
                id: r.try_get("id")?,
                tool_id: r.try_get("tool_id")?,
                args: serde_json::from_str(&args).unwrap_or(Value::Null),
                result: result.and_then(|x| serde_json::from_str(&x).ok()),
                status: r.try_get("status")?,
                error_kind: r.try_get("error_kind")?,
                error: r.try_get("error")?,
                model_call_id: r.try_get("model_call_id")?,
                render_plan: r
                    .try_get::<Option<String>, _>("render_plan")?
                    .and_then(|x| serde_json::from_str(&x).ok()),
                post_manifest_id: r.try_get("post_manifest_id")?,
                mcp: r.try_get("mcp")?,
            };
            out.insert(row.id.clone(), row);
        }
        Ok(out)
    }
}
