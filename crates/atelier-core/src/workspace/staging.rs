//! The staging folders an export (`chats/<id>/export-<id>/`) or an upload
//! (`chats/<id>/upload-<id>/`) fills before anything reaches its
//! destination, and the removal of those a crash left.
//!
//! Both are filled outside the chat's lock (a big copy must not hold up
//! the chat), so the chat's lock cannot tell a live one from a dead one.
//! Each has its own lock instead, `<name>.lock` beside it, taken before the
//! folder is made and held for the folder's whole life; a folder whose
//! lock can be taken belongs to no live process. [`sweep`] (start-up and
//! `gc`) removes those, and a free lock file with no folder (a crash
//! between the lock and the folder); a new lock is taken so that such a
//! removal in between makes it taken again, never held on a removed file.

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
        let dir = chat_dir.join(format!("{kind}-{}", ids::new_id()));
        // A sweep may remove the lock file between its making and our lock
        // (free, no folder yet): `acquire_fresh` takes it again.
        match FileLock::acquire_fresh(&lock_of(&dir))? {
            Some(lock) => Ok(Self { dir, lock: Some(lock) }),
            // The chat was deleted meanwhile: said as the chat being gone,
            // not as a lock file that could not be made.
            None => {
                let id = chat_dir.file_name().map(|n| n.to_string_lossy().into_owned());
                Err(crate::Error::ChatNotFound(id.unwrap_or_default()))
            }
        }
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
    crate::lock::beside(dir, ".lock")
}

/// Removes a dead process's staging folder and its lock file.
pub(crate) fn remove(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_file(lock_of(dir));
}

/// Removes the staging folders in `chat_dir` that no live process holds
/// and no unfinished move needs, and free lock files with no folder; how
/// many folders it removed.
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
        if !KINDS.iter().any(|k| name.starts_with(k)) {
            continue;
        }
        if let Some(folder) = name.strip_suffix(".lock") {
            if marked.as_deref() != Some(folder) {
                sweep_lone_lock(&chat_dir.join(folder), &e.path())?;
            }
            continue;
        }
        if marked.as_ref() == Some(&name) {
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

/// Removes `lock`, the lock file of the staging folder `dir`, when it is
/// free and `dir` does not exist: left by a crash between the lock and the
/// folder. One a live process holds stays (its folder may come next); one
/// whose folder exists is the folder's pass's.
fn sweep_lone_lock(dir: &Path, lock: &Path) -> Result<()> {
    if dir.exists() {
        return Ok(());
    }
    if let crate::lock::Probe::Taken(held) = FileLock::try_take_present(lock)? {
        // Held, no one can make the folder now (its maker takes the lock
        // first, and takes it again if this removes the file meanwhile).
        if !dir.exists() {
            let _ = std::fs::remove_file(held.path());
            tracing::info!(path = %lock.display(), "removed a staging lock file a crash left");
        }
        drop(held);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Staged;

    /// An export or upload into a chat deleted meanwhile says the chat is
    /// gone (it said a lock file could not be made, naming its path).
    #[test]
    fn a_deleted_chats_staging_says_the_chat_is_gone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let gone = dir.path().join("chats").join("0199-deleted");
        match Staged::begin(&gone, "export") {
            Err(crate::Error::ChatNotFound(id)) => assert_eq!(id, "0199-deleted"),
            other => panic!("not ChatNotFound: {other:?}"),
        }
        assert!(!gone.exists(), "the chat's folder is not made again");
    }
}
