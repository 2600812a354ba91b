//! A chat's workspace lock: the one door every operation that moves a
//! chat's folder goes through ([`lock_chat`]), refusing in a read-only data
//! dir and telling a wait that lasts who holds the chat.

use crate::lock::FileLock;
use crate::{Atelier, Error, Result};

/// Takes the chat's workspace lock (waiting for other processes); the
/// chat must still exist.
///
/// A chat can be deleted while someone waits for its lock, or between a
/// caller's read and the lock (a call waiting for its confirmation holds no
/// lock). Deleting removes the chat's folder, lock file included, so a lock
/// file that is gone (or unlinked while waited for) sends this to the
/// database: a deleted chat is reported gone and its folder is not
/// re-created; a chat whose folder is missing gets it back. The common
/// case costs no query.
///
/// A wait that lasts is told to the [`crate::lock::LockContext`]'s
/// `on_wait`, naming the chat by its title and the holder by its own words;
/// dropping the future (or the context's token) ends it.
pub(crate) async fn lock_chat(app: &Atelier, chat_id: &str) -> Result<FileLock> {
    use crate::lock::Place;
    if app.data_dir().is_read_only() {
        // Everything done under the lock changes the chat.
        return Err(Error::read_only(app.data_dir().root().to_owned()));
    }
    let path = app.data_dir().chat_dir(chat_id).join("lock");
    let what = || async move {
        let title: Option<String> = sqlx::query_scalar("SELECT title FROM chats WHERE id = ?")
            .bind(chat_id)
            .fetch_optional(app.db())
            .await
            .ok()
            .flatten();
        match title {
            Some(title) if !title.is_empty() => format!("chat {title:?} ({chat_id})"),
            _ => format!("chat {chat_id}"),
        }
    };
    if let Some(lock) = FileLock::acquire_async(&path, Place::Present, what()).await? {
        return Ok(lock);
    }
    let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM chats WHERE id = ?")
        .bind(chat_id)
        .fetch_optional(app.db())
        .await?;
    if exists.is_none() {
        return Err(Error::ChatNotFound(chat_id.to_owned()));
    }
    FileLock::acquire_async(&path, Place::Create, what())
        .await?
        .ok_or_else(|| Error::Internal(format!("the lock {} was not made", path.display())))
}
