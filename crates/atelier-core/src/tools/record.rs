//! The `tool_calls` row of a call: inserted when the call is recorded
//! (`running`, or `awaiting_approval` while a person decides), ended with
//! the reason when we (not the tool) cannot complete it, and read back as a
//! [`ToolCallRecord`].

use serde_json::Value;
use sqlx::Row;

use super::run::{RunRequest, ToolCallRecord};
use crate::{Atelier, Error, Result, ids};

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
        status: r.try_get("status")?,
        error_kind: r.try_get("error_kind")?,
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
    /// its caller know its id.
    pub(super) async fn record_call(
        &self,
        req: &RunRequest,
        tool_id: &str,
        chat_id: &str,
        call_id: &str,
        status: &str,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(call_id)
        .bind(chat_id)
        .bind(tool_id)
        .bind(serde_json::to_string(&req.args).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(status)
        .bind(ids::now())
        .execute(self.db())
        .await?;
        self.running_calls()
            .insert(call_id.to_owned(), req.control.cancel.clone());
        if let Some(started) = &req.control.on_started {
            started(call_id);
        }
        Ok(())
    }

    /// Ends a recorded call that we (not the tool) could not complete.
    pub(super) async fn end_failed(&self, call_id: &str, e: &Error) -> Result<()> {
        self.running_calls().remove(call_id);
        sqlx::query(
            "UPDATE tool_calls SET status = 'error', error_kind = 'internal', error = ?, finished_at = ? \
             WHERE id = ? AND status IN ('awaiting_approval', 'running')",
        )
        .bind(format!("the call could not be completed: {e}"))
        .bind(ids::now())
        .bind(call_id)
        .execute(self.db())
        .await?;
        Ok(())
    }

    /// A recorded call.
    pub async fn get_tool_call(&self, id: &str) -> Result<ToolCallRecord> {
        let row = sqlx::query("SELECT * FROM tool_calls WHERE id = ?")
            .bind(id)
            .fetch_optional(self.db())
            .await?
            .ok_or_else(|| Error::ToolCallNotFound(id.to_owned()))?;
        call_from_row(&row)
    }
}
