//! Writing a run's messages and keeping what it wrote in memory: its turns
//! (under a parent already read), the rows of the calls it made (from their
//! records, not read back), and the branch it keeps while every message it
//! writes hangs under it ([`follow`]).

use serde_json::{Value, json};

use super::branch::Choice;
use super::context::CallRow;
use super::{Conversation, RunStatus};
use crate::Result;
use crate::model::{ContentPart, Message};
use crate::tools::ToolCallRecord;

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
