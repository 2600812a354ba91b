//! The staging folders an export (`chats/<id>/export-<id>/`) or an upload
//! (`chats/<id>/upload-<id>/`) fills before anything reaches its
//! destination, and the removal of those a crash left.
//!
//! Both are filled outside the chat's lock (a big copy must not hold up
//! the chat), so the chat's lock cannot tell a live one from a dead one.
//! Each has its own lock instead, `<name>.lock` beside it, taken before the
//! folder is made and held for the folder's whole life; a folder whose
//! lock can be taken belongs to no live process. [`sweep`] (start-up and
//! `gc`) removes those.

use std::path::{Path, PathBuf};

use crate::lock::FileLock;
use crate::{Result, ids};

/// What the staging folders' names start with.
const KINDS: [&str; 2] = ["export-", "upload-"];

/// A staging folder in use: removed, with its lock file, when dropped.
#[derive(Debug)]
pub(crate) struct Staged {
    dir: PathBuf,
    lock: Option<FileLock>,
}

impl Staged {
    /// Takes a new staging folder's lock in `chat_dir`; the folder itself
    /// is made by whoever fills it. `kind` is `export` or `upload`.
    pub(crate) fn begin(chat_dir: &Path, kind: &str) -> Result<Self> {
        let name = format!("{kind}-{}", ids::new_id());
        let lock = FileLock::acquire(&lock_of(&chat_dir.join(&name)))?;
        Ok(Self {
            dir: chat_dir.join(name),
            lock: Some(lock),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// The folder's name in the chat's folder.
    pub(crate) fn name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

impl Drop for Staged {
    /// The folder, then the lock file, then the lock: a sweep never sees
    /// the folder without its lock held.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(lock) = self.lock.take() {
            let _ = std::fs::remove_file(lock.path());
            drop(lock);
        }
    }
}

fn lock_of(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Removes a dead process's staging folder and its lock file.
pub(crate) fn remove(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_file(lock_of(dir));
}

/// Removes the staging folders in `chat_dir` that no live process holds
/// and no unfinished move needs; how many it removed.
pub(crate) fn sweep(chat_dir: &Path) -> Result<u64> {
    let Ok(entries) = std::fs::read_dir(chat_dir) else {
        return Ok(0);
    };
    // An upload a crash cut short while it was put in place is finished
    // from its staging folder by the next holder of the chat's lock.
    let marked = super::moves::marked_upload(chat_dir);
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !KINDS.iter().any(|k| name.starts_with(k)) || name.ends_with(".lock") || marked.as_ref() == Some(&name) {
            continue;
        }
        let dir = e.path();
        // Its lock is taken before the folder is made: a folder seen here
        // whose lock is free has no live owner.
        let Some(lock) = FileLock::try_acquire(&lock_of(&dir))? else {
            continue;
        };
        if std::fs::remove_dir_all(&dir).is_ok() {
            removed += 1;
            tracing::info!(path = %dir.display(), "removed a staging folder a crash left");
        }
        let _ = std::fs::remove_file(lock.path());
        drop(lock);
    }
    Ok(removed)
}
