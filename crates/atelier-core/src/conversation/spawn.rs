//! Sub-agents: the coordination tools a model run answers itself.
//!
//! `list_available_agents` lists the agents a task can go to.
//! `spawn_agents` runs each task as a child run of the named agent (by its
//! slug id), one after another, at the parent's depth + 1 — refused in the
//! backend when the parent's `max_depth` is reached, whatever the tool
//! list said. Each child works in a **thread** of the chat linked to the
//! spawn's call: a root (the workspace as the task began), the task as the
//! child's first message, then its turns and calls. Threads stay out of
//! the main tree, its branches, sibling arrows and context. Children work
//! on the chat's one workspace, so what they change is in the spawn's own
//! snapshot: the parent branch sees it after the spawn's node. The child's
//! final answer (or its error) is the call's result.
//!
//! Both are recorded through [`crate::tools::Tools::run_coordinated`],
//! which does not hold the chat lock while the children run (their calls
//! take it, one at a time).

use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::branch::Choice;
use super::{ChatEvent, Conversation, RunStatus, SendOptions, Start};
use crate::messages::{NewMessage, insert_message};
use crate::model::{Chat, ContentPart, Role};
use crate::routing::resolve::coordination_tools;
use crate::tools::call::Outcome;
use crate::tools::{ErrorKind, RunRequest, ToolCallRecord};
use crate::{Result, db, ids};

#[derive(Debug, Deserialize)]
struct Task {
    agent: String,
    task: String,
}

#[derive(Debug, Deserialize)]
struct Tasks {
    tasks: Vec<Task>,
}

/// Who is spawning: the run that made the call.
pub(super) struct Parent<'a> {
    pub chat: &'a Chat,
    pub agent: &'a crate::agents::Agent,
    pub depth: u32,
    pub choice: &'a Choice,
    pub opts: &'a SendOptions,
}

