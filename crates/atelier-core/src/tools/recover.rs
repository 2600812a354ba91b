//! Start-up recovery: calls that a crash or kill left `pending`,
//! `awaiting_approval` or `running` are marked `interrupted`, and what they
//! left in the workspace is recorded (a call that died waiting for a
//! confirmation never ran, so it left nothing).

use sqlx::Row;

use super::approval::waiting_lock_path;
use crate::store::Observer;
use crate::{Atelier, Result, blocking, ids};

/// Marks calls that a crash or kill left unfinished as `interrupted` and
/// records what they left in the workspace. A call is only taken as dead
/// when the lock its runner holds is free — the chat lock while it runs,
/// its own while it waits for an answer — so a call of another process is
/// left alone.
pub(crate) async fn recover_interrupted(app: &Atelier) -> Result<usize> {
    let rows = sqlx::query(
        "SELECT id, chat_id, status FROM tool_calls WHERE status IN ('pending', 'awaiting_approval', 'running')",
    )
    .fetch_all(app.db())
    .await?;
    let mut recovered = 0;
    for r in rows {
        let (id, chat_id, status): (String, String, String) =
            (r.try_get("id")?, r.try_get("chat_id")?, r.try_get("status")?);
        let done = if status == "awaiting_approval" {
            recover_waiting(app, &id, &chat_id).await
        } else {
            recover_one(app, &id, &chat_id).await
        };
        match done {
            Ok(true) => recovered += 1,
            Ok(false) => {}
            // Recovery must never keep the app from starting: the call stays
            // as it is and is tried again next time.
            Err(e) => tracing::warn!(call = %id, chat = %chat_id, error = %e, "could not recover a tool call"),
        }
    }
    Ok(recovered)
}

/// Ends a call that died waiting for a confirmation, if its waiting lock
/// is free; whether it did. Only a call still `awaiting_approval` is
/// touched: one whose answer came has moved on to `running` (under the
/// chat lock) before its waiting lock was let go.
async fn recover_waiting(app: &Atelier, id: &str, chat_id: &str) -> Result<bool> {
    let lock_path = waiting_lock_path(app, chat_id, id);
    let held = {
        let p = lock_path.clone();
        blocking(move || {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(crate::Error::io("create", dir))?;
            }
            crate::lock::FileLock::try_acquire(&p)
        })
        .await?
    };
    let Some(lock) = held else { return Ok(false) };
    let ended = sqlx::query(
        "UPDATE tool_calls SET status = 'interrupted', error_kind = 'interrupted', \
         error = 'the app stopped while this call waited for confirmation; it did not run', \
         finished_at = ? WHERE id = ? AND status = 'awaiting_approval'",
    )
    .bind(ids::now())
    .bind(id)
    .execute(app.db())
    .await?
    .rows_affected()
        > 0;
    let _ = std::fs::remove_file(&lock_path);
    drop(lock);
    if ended {
        tracing::warn!(call = %id, chat = %chat_id, "marked a tool call that died waiting for confirmation interrupted");
    }
    Ok(ended)
}

/// Recovers one call if its runner is gone; whether it did.
async fn recover_one(app: &Atelier, id: &str, chat_id: &str) -> Result<bool> {
    // A call the chat engine runs itself (sub-agents) holds its own lock,
    // not the chat's, while it works.
    let own = waiting_lock_path(app, chat_id, id);
    let own = match blocking(move || crate::lock::FileLock::try_take_present(&own)).await? {
        crate::lock::Probe::Busy => return Ok(false),
        crate::lock::Probe::Gone => None,
        crate::lock::Probe::Taken(lock) => Some(lock),
    };
    {
        let lock_path = app.data_dir().chat_dir(chat_id).join("lock");
        let Some(_lock) = blocking(move || crate::lock::FileLock::try_acquire(&lock_path)).await? else {
            return Ok(false);
        };
        let chat = app.chats().get(chat_id).await?;
        let (current, _) = app.capture_pending(&chat, &Observer::default()).await?;
        let ended = sqlx::query(
            "UPDATE tool_calls SET status = 'interrupted', error_kind = 'interrupted', \
             error = 'the app stopped while this call ran; what it changed in the workspace was recorded', \
             finished_at = ?, post_manifest_id = ? WHERE id = ? AND status IN ('pending', 'awaiting_approval', 'running')",
        )
        .bind(ids::now())
        .bind(&current.manifest_id)
        .bind(id)
        .execute(app.db())
        .await?
        .rows_affected()
            > 0;
        if ended {
            tracing::warn!(call = %id, chat = %chat_id, "marked an unfinished tool call interrupted");
        }
    }
    // The dead call's own lock file goes while still held.
    if let Some(lock) = own {
        let _ = std::fs::remove_file(lock.path());
        drop(lock);
    }
    Ok(true)
}
