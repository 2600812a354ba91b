//! Start-up recovery: calls that a crash or kill left `pending`,
//! `awaiting_approval` or `running` are marked `interrupted`, and what they
//! left in the workspace is recorded.

use sqlx::Row;

use crate::store::Observer;
use crate::{Atelier, Result, blocking, ids};

/// Marks calls that a crash or kill left unfinished as `interrupted` and
/// records what they left in the workspace. A call is only taken as dead
/// when its chat lock is free (its runner holds it while it runs), so a
/// call running in another process is left alone.
pub(crate) async fn recover_interrupted(app: &Atelier) -> Result<usize> {
    let rows =
        sqlx::query("SELECT id, chat_id FROM tool_calls WHERE status IN ('pending', 'awaiting_approval', 'running')")
            .fetch_all(app.db())
            .await?;
    let mut recovered = 0;
    for r in rows {
        let (id, chat_id): (String, String) = (r.try_get("id")?, r.try_get("chat_id")?);
        match recover_one(app, &id, &chat_id).await {
            Ok(true) => recovered += 1,
            Ok(false) => {}
            // Recovery must never keep the app from starting: the call stays
            // as it is and is tried again next time.
            Err(e) => tracing::warn!(call = %id, chat = %chat_id, error = %e, "could not recover a tool call"),
        }
    }
    Ok(recovered)
}

/// Recovers one call if its runner is gone; whether it did.
async fn recover_one(app: &Atelier, id: &str, chat_id: &str) -> Result<bool> {
    {
        let lock_path = app.data_dir().chat_dir(chat_id).join("lock");
        let Some(_lock) = blocking(move || crate::store::lock::FileLock::try_acquire(&lock_path)).await? else {
            return Ok(false);
        };
        let chat = app.get_chat(chat_id).await?;
        let (current, _) = app.capture_pending(&chat, &Observer::default()).await?;
        sqlx::query(
            "UPDATE tool_calls SET status = 'interrupted', error_kind = 'interrupted', \
             error = 'the app stopped while this call ran; what it changed in the workspace was recorded', \
             finished_at = ?, post_manifest_id = ? WHERE id = ? AND status IN ('pending', 'awaiting_approval', 'running')",
        )
        .bind(ids::now())
        .bind(&current.manifest_id)
        .bind(id)
        .execute(app.db())
        .await?;
        tracing::warn!(call = %id, chat = %chat_id, "marked an unfinished tool call interrupted");
    }
    Ok(true)
}