impl Conversation<'_> {
    /// The messages of sub-agent thread `thread_id` of `chat_id` (a spawn's
    /// result names it), root first, in the order they were written.
    pub async fn thread(&self, chat_id: &str, thread_id: &str) -> Result<Vec<crate::model::Message>> {
        let rows = sqlx::query("SELECT * FROM messages WHERE chat_id = ? AND thread_id = ? ORDER BY created_at, rowid")
            .bind(chat_id)
            .bind(thread_id)
            .fetch_all(self.app.db())
            .await?;
        if rows.is_empty() {
            return Err(crate::Error::InvalidData {
                what: "thread",
                reason: format!("chat {chat_id} has no sub-agent thread {thread_id}"),
            });
        }
        rows.iter().map(crate::messages::message_from_row).collect()
    }

    /// Runs coordination tool `name` for the parent run (see the module docs).
    pub(super) async fn coordinate(
        &self,
        name: &str,
        req: RunRequest,
        parent: &Parent<'_>,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<ToolCallRecord> {
        let schema = coordination_tools()
            .into_iter()
            .find(|t| t.name == name)
            .map_or(json!({"type": "object"}), |t| t.input_schema);
        let tools = self.app.tools();
        if name == "list_available_agents" {
            let agents = self.app.agents().list().await?;
            let listed: Vec<Value> = agents
                .iter()
                .filter(|a| a.id != parent.agent.id)
                .map(|a| json!({"id": a.id, "name": a.name, "description": a.description}))
                .collect();
            return tools
                .run_coordinated(req, &schema, |_| async move { ok(json!({"agents": listed})) })
                .await;
        }
        let args = req.args.clone();
        // The call's own stop (its card's Cancel); the run's Stop reaches it too.
        let cancel = req.control.cancel.clone();
        tools
            .run_coordinated(req, &schema, |call_id| async move {
                match serde_json::from_value::<Tasks>(args) {
                    Ok(t) => self.spawn(&call_id, t.tasks, parent, &cancel, on).await,
                    Err(e) => Outcome::failed(ErrorKind::InvalidArgs, e.to_string()),
                }
            })
            .await
    }

    /// Runs each task as a child run, one after another.
    async fn spawn(
        &self,
        call_id: &str,
        tasks: Vec<Task>,
        parent: &Parent<'_>,
        cancel: &CancellationToken,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Outcome {
        let depth = parent.depth + 1;
        if depth > parent.agent.max_depth {
            return Outcome::failed(
                ErrorKind::Unavailable,
                format!(
                    "agent {} may not start sub-agents here: its max_depth is {} and this run is at depth {}",
                    parent.agent.id, parent.agent.max_depth, parent.depth
                ),
            );
        }
        let mut results = Vec::new();
        let total = tasks.len();
        for task in tasks {
            if cancel.is_cancelled() {
                results.push(json!({"agent": task.agent, "status": "cancelled", "error": "cancelled by the user"}));
                continue;
            }
            let done = self.child(call_id, &task, depth, parent, cancel, on).await;
            results.push(match done {
                Ok((thread_id, status, text, error)) => json!({
                    "agent": task.agent,
                    "thread_id": thread_id,
                    "status": status.as_str(),
                    "answer": text,
                    "error": error,
                }),
                Err(e) => json!({"agent": task.agent, "status": "failed", "error": e.to_string()}),
            });
        }
        if cancel.is_cancelled() {
            // Stopped, not a success: the model hears what each task got to.
            let finished = results.iter().filter(|r| r["status"] == "complete").count();
            return Outcome::failed(
                ErrorKind::Cancelled,
                format!(
                    "cancelled by the user after {finished} of {total} task(s) finished; results so far: {}",
                    json!(results)
                ),
            );
        }
        ok(json!({ "results": results }))
    }

    /// One child run in a thread of its own: its id, how it ended, its
    /// final answer and error.
    async fn child(
        &self,
        call_id: &str,
        task: &Task,
        depth: u32,
        parent: &Parent<'_>,
        cancel: &CancellationToken,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<(String, RunStatus, String, Option<String>)> {
        let agent = self.app.agents().get(&task.agent).await?;
        // The child's own model if it has one, else the parent run's.
        let choice = match &agent.model {
            // Read before the thread's rows are written: a child whose
            // provider is gone fails without leaving an empty thread.
            Some(m) => Choice {
                provider: self.app.providers().get(&m.provider).await?,
                model: m.model.clone(),
            },
            None => parent.choice.clone(),
        };
        let chat = self.app.chats().get(&parent.chat.id).await?;
        let thread_id = ids::new_id();
        let first = {
            let mut tx = db::begin_write(self.app.db()).await?;
            sqlx::query(
                "INSERT INTO threads (id, chat_id, parent_call_id, agent_id, depth, task, created_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&thread_id)
            .bind(&chat.id)
            .bind(call_id)
            .bind(&agent.id)
            .bind(i64::from(depth))
            .bind(&task.task)
            .bind(ids::now())
            .execute(&mut *tx)
            .await?;
            let root = insert_message(
                &mut tx,
                NewMessage {
                    id: ids::new_id(),
                    chat_id: &chat.id,
                    parent_id: None,
                    role: Role::System,
                    content: &[],
                    manifest_id: &chat.active_manifest_id,
                    meta: None,
                    thread_id: Some(&thread_id),
                },
            )
            .await?;
            let first = insert_message(
                &mut tx,
                NewMessage {
                    id: ids::new_id(),
                    chat_id: &chat.id,
                    parent_id: Some(&root.id),
                    role: Role::User,
                    content: &[ContentPart::Text {
                        text: task.task.clone(),
                    }],
                    manifest_id: &chat.active_manifest_id,
                    meta: None,
                    thread_id: Some(&thread_id),
                },
            )
            .await?;
            tx.commit().await?;
            first
        };
        let opts = SendOptions {
            agent_id: Some(agent.id.clone()),
            approval: parent.opts.approval.clone(),
            cancel: cancel.child_token(),
            ..Default::default()
        };
        let (agent_id, thread) = (agent.id.clone(), thread_id.clone());
        let mut forward = |e: &ChatEvent| {
            on(&ChatEvent::SubAgent {
                thread_id: thread.clone(),
                agent_id: agent_id.clone(),
                depth,
                event: Box::new(e.clone()),
            });
        };
        let start = Start::Thread {
            first: first.id,
            depth,
            choice: Box::new(choice),
        };
        // A child run may spawn in turn: the recursion goes through a box.
        let out = Box::pin(self.run(&chat.id, start, opts, None, &mut forward)).await?;
        let answer = out
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(crate::model::Message::text)
            .unwrap_or_default();
        Ok((thread_id, out.status, answer, out.error))
    }
}

fn ok(v: Value) -> Outcome {
    Outcome {
        result: Ok(v),
        stdout: None,
        stderr: None,
        content: None,
    }
}
