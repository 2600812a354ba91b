//! What a chat delete or a fork a crash cut short left in `chats/`, put
//! right when a data dir is opened, and the fork's staging folder with its
//! lock, which tells a live fork (or delete) from a dead one.

use std::collections::HashSet;

use crate::{Atelier, Error, Result};

/// What a fork's staging folder is named, `.fork-<id of the new chat>`.
const FORK_STAGING: &str = ".fork-";

/// `<dir>.lock`: the lock of a fork's staging folder, beside it.
fn lock_of(dir: &std::path::Path) -> std::path::PathBuf {
    crate::lock::beside(dir, ".lock")
}

/// The folder a fork fills before its commit, `chats/.fork-<id>/`, with its
/// lock `.fork-<id>.lock` held from before the folder is made until this is
/// dropped: a start in another process ([`recover_deleted`]) leaves a
/// folder whose lock is held alone. Dropped, it removes what is still there
/// (the folder unless it was put in place), then the lock file, then the
/// lock. Blocking.
#[derive(Debug)]
pub(crate) struct ForkStaging {
    dir: std::path::PathBuf,
    // Released after `drop` removed the folder and the lock file.
    lock: crate::lock::FileLock,
}

impl ForkStaging {
    pub(crate) fn begin(chats_dir: &std::path::Path, chat_id: &str) -> Result<Self> {
        std::fs::create_dir_all(chats_dir).map_err(Error::io("create", chats_dir))?;
        let dir = chats_dir.join(format!("{FORK_STAGING}{chat_id}"));
        let lock = lock_of(&dir);
        // A start removes a free lock file with no folder (one a crash left
        // after its fork was put in place): if that was ours, between our
        // open and our lock, it is taken again.
        match crate::lock::FileLock::acquire_fresh(&lock)? {
            Some(lock) => Ok(Self { dir, lock }),
            None => Err(Error::io("lock", &lock)(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the chats folder is gone",
            ))),
        }
    }

    pub(crate) fn path(&self) -> &std::path::Path {
        &self.dir
    }
}

impl Drop for ForkStaging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_file(self.lock.path());
    }
}

/// Puts right what a chat delete or a fork killed half-way left: a folder
/// in the trash whose chat still exists comes back; one whose chat is gone
/// is removed. A fork's staging folder no live process holds is put in
/// place if its chat was committed, else removed. Run when a data dir is
/// opened.
pub(crate) async fn recover_deleted(app: &Atelier) -> Result<()> {
    let chats_dir = app.data_dir().chats_dir();
    let Ok(entries) = std::fs::read_dir(&chats_dir) else {
        return Ok(());
    };
    let mut forks = HashSet::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(id) = name.strip_prefix(FORK_STAGING) {
            forks.insert(id.strip_suffix(".lock").unwrap_or(id).to_owned());
        } else if let Some(chat_id) = name.strip_prefix(".trash-") {
            // A delete still under way holds the chat's lock, whose file
            // went to the trash with the folder: its folder is not put back.
            let held = crate::lock::FileLock::try_take_present(&e.path().join("lock"))?;
            if matches!(held, crate::lock::Probe::Busy) {
                continue;
            }
            if put_in_place(app, &e.path(), chat_id).await? {
                tracing::warn!(chat = %chat_id, "a delete of this chat was interrupted before it happened: its folder is back");
            }
        }
    }
    for chat_id in forks {
        let staged = chats_dir.join(format!("{FORK_STAGING}{chat_id}"));
        // Its lock is taken before the folder is made and its lock file
        // removed after it: a folder without one is a dead fork's too.
        let lock = match crate::lock::FileLock::try_take_present(&lock_of(&staged))? {
            crate::lock::Probe::Taken(lock) => lock,
            crate::lock::Probe::Gone if staged.exists() => {
                match crate::lock::FileLock::try_acquire(&lock_of(&staged))? {
                    Some(lock) => lock,
                    None => continue,
                }
            }
            _ => continue,
        };
        if staged.exists() && put_in_place(app, &staged, &chat_id).await? {
            tracing::warn!(chat = %chat_id, "a fork was interrupted after its commit: its folder is in place");
        }
        let _ = std::fs::remove_file(lock.path());
    }
    Ok(())
}

/// Moves `from` to the folder of `chat_id` if that chat exists and has
/// none (true), else removes it.
async fn put_in_place(app: &Atelier, from: &std::path::Path, chat_id: &str) -> Result<bool> {
    let exists: Option<String> = sqlx::query_scalar("SELECT id FROM chats WHERE id = ?")
        .bind(chat_id)
        .fetch_optional(app.db())
        .await?;
    let dir = app.data_dir().chat_dir(chat_id);
    if exists.is_some() && !dir.exists() {
        std::fs::rename(from, &dir).map_err(Error::io("restore", &dir))?;
        return Ok(true);
    }
    let _ = std::fs::remove_dir_all(from);
    Ok(false)
}
