//! Confirmation policies: whether a call asks a person first.
//!
//! The author of a tool says whether it needs confirmation
//! (`requires_confirmation`); a person can override that per tool —
//! [`Policy::Ask`] (always ask, even if the author did not) or
//! [`Policy::Allow`] (never ask, even if the author did) — and, when asked,
//! answer "allow for this chat": that tool runs without a question in that
//! chat until the chat is deleted or the allowance revoked. The run flow
//! ([`super::run`]) decides with [`Tools::needs_confirmation`], for every
//! caller: the CLI, the app and a model.

use serde::{Deserialize, Serialize};

use super::Tools;
use crate::toolsets::records::ToolRecord;
use crate::{Error, Result, db, ids};

/// A person's confirmation policy for one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The author's `requires_confirmation`.
    #[default]
    Default,
    /// Always ask.
    Ask,
    /// Never ask.
    Allow,
}

text_enum!(Policy {
    Default = "default",
    Ask = "ask",
    Allow = "allow",
});

/// A tool's policy and what it means now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolPolicy {
    pub tool_id: String,
    pub policy: Policy,
    /// What the author asked for.
    pub requires_confirmation: bool,
    /// Whether a call asks first (outside chats that allow it).
    pub asks: bool,
}

impl Tools<'_> {
    /// The policy of a tool.
    pub async fn policy(&self, tool_id: &str) -> Result<ToolPolicy> {
        let tool = self.tool(tool_id).await?;
        let policy = self.stored_policy(&tool.tool_id).await?;
        Ok(ToolPolicy {
            asks: asks(policy, &tool),
            tool_id: tool.tool_id,
            policy,
            requires_confirmation: tool.requires_confirmation,
        })
    }

    /// Sets a tool's policy ([`Policy::Default`] removes the override).
    pub async fn set_policy(&self, tool_id: &str, policy: Policy) -> Result<ToolPolicy> {
        let tool = self.tool(tool_id).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        match policy {
            Policy::Default => {
                sqlx::query("DELETE FROM tool_policies WHERE tool_id = ?")
                    .bind(&tool.tool_id)
                    .execute(&mut *tx)
                    .await?;
            }
            Policy::Ask | Policy::Allow => {
                sqlx::query(
                    "INSERT INTO tool_policies (tool_id, policy, updated_at) VALUES (?, ?, ?) \
                     ON CONFLICT (tool_id) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at",
                )
                .bind(&tool.tool_id)
                .bind(policy.as_str())
                .bind(ids::now())
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        self.policy(&tool.tool_id).await
    }

    /// Lets `tool_id` run without a question in this chat, until the chat
    /// is deleted or [`Tools::revoke_in_chat`].
    pub async fn allow_in_chat(&self, chat_id: &str, tool_id: &str) -> Result<()> {
        let chat = self.app.chats().get(chat_id).await?;
        let tool = self.tool(tool_id).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query("INSERT OR IGNORE INTO chat_tool_allowances (chat_id, tool_id, granted_at) VALUES (?, ?, ?)")
            .bind(&chat.id)
            .bind(&tool.tool_id)
            .bind(ids::now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes back an allowance; whether there was one.
    pub async fn revoke_in_chat(&self, chat_id: &str, tool_id: &str) -> Result<bool> {
        let chat = self.app.chats().get(chat_id).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        let done = sqlx::query("DELETE FROM chat_tool_allowances WHERE chat_id = ? AND tool_id = ?")
            .bind(&chat.id)
            .bind(tool_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// The tools a chat lets run without a question, by canonical id.
    pub async fn chat_allowances(&self, chat_id: &str) -> Result<Vec<String>> {
        let chat = self.app.chats().get(chat_id).await?;
        Ok(
            sqlx::query_scalar("SELECT tool_id FROM chat_tool_allowances WHERE chat_id = ? ORDER BY tool_id")
                .bind(&chat.id)
                .fetch_all(self.app.db())
                .await?,
        )
    }

    /// Answers a waiting call with "allow for this chat": records the
    /// allowance for the call's tool and chat, then runs the call. Whether
    /// such a call was waiting.
    pub async fn answer_approval_for_chat(&self, call_id: &str) -> Result<bool> {
        let call = self.call(call_id).await?;
        if !self.app.pending_approvals().contains_key(call_id) {
            return Ok(false);
        }
        self.allow_in_chat(&call.chat_id, &call.tool_id).await?;
        Ok(self.answer_approval(call_id, true))
    }

    /// Whether a call of `tool` in `chat_id` must ask a person first: the
    /// tool's policy over its author's choice, unless the chat allows it.
    pub(crate) async fn needs_confirmation(&self, tool: &ToolRecord, chat_id: &str) -> Result<bool> {
        if !asks(self.stored_policy(&tool.tool_id).await?, tool) {
            return Ok(false);
        }
        let allowed: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM chat_tool_allowances WHERE chat_id = ? AND tool_id = ?")
                .bind(chat_id)
                .bind(&tool.tool_id)
                .fetch_optional(self.app.db())
                .await?;
        Ok(allowed.is_none())
    }

    /// Every tool a person gave a policy, with it (the others follow their
    /// author: [`Policy::Default`]).
    pub async fn policies(&self) -> Result<std::collections::BTreeMap<String, Policy>> {
        let rows: Vec<(String, String)> = sqlx::query_as("SELECT tool_id, policy FROM tool_policies")
            .fetch_all(self.app.db())
            .await?;
        rows.into_iter()
            .map(|(id, p)| match Policy::parse(&p) {
                Some(p) => Ok((id, p)),
                None => Err(Error::InvalidData {
                    what: "tool confirmation policy",
                    reason: p,
                }),
            })
            .collect()
    }

    async fn stored_policy(&self, tool_id: &str) -> Result<Policy> {
        let stored: Option<String> = sqlx::query_scalar("SELECT policy FROM tool_policies WHERE tool_id = ?")
            .bind(tool_id)
            .fetch_optional(self.app.db())
            .await?;
        match stored {
            None => Ok(Policy::Default),
            Some(s) => Policy::parse(&s).ok_or(Error::InvalidData {
                what: "tool confirmation policy",
                reason: s,
            }),
        }
    }
}

impl Policy {
    /// Whether a call asks first under this policy, its author having
    /// asked for confirmation or not (outside chat allowances).
    pub fn asks(self, author_requires_confirmation: bool) -> bool {
        match self {
            Policy::Default => author_requires_confirmation,
            Policy::Ask => true,
            Policy::Allow => false,
        }
    }
}

/// Whether `policy` makes a call of `tool` ask (outside chat allowances).
fn asks(policy: Policy, tool: &ToolRecord) -> bool {
    policy.asks(tool.requires_confirmation)
}

#[cfg(test)]
mod tests {
    use super::Policy;

    #[test]
    fn policies_are_stored_and_sent_as_the_same_words() {
        for &p in Policy::ALL {
            assert_eq!(serde_json::to_value(p).expect("json"), p.as_str());
            assert_eq!(Policy::parse(p.as_str()), Some(p));
        }
    }
}
