//! The `tool_calls` row of a call: inserted when the call is recorded
//! (`running`, or `awaiting_approval` while a person decides), ended with
//! the reason when we (not the tool) cannot complete it, finished with the
//! call's outcome ([`Finish`]), and read back as a [`ToolCallRecord`].

use serde::Serialize;
use serde_json::Value;
use sqlx::{Row, SqliteConnection};

use super::call::RunEvent;
use super::plan::RenderPlan;
use super::run::{RunRequest, ToolCallRecord};
use super::status::{CallStatus, ErrorKind};
use crate::tools::Tools;
use crate::{Atelier, Error, Result, ids};

/// How a call ended, written to its row in the transaction that adds its
/// `tool` message (so a call is finished exactly when its node exists).
pub(super) struct Finish<'a> {
    pub message_id: &'a str,
    pub status: CallStatus,
    pub result: Option<&'a Value>,
    pub render_plan: &'a RenderPlan,
    pub error_kind: Option<ErrorKind>,
    pub error: Option<&'a str>,
    pub stdout: Option<&'a str>,
    pub stderr: Option<&'a str>,
    pub pre_manifest_id: &'a str,
    pub post_manifest_id: &'a str,
}

impl Finish<'_> {
    pub(super) async fn write(self, conn: &mut SqliteConnection, call_id: &str) -> Result<()> {
        sqlx::query(
            "UPDATE tool_calls SET message_id = ?, status = ?, result = ?, render_plan = ?, error_kind = ?, error = ?, \
             stdout = ?, stderr = ?, finished_at = ?, pre_manifest_id = ?, post_manifest_id = ?, \
             parent_id = NULL, thread_id = NULL, chat_leaf_id = NULL, chat_manifest_id = NULL WHERE id = ?",
        )
        .bind(self.message_id)
        .bind(self.status.as_str())
        .bind(self.result.map(json_text))
        .bind(json_text(self.render_plan))
        .bind(self.error_kind.map(ErrorKind::as_str))
        .bind(self.error)
        .bind(self.stdout)
        .bind(self.stderr)
        .bind(ids::now())
        .bind(self.pre_manifest_id)
        .bind(self.post_manifest_id)
        .bind(call_id)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}

/// JSON text of a value to store.
fn json_text<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned())
}

fn parse<T: serde::de::DeserializeOwned>(s: Option<String>, what: &'static str) -> Result<Option<T>> {
    s.map(|s| {
        serde_json::from_str(&s).map_err(|e| Error::InvalidData {
            what,
            reason: e.to_string(),
        })
    })
    .transpose()
}

fn call_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<ToolCallRecord> {
    let message_id: Option<String> = r.try_get("message_id")?;
    Ok(ToolCallRecord {
        id: r.try_get("id")?,
        chat_id: r.try_get("chat_id")?,
        node_id: message_id.clone(),
        message_id,
        tool_id: r.try_get("tool_id")?,
        args: parse(r.try_get("args")?, "tool call args")?.unwrap_or(Value::Null),
        result: parse(r.try_get("result")?, "tool call result")?,
        render_plan: parse(r.try_get("render_plan")?, "render plan")?,
        status: {
            let s: String = r.try_get("status")?;
            CallStatus::parse(&s).ok_or(Error::InvalidData {
                what: "tool call status",
                reason: s,
            })?
        },
        error_kind: r
            .try_get::<Option<String>, _>("error_kind")?
            .map(|k| {
                ErrorKind::parse(&k).ok_or(Error::InvalidData {
                    what: "tool call error kind",
                    reason: k,
                })
            })
            .transpose()?,
        error: r.try_get("error")?,
        stdout: r.try_get("stdout")?,
        stderr: r.try_get("stderr")?,
        started_at: r.try_get("started_at")?,
        finished_at: r.try_get("finished_at")?,
        pre_manifest_id: r.try_get("pre_manifest_id")?,
        post_manifest_id: r.try_get("post_manifest_id")?,
    })
}

