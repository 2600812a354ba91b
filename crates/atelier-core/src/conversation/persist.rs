//! Writing a run's messages and keeping what it wrote in memory: the
//! person's message (what it needs gathered while the run begins), its
//! turns (under a parent already read; the first call's tool read while a
//! turn is written), the rows of the calls it made (from their records, not
//! read back), and the branch it keeps while every message it writes hangs
//! under it ([`follow`]). Each database read is a hand-off to another
//! thread, so what does not depend on another read runs beside it.

use serde_json::{Value, json};

use super::branch::Choice;
use super::context::CallRow;
use super::{Conversation, RunStatus, Start};
use crate::Result;
use crate::model::{ContentPart, Message, Role};
use crate::routing::SourceKind;
use crate::routing::exposure::Exposed;
use crate::routing::resolve::ResolvedTools;
use crate::tools::{Target, ToolCallRecord};

/// Where a person's message goes, gathered while its run begins: the
/// branch it extends (root → its parent, the last), and whether the edit
/// watcher's fence found the folder at its recorded state.
pub(super) struct Question {
    pub branch: Vec<Message>,
    /// No parent was named: the message goes wherever the chat is.
    pub at_leaf: bool,
    pub fenced: bool,
}

/// The row a call the run just made wrote, from its record (which was read
/// back from that row), so the next step need not read it again.
/// `model_call_id` is the one the request carried, which the row stores;
/// `mcp`, whether the tool is an MCP server's.
pub(super) fn call_row(record: &ToolCallRecord, model_call_id: &str, mcp: bool) -> CallRow {
    CallRow {
        id: record.id.clone(),
        tool_id: record.tool_id.clone(),
        args: record.args.clone(),
        result: record.result.clone(),
        status: record.status.as_str().to_owned(),
        error_kind: record.error_kind.map(|k| k.as_str().to_owned()),
        error: record.error.clone(),
        model_call_id: Some(model_call_id.to_owned()),
        render_plan: record.render_plan.as_ref().and_then(|p| serde_json::to_value(p).ok()),
        post_manifest_id: record.post_manifest_id.clone(),
        mcp,
    }
}

