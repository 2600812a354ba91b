//! Writing a run's messages with as few trips to the database and the
//! blocking pool as the rules allow: a model loop writes one message per
//! turn and would otherwise pay for a workspace walk each time, and read
//! back rows it has just been handed. Also the branch a run keeps in
//! memory while every message it writes hangs under it ([`follow`]).

use serde_json::{Value, json};

use super::branch::Choice;
use super::context::CallRow;
use super::{Conversation, RunStatus};
use crate::messages::{NewMessage, advance, insert_message};
use crate::model::{ContentPart, Message, Role};
use crate::tools::ToolCallRecord;
use crate::workspace::lock_chat;
use crate::{Atelier, Result, db, ids};

/// Appends a message of the run (the person's, or a model turn) under
/// `parent`, already read. Under the chat lock, when the chat's folder is
/// at the parent's state and its watcher saw nothing since the last walk,
/// there are no edits made outside to record first (the run flow's own
/// shortcut before a call), so the message is written in one transaction
/// without a walk. Otherwise the general path does it all: records those
/// edits, puts the folder at the parent's state, then writes.
pub(super) async fn append_turn(
    app: &Atelier,
    chat_id: &str,
    parent: Message,
    role: Role,
    content: Vec<ContentPart>,
    meta: Option<Value>,
    id: Option<String>,
) -> Result<Message> {
    {
        let _lock = lock_chat(app, chat_id).await?;
        let chat = app.chats().get(chat_id).await?; // fresh, under the lock
        if parent.manifest_id == chat.active_manifest_id && app.edit_watch().is_clean(&chat.id).await {
            let mut tx = db::begin_write(app.db()).await?;
            let message = insert_message(
                &mut tx,
                NewMessage {
                    id: id.unwrap_or_else(ids::new_id),
                    chat_id: &chat.id,
                    parent_id: Some(&parent.id),
                    role,
                    content: &content,
                    manifest_id: &parent.manifest_id,
                    meta: meta.as_ref(),
                    // A message answers within its parent's thread.
                    thread_id: parent.thread_id.as_deref(),
                },
            )
            .await?;
            advance(&mut tx, &message).await?;
            tx.commit().await?;
            return Ok(message);
        }
        // The lock goes here: the general path takes it again.
    }
    app.workspace()
        .append_under(chat_id, Some(parent), role, content, meta, id)
        .await
}

/// The row a call the run just made wrote, from its record (which was read
/// back from that row), so the next step need not read it again.
/// `model_call_id` is the one the request carried, which the row stores.
pub(super) fn call_row(record: &ToolCallRecord, model_call_id: &str) -> CallRow {
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
        super::persist::append_turn(self.app, chat_id, parent, Role::Assistant, parts, Some(meta), id).await
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