impl Atelier {
    /// Inserts the call's row with `status`, and lets it be cancelled and
    /// its caller know its id. The parent the caller named is its
    /// `parent_id` until the call is placed ([`Self::place_call`]): a
    /// model's call waiting for an answer is tied to its turn's branch
    /// (another branch's turn may reuse its model call id).
    pub(super) async fn record_call(
        &self,
        req: &RunRequest,
        tool_id: &str,
        chat_id: &str,
        call_id: &str,
        status: CallStatus,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at, model_call_id, parent_id) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(call_id)
        .bind(chat_id)
        .bind(tool_id)
        .bind(serde_json::to_string(&req.args).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(status.as_str())
        .bind(ids::now())
        .bind(&req.model_call_id)
        .bind(&req.parent_id)
        .execute(self.db())
        .await?;
        self.running_calls()
            .insert(call_id.to_owned(), req.control.cancel.clone());
        req.control.emit(RunEvent::Started {
            call_id: call_id.to_owned(),
        });
        Ok(())
    }

    /// Writes where the placed call `call_id` goes — its parent, thread and
    /// pre-manifest — and where the chat stands now (the caller holds the
    /// chat lock), so a call that dies is ended there
    /// ([`super::recover`]), not at wherever the chat is by then.
    pub(super) async fn place_call(
        &self,
        call_id: &str,
        parent_id: &str,
        thread_id: Option<&str>,
        pre_manifest_id: &str,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE tool_calls SET parent_id = ?, thread_id = ?, pre_manifest_id = ?, \
             chat_leaf_id = (SELECT active_leaf_message_id FROM chats WHERE id = tool_calls.chat_id), \
             chat_manifest_id = (SELECT active_manifest_id FROM chats WHERE id = tool_calls.chat_id) \
             WHERE id = ?",
        )
        .bind(parent_id)
        .bind(thread_id)
        .bind(pre_manifest_id)
        .bind(call_id)
        .execute(self.db())
        .await?;
        Ok(())
    }

    /// Ends a recorded call that we (not the tool) could not complete. When
    /// that write fails too (the disk is full), the call is ended later, once
    /// writes go through ([`super::recover::retry_later`]), and the caller
    /// still reports `e`, the failure the person must know.
    pub(super) async fn end_failed(&self, call_id: &str, e: &Error) -> Result<()> {
        self.running_calls().remove(call_id);
        let written = sqlx::query(
            "UPDATE tool_calls SET status = 'error', error_kind = 'internal', error = ?, finished_at = ?, \
             parent_id = NULL, thread_id = NULL, chat_leaf_id = NULL, chat_manifest_id = NULL \
             WHERE id = ? AND status IN ('awaiting_approval', 'running')",
        )
        .bind(format!("the call could not be completed: {e}"))
        .bind(ids::now())
        .bind(call_id)
        .execute(self.db())
        .await;
        if let Err(write) = written {
            tracing::warn!(call = %call_id, error = %Error::from(write), "could not record a failed call's end");
            super::recover::retry_later(self, call_id, format!("Atelier could not record how it ended: {e}"));
        }
        Ok(())
    }
}

impl Tools<'_> {
    /// A recorded call, by id or by a unique prefix of its id.
    pub async fn call(&self, id: &str) -> Result<ToolCallRecord> {
        let row = sqlx::query("SELECT * FROM tool_calls WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?;
        if let Some(row) = row {
            return call_from_row(&row);
        }
        // A unique prefix, as chats and messages take (at least 4 characters).
        let rows = sqlx::query(
            "SELECT * FROM tool_calls WHERE length(?1) >= 4 AND substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 6",
        )
        .bind(id)
        .fetch_all(self.app.db())
        .await?;
        match rows.as_slice() {
            [] => Err(Error::ToolCallNotFound(id.to_owned())),
            [one] => call_from_row(one),
            many => Err(crate::chats::ambiguous("tool call", id, many)),
        }
    }
}