impl Conversation<'_> {
    /// The message `id`: the last of `branch` when it is that one, else read.
    pub(super) async fn message_at(&self, chat_id: &str, id: &str, branch: Option<&[Message]>) -> Result<Message> {
        match branch.and_then(<[Message]>::last) {
            Some(m) if m.id == id => Ok(m.clone()),
            _ => self.app.chats().message(chat_id, id).await,
        }
    }

    /// Gathers what a person's message needs at the same time as the run
    /// begins (each read is a hand-off to a database thread, and the fence
    /// a trip through the edit watcher's thread). `None` for other starts, and when
    /// anything is off (a short chat or message id, a missing message): the
    /// message then goes the usual way, after the run's own errors, and
    /// that way names what is wrong.
    pub(super) async fn question(&self, chat_id: &str, start: &Start<'_>) -> Option<Question> {
        let Start::Message { parent, .. } = start else {
            return None;
        };
        let branch = async {
            let parent_id = match parent {
                Some(p) => p.clone(),
                // A second read of the chat, beside `begin`'s: waiting for
                // that one would put this path after it.
                None => self.app.chats().get(chat_id).await.ok()?.active_leaf_message_id,
            };
            let branch = self.path_to(chat_id, &parent_id).await.ok()?;
            branch.last().is_some_and(|m| m.id == parent_id).then_some(branch)
        };
        // The chat's lock is not taken here: the run's start may wait (a
        // keychain asking for its password), and the lock would stop every
        // other use of the chat meanwhile.
        let (branch, fenced) = tokio::join!(branch, self.app.edit_watch().is_clean(chat_id));
        Some(Question {
            branch: branch?,
            at_leaf: parent.is_none(),
            fenced,
        })
    }

    /// Writes the person's message a run starts with, under `parent` (or
    /// wherever the chat is), with what [`Self::question`] gathered when
    /// it is still good. The message, and the branch root → it when known.
    pub(super) async fn ask(
        &self,
        chat_id: &str,
        text: &str,
        parent: Option<String>,
        images: Vec<String>,
        question: Option<Question>,
    ) -> Result<(Message, Option<Vec<Message>>)> {
        let mut content = vec![ContentPart::Text { text: text.to_owned() }];
        content.extend(images.into_iter().filter_map(|path| {
            let media_type = super::images::media_type(&path)?.to_owned();
            Some(ContentPart::Image { path, media_type })
        }));
        let question = question.filter(|q| q.branch.last().is_some_and(|m| m.chat_id == chat_id));
        let (user, mut known) = match (question, parent) {
            (
                Some(Question {
                    branch,
                    at_leaf,
                    fenced,
                }),
                _,
            ) => {
                let parent = branch
                    .last()
                    .cloned()
                    .ok_or_else(|| crate::Error::Internal("an empty branch".into()))?;
                let user = self
                    .app
                    .workspace()
                    .append_fenced(fenced, parent, at_leaf, Role::User, content)
                    .await?;
                (user, Some(branch))
            }
            // The path to the parent is the branch the first step sends:
            // read once, for both.
            (None, Some(p)) => {
                let mut branch = self.path_to(chat_id, &p).await?;
                if branch.last().is_none_or(|m| m.id != p) {
                    // Not a full id of this chat: named as a read does.
                    let m = self.app.chats().message(chat_id, &p).await?;
                    branch = self.path_to(chat_id, &m.id).await?;
                }
                let parent = branch.last().cloned().ok_or_else(|| crate::Error::MessageNotFound {
                    chat_id: chat_id.to_owned(),
                    message_id: p.clone(),
                })?;
                let user = self
                    .app
                    .workspace()
                    .append_under(chat_id, Some(parent), Role::User, content, None, None)
                    .await?;
                (user, Some(branch))
            }
            (None, None) => {
                let user = self
                    .app
                    .workspace()
                    .append_message(chat_id, None, Role::User, content)
                    .await?;
                (user, None)
            }
        };
        follow(&mut known, &user);
        Ok((user, known))
    }

    /// The tool of a model's first call in a turn, read while the turn is
    /// written (not earlier: a tool disabled or set to ask while the model
    /// streamed must be seen), for the run flow to use; `None` when there
    /// is nothing to read ahead (no call, arguments that are not JSON, a
    /// name the run does not have, a sub-agent tool) or the read failed:
    /// the run flow then reads it itself and reports what is wrong.
    pub(super) async fn call_target(
        &self,
        chat_id: &str,
        call: Option<&atelier_llm::ToolCall>,
        exposed: &Exposed,
        resolved: &ResolvedTools,
    ) -> Option<Target> {
        let call = call.filter(|c| c.arguments.is_ok())?;
        let name = exposed.wire_to_model.get(&call.name).unwrap_or(&call.name);
        let tool = resolved.route(name).ok().filter(|t| !t.coordinates())?;
        let tools = self.app.tools();
        tools
            .target(&tool.canonical_id, chat_id, Some(tool.source_kind == SourceKind::Mcp))
            .await
            .ok()
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn save_turn(
        &self,
        chat_id: &str,
        parent: Message,
        parts: Vec<ContentPart>,
        choice: &Choice,
        usage: Option<Value>,
        status: RunStatus,
        error: Option<&atelier_llm::Error>,
        id: Option<String>,
    ) -> Result<Message> {
        let meta = json!({
            "provider_id": choice.provider.id,
            "model": choice.model,
            "usage": usage,
            "status": status.as_str(),
            "error": error.map(|e| e.message.clone()),
            "error_kind": error.map(|e| e.kind.as_str()),
        });
        self.app
            .workspace()
            .append_answer(chat_id, parent, parts, Some(meta), id)
            .await
    }
}

/// Extends a known branch by a message written under its leaf; anything
/// else (an edit node captured in between, a message of another thread)
/// makes the next step read the branch again.
pub(super) fn follow(known: &mut Option<Vec<Message>>, m: &Message) {
    match known {
        Some(b) if b.last().map(|l| &l.id) == m.parent_id.as_ref() => b.push(m.clone()),
        _ => *known = None,
    }
}

/// A turn's reasoning as it is kept: one part per thinking block, each
/// with its own signature, and the encrypted ones where they came (the
/// provider takes them back only so); or, from a provider that sends
/// reasoning as text, that text.
pub(super) fn reasoning_parts(turn: &atelier_llm::Turn) -> Vec<ContentPart> {
    if turn.thinking.is_empty() {
        return if turn.reasoning.is_empty() {
            Vec::new()
        } else {
            vec![ContentPart::Reasoning {
                text: turn.reasoning.clone(),
                signature: None,
            }]
        };
    }
    turn.thinking
        .iter()
        .filter_map(|b| match b {
            atelier_llm::ThinkingBlock::Thinking { text, signature } if !text.is_empty() || signature.is_some() => {
                Some(ContentPart::Reasoning {
                    text: text.clone(),
                    signature: signature.clone(),
                })
            }
            atelier_llm::ThinkingBlock::Thinking { .. } => None,
            atelier_llm::ThinkingBlock::Redacted { data } => {
                Some(ContentPart::RedactedReasoning { data: data.clone() })
            }
        })
        .collect()
}
