//! Recovery of calls whose runner is gone: at start-up, calls that a crash
//! or kill left `pending`, `awaiting_approval` or `running`; in a live
//! app, a call whose end could not be written (a full disk), once writes
//! go through again. Each becomes `interrupted` with its `tool` node, which
//! holds what it left in the workspace — the call's own changes, not a
//! person's edit (a call that died waiting for a confirmation never ran,
//! so it left nothing and gets no node).

use std::time::Duration;

use sqlx::Row;

use super::approval::waiting_lock_path;
use super::plan;
use super::status::{CallStatus, ErrorKind};
use crate::messages::{NewMessage, insert_message, set_active};
use crate::model::{Chat, ContentPart, ManifestSource, Role};
use crate::store::Observer;
use crate::{Atelier, Result, blocking, db, ids};

/// Why a call found unfinished at start-up did not finish.
const STOPPED: &str = "Atelier stopped while it ran";

/// Marks calls that a crash or kill left unfinished as `interrupted` and
/// records what they left in the workspace. A call is only taken as dead
/// when the lock its runner holds is free — the chat lock while it runs,
/// its own while it waits for an answer — so a call of another process is
/// left alone.
pub(crate) async fn recover_interrupted(app: &Atelier) -> Result<usize> {
    let rows = sqlx::query(
        // Latest first: a sub-agent's call before the call that started it.
        "SELECT id, chat_id, status FROM tool_calls WHERE status IN ('pending', 'awaiting_approval', 'running') \
         ORDER BY started_at DESC",
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
            recover_one(app, &id, &chat_id, STOPPED).await
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

/// Ends `call_id`, whose end could not be written (`why`), once a write
/// goes through: tried again, less and less often, until its runner's lock
/// is free and the database takes the write — else a live app would show it
/// running until a restart. Stops when the call is finished some other way,
/// or the app is gone.
pub(super) fn retry_later(app: &Atelier, call_id: &str, why: String) {
    let (weak, id) = (app.downgrade(), call_id.to_owned());
    tokio::spawn(async move {
        let mut wait = Duration::from_millis(500);
        loop {
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(30));
            let Some(app) = weak.upgrade() else { return };
            let row: std::result::Result<Option<(String, String)>, _> =
                sqlx::query_as("SELECT chat_id, status FROM tool_calls WHERE id = ?")
                    .bind(&id)
                    .fetch_optional(app.db())
                    .await;
            let chat_id = match row {
                Ok(Some((chat_id, status))) if matches!(status.as_str(), "pending" | "running") => chat_id,
                Ok(_) => return,
                Err(_) => continue,
            };
            match recover_one(&app, &id, &chat_id, &why).await {
                Ok(true) => return,
                Ok(false) => {}
                Err(e) if e.is_not_found() => return,
                Err(e) => tracing::debug!(call = %id, error = %e, "a call's end is still not written"),
            }
        }
    });
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
         finished_at = ?, parent_id = NULL, thread_id = NULL, chat_leaf_id = NULL, chat_manifest_id = NULL \
         WHERE id = ? AND status = 'awaiting_approval'",
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
async fn recover_one(app: &Atelier, id: &str, chat_id: &str, why: &str) -> Result<bool> {
    // A call the chat engine runs itself (sub-agents) holds its own lock,
    // not the chat's, while it works.
    let own = waiting_lock_path(app, chat_id, id);
    let own = match blocking(move || crate::lock::FileLock::try_take_present(&own)).await? {
        crate::lock::Probe::Busy => return Ok(false),
        crate::lock::Probe::Gone => None,
        crate::lock::Probe::Taken(lock) => Some(lock),
    };
    let ended = {
        let lock_path = app.data_dir().chat_dir(chat_id).join("lock");
        let Some(_lock) = blocking(move || crate::lock::FileLock::try_acquire(&lock_path)).await? else {
            return Ok(false);
        };
        end_with_node(app, id, chat_id, why).await?
    };
    // The dead call's own lock file goes while still held.
    if let Some(lock) = own {
        let _ = std::fs::remove_file(lock.path());
        drop(lock);
    }
    Ok(ended)
}

/// Where a dead call goes: its parent, its thread, its pre-manifest, and
/// whether the folder is still the call's (the chat still stands where it
/// stood when the call was placed).
struct Place {
    parent: String,
    thread: Option<String>,
    pre: String,
    folder_is_its: bool,
}

impl Place {
    /// The place written on the call's row when it was placed. A row from
    /// before that was written ends at the chat's place, as it did then.
    async fn of(app: &Atelier, id: &str, chat: &Chat) -> Result<Place> {
        type Row = (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let row: Option<Row> = sqlx::query_as(
            "SELECT parent_id, thread_id, pre_manifest_id, chat_leaf_id, chat_manifest_id \
             FROM tool_calls WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(app.db())
        .await?;
        let Some((Some(parent), thread, Some(pre), leaf, manifest)) = row else {
            return Ok(Place {
                parent: chat.active_leaf_message_id.clone(),
                thread: None,
                pre: chat.active_manifest_id.clone(),
                folder_is_its: true,
            });
        };
        // Whatever took the chat lock since (a new message, a checkout, a
        // thread's next call) moved the chat: what the folder holds now is
        // not the call's. A main-line call's own sub-agents move only the
        // manifest, and their work is the call's.
        let folder_is_its = leaf.as_deref() == Some(chat.active_leaf_message_id.as_str())
            && (thread.is_none() || manifest.as_deref() == Some(chat.active_manifest_id.as_str()));
        Ok(Place {
            parent,
            thread,
            pre,
            folder_is_its,
        })
    }
}

/// Ends the dead call `id` as `interrupted` with its `tool` node, under
/// the parent it was placed at (in its thread, if any). While the chat
/// still stands where it stood then, the node's state is the folder as the
/// call left it, recorded as the call's own (source `tool_run`), and the
/// chat moves as a finished call's end moves it; once the chat moved on,
/// the node keeps the pre-manifest, the chat stays, and its words say what
/// it changed is not known. Its error tells the model the call was cut
/// off. The caller holds the chat lock. Whether the call was still
/// unfinished.
async fn end_with_node(app: &Atelier, id: &str, chat_id: &str, why: &str) -> Result<bool> {
    let chat = app.chats().get(chat_id).await?;
    let place = Place::of(app, id, &chat).await?;
    // What the folder holds beyond the call's pre-manifest, while it is the call's.
    let scan = match place.folder_is_its {
        true => {
            let observer = Observer::default();
            let scanned = app
                .scan_against(chat_id, &chat.active_leaf_message_id, &place.pre, &observer)
                .await?;
            let delta = app.scan_delta(&scanned).await?;
            Some((scanned, delta))
        }
        false => None,
    };
    let changed: Option<Vec<String>> = scan
        .as_ref()
        .map(|(_, d)| d.changes.iter().map(|(path, _)| path.clone()).collect());
    let error = interrupted_words(why, changed.as_deref());
    let message_id = ids::new_id();
    let mut tx = db::begin_write(app.db()).await?;
    let post = match &scan {
        Some((s, d)) => app.record_scan(&mut tx, s, d, ManifestSource::ToolRun, id).await?,
        None => place.pre.clone(),
    };
    let details = plan::ErrorDetails {
        changed: changed.unwrap_or_default(),
        ..Default::default()
    };
    let mut render_plan = plan::error_plan_with(ErrorKind::Interrupted.as_str(), &error, &details, Some(&post));
    if let Some((s, _)) = &scan {
        render_plan.warnings.extend(s.warnings.iter().cloned());
    }
    insert_message(
        &mut tx,
        NewMessage {
            id: message_id.clone(),
            chat_id,
            parent_id: Some(&place.parent),
            role: Role::Tool,
            content: &[ContentPart::ToolCall {
                tool_call_id: id.to_owned(),
            }],
            manifest_id: &post,
            meta: None,
            thread_id: place.thread.as_deref(),
        },
    )
    .await?;
    let ended = sqlx::query(
        "UPDATE tool_calls SET message_id = ?, status = ?, error_kind = ?, error = ?, render_plan = ?, \
         finished_at = ?, pre_manifest_id = ?, post_manifest_id = ?, \
         parent_id = NULL, thread_id = NULL, chat_leaf_id = NULL, chat_manifest_id = NULL \
         WHERE id = ? AND status IN ('pending', 'awaiting_approval', 'running')",
    )
    .bind(&message_id)
    .bind(CallStatus::Interrupted.as_str())
    .bind(ErrorKind::Interrupted.as_str())
    .bind(&error)
    .bind(serde_json::to_string(&render_plan).map_err(|e| crate::Error::Internal(e.to_string()))?)
    .bind(ids::now())
    .bind(&place.pre)
    .bind(&post)
    .bind(id)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        > 0;
    if !ended {
        // Finished meanwhile: the transaction (node, manifest) goes.
        return Ok(false);
    }
    // As a finished call's end moves the chat (`finish_call`): a thread's
    // call moves only the folder's state, a main-line call the chat to it.
    match (&scan, &place.thread) {
        (None, _) => {}
        (Some(_), Some(_)) => {
            sqlx::query("UPDATE chats SET active_manifest_id = ?, updated_at = ? WHERE id = ?")
                .bind(&post)
                .bind(ids::now())
                .bind(chat_id)
                .execute(&mut *tx)
                .await?;
        }
        (Some(_), None) => set_active(&mut tx, chat_id, &message_id, &post).await?,
    }
    tx.commit().await?;
    if let Some((s, _)) = scan {
        let mut current = s.current;
        current.manifest_id = post;
        app.save_cache(&current);
    }
    tracing::warn!(call = %id, chat = %chat_id, "ended an unfinished tool call as interrupted, with its node");
    Ok(true)
}

/// What an interrupted call's result says (the model reads it as its
/// result): that it was cut off and why, that it may have done part of its
/// work, and the workspace files it changed, which are kept — or that they
/// are not known (`None`: the chat moved on before its end was written).
fn interrupted_words(why: &str, changed: Option<&[String]>) -> String {
    const LISTED: usize = 20;
    let files = match changed {
        None => {
            "what it changed in the workspace is not known (the chat moved on before its end was recorded)".to_owned()
        }
        Some([]) => "no workspace file changed".to_owned(),
        Some(changed) => {
            let mut list = changed.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", ");
            if changed.len() > LISTED {
                list.push_str(&format!(" and {} more", changed.len() - LISTED));
            }
            format!("the workspace files it changed are kept: {list}")
        }
    };
    format!("the call was interrupted ({why}); it may have changed files or done part of its work; {files}")
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::model::Role;
    use crate::{Atelier, DataDir, Error};

    /// Makes every connection of the app's pool refuse writes (`on`) or
    /// take them again: SQLite itself refuses, as it does on a full disk.
    async fn refuse_writes(app: &Atelier, on: bool) {
        let mut held = Vec::new();
        for _ in 0..4 {
            let mut conn = app.db().acquire().await.expect("connection");
            sqlx::query(if on {
                "PRAGMA query_only = ON"
            } else {
                "PRAGMA query_only = OFF"
            })
            .execute(&mut *conn)
            .await
            .expect("pragma");
            held.push(conn);
        }
    }

    /// The call once the live retry ended it (waiting at most 15 s).
    async fn ended(app: &Atelier, call: &str) -> crate::tools::ToolCallRecord {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let record = app.tools().call(call).await.expect("call");
            if record.status.as_str() != "running" || Instant::now() > deadline {
                assert_eq!(record.status.as_str(), "interrupted", "{record:?}");
                return record;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A live app whose failed call could not write its end (the disk was
    /// full) ends it once writes go through again — with its node, saying
    /// why — instead of showing it running until a restart.
    #[tokio::test]
    async fn a_call_whose_end_could_not_be_written_is_ended_once_writes_go_through() {
        let dir = tempfile::tempdir().expect("tmp");
        let app = Atelier::open(DataDir::new(dir.path())).await.expect("open");
        let chat = app.chats().create(Some("t")).await.expect("chat").id;
        let call = crate::ids::new_id();
        sqlx::query(
            "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at) \
             VALUES (?, ?, 'write_file', '{}', 'running', ?)",
        )
        .bind(&call)
        .bind(&chat)
        .bind(crate::ids::now())
        .execute(app.db())
        .await
        .expect("a running call");
        std::fs::write(app.workspace_dir(&chat).join("half.txt"), "written before").expect("write");
        let full = Error::DiskFull {
            dir: dir.path().to_owned(),
        };
        refuse_writes(&app, true).await;
        let _ = app.end_failed(&call, &full).await;
        let status: String = sqlx::query_scalar("SELECT status FROM tool_calls WHERE id = ?")
            .bind(&call)
            .fetch_one(app.db())
            .await
            .expect("status");
        assert_eq!(status, "running", "the end could not be written");
        refuse_writes(&app, false).await;

        let record = ended(&app, &call).await;
        let error = record.error.unwrap_or_default();
        assert!(
            error.contains("Atelier could not record how it ended: the disk holding") && error.contains("half.txt"),
            "{error}"
        );
        let node = app
            .chats()
            .message(&chat, record.message_id.as_deref().expect("its node"))
            .await
            .expect("node");
        assert_eq!(node.role, Role::Tool);
    }

    /// A call whose end could not be written, then the person sent a new
    /// message and edited a file by hand: when writes go through, the call
    /// is ended under the message it ran at, the chat stays at the new
    /// message, and neither the folder's state nor the person's edit is
    /// taken for the call's change.
    #[tokio::test]
    async fn a_call_ended_after_the_chat_moved_on_stays_where_it_ran_and_claims_no_change() {
        let dir = tempfile::tempdir().expect("tmp");
        let app = Atelier::open(DataDir::new(dir.path())).await.expect("open");
        let chat = app.chats().create(Some("t")).await.expect("chat").id;
        let ws = app.workspace_dir(&chat);
        std::fs::write(ws.join("a.txt"), "one").expect("write");
        let observer = crate::store::Observer::default();
        let snap = app.workspace().snapshot(&chat, &observer).await.expect("snapshot");
        let (at, state) = (snap.message_id.expect("a node"), snap.manifest_id);
        let call = crate::ids::new_id();
        sqlx::query(
            "INSERT INTO tool_calls (id, chat_id, tool_id, args, status, started_at, parent_id, \
             pre_manifest_id, chat_leaf_id, chat_manifest_id) \
             SELECT ?, id, 'write_file', '{}', 'running', ?, ?, ?, active_leaf_message_id, active_manifest_id \
             FROM chats WHERE id = ?",
        )
        .bind(&call)
        .bind(crate::ids::now())
        .bind(&at)
        .bind(&state)
        .bind(&chat)
        .execute(app.db())
        .await
        .expect("a placed, running call");
        std::fs::write(ws.join("half.txt"), "written by the call").expect("write");
        // The chat moves on: a new message, then a hand edit not yet recorded.
        let text = vec![crate::model::ContentPart::Text { text: "next".into() }];
        let next = app
            .workspace()
            .append_message(&chat, None, Role::User, text)
            .await
            .expect("a new message")
            .id;
        std::fs::write(ws.join("notes.txt"), "the person's").expect("write");
        refuse_writes(&app, true).await;
        let full = Error::DiskFull {
            dir: dir.path().to_owned(),
        };
        let _ = app.end_failed(&call, &full).await;
        refuse_writes(&app, false).await;

        let record = ended(&app, &call).await;
        let node = app
            .chats()
            .message(&chat, record.message_id.as_deref().expect("its node"))
            .await
            .expect("node");
        assert_eq!(
            node.parent_id.as_deref(),
            Some(at.as_str()),
            "under the message it ran at"
        );
        assert_eq!(node.manifest_id, state, "no change is claimed for it");
        let chat_now = app.chats().get(&chat).await.expect("chat");
        assert_eq!(
            chat_now.active_leaf_message_id, next,
            "the chat stays at the new message"
        );
        let error = record.error.unwrap_or_default();
        assert!(
            error.contains("what it changed in the workspace is not known") && !error.contains("notes.txt"),
            "{error}"
        );
    }
}
