//! Cross-process file locks.
//!
//! The CLI and the desktop app may work on one data dir at the same time.
//! Operations that move a chat's workspace hold an exclusive `flock` on
//! `chats/<id>/lock`; as flock locks belong to the open file description,
//! two opens in one process exclude each other too, so the lock also
//! serializes tasks inside one process. Acquiring blocks: call it from
//! blocking code. The lock is released when the guard drops (or the
//! process dies).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

use crate::{Error, Result};

/// An exclusive lock held on a file until dropped.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
    path: PathBuf,
}

impl FileLock {
    /// Opens (creating) `path` and waits for an exclusive lock on it.
    pub fn acquire(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
        }
        let file = open(path).map_err(Error::io("open lock file", path))?;
        flock(&file, FlockOperation::LockExclusive).map_err(|e| Error::io("lock", path)(e.into()))?;
        Ok(Self {
            _file: file,
            path: path.to_path_buf(),
        })
    }

    /// Like [`FileLock::acquire`], but only in a folder that exists, and
    /// `None` when the folder is missing or the file was removed (unlinked)
    /// while this waited for it: whoever removed it meant its folder to be
    /// gone, and holding a lock on a removed file excludes no one.
    pub fn acquire_present(path: &Path) -> Result<Option<Self>> {
        let file = match open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("open lock file", path)(e)),
        };
        flock(&file, FlockOperation::LockExclusive).map_err(|e| Error::io("lock", path)(e.into()))?;
        let stat = rustix::fs::fstat(&file).map_err(|e| Error::io("stat", path)(e.into()))?;
        if stat.st_nlink == 0 {
            return Ok(None);
        }
        Ok(Some(Self {
            _file: file,
            path: path.to_path_buf(),
        }))
    }

    /// Like [`FileLock::acquire`] for a lock inside `root` (a chat's
    /// folder): the folders between are created, `root` itself never, so a
    /// chat deleted meanwhile is not brought back. `None` when `root` is
    /// gone, before or while this waited.
    pub fn acquire_within(root: &Path, path: &Path) -> Result<Option<Self>> {
        let rel = path
            .parent()
            .and_then(|dir| dir.strip_prefix(root).ok())
            .ok_or_else(|| Error::Internal(format!("lock {} is not inside {}", path.display(), root.display())))?;
        let mut at = root.to_path_buf();
        if !at.is_dir() {
            return Ok(None);
        }
        for part in rel.components() {
            at.push(part);
            match std::fs::create_dir(&at) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Error::io("create", &at)(e)),
            }
        }
        Self::acquire_present(path)
    }

    /// Takes the lock only if it is free right now.
    pub fn try_acquire(path: &Path) -> Result<Option<Self>> {
        let file = open(path).map_err(Error::io("open lock file", path))?;
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(Self {
                _file: file,
                path: path.to_path_buf(),
            })),
            Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
            Err(e) => Err(Error::io("lock", path)(e.into())),
        }
    }

    /// Probes a lock file someone else made, never creating it: whether a
    /// live holder has it, it is gone (missing, or removed while this
    /// waited: its owner finished), or it is free and now ours.
    pub fn try_take_present(path: &Path) -> Result<Probe> {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Probe::Gone),
            Err(e) => return Err(Error::io("open lock file", path)(e)),
        };
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(Probe::Busy),
            Err(e) => return Err(Error::io("lock", path)(e.into())),
        }
        let stat = rustix::fs::fstat(&file).map_err(|e| Error::io("stat", path)(e.into()))?;
        if stat.st_nlink == 0 {
            return Ok(Probe::Gone);
        }
        Ok(Probe::Taken(Self {
            _file: file,
            path: path.to_path_buf(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What [`FileLock::try_take_present`] found.
#[derive(Debug)]
pub enum Probe {
    /// A live holder has it.
    Busy,
    /// No such file (any more).
    Gone,
    /// It was free: ours until dropped.
    Taken(FileLock),
}

/// Opens (creating, never truncating) a lock file.
fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_within_a_deleted_chat_does_not_bring_its_folder_back() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let chat = dir.path().join("chats/c1");
        let lock = chat.join("turns/t1");
        assert!(FileLock::acquire_within(&chat, &lock)?.is_none());
        assert!(!chat.exists(), "the chat's folder stays gone");
        std::fs::create_dir_all(&chat)?;
        let held = FileLock::acquire_within(&chat, &lock)?.expect("the chat exists");
        assert!(lock.is_file(), "the folders between are made");
        assert!(FileLock::try_acquire(&lock)?.is_none(), "and the lock is held");
        drop(held);
        Ok(())
    }

    #[test]
    fn probing_a_lock_never_creates_it_and_tells_a_live_holder() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("waiting");
        assert!(matches!(FileLock::try_take_present(&p)?, Probe::Gone));
        assert!(!p.exists(), "a probe makes no file");
        let held = FileLock::acquire(&p)?;
        assert!(matches!(FileLock::try_take_present(&p)?, Probe::Busy));
        drop(held);
        let Probe::Taken(taken) = FileLock::try_take_present(&p)? else {
            panic!("a free lock is taken");
        };
        assert!(FileLock::try_acquire(&p)?.is_none());
        drop(taken);
        Ok(())
    }

    #[test]
    fn a_second_open_in_the_same_process_is_excluded() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("lock");
        let held = FileLock::acquire(&p)?;
        assert!(FileLock::try_acquire(&p)?.is_none());
        drop(held);
        assert!(FileLock::try_acquire(&p)?.is_some());
        Ok(())
    }

    #[test]
    fn a_lock_in_a_removed_folder_is_not_taken() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let chat = dir.path().join("chat");
        let p = chat.join("lock");
        assert!(FileLock::acquire_present(&p)?.is_none(), "no folder");
        assert!(!chat.exists(), "and none created");

        std::fs::create_dir(&chat)?;
        let held = FileLock::acquire_present(&p)?.expect("present");
        let waiter = {
            let p = p.clone();
            std::thread::spawn(move || FileLock::acquire_present(&p).map(|l| l.is_some()))
        };
        // The holder removes the folder (as deleting a chat does), then lets go.
        std::thread::sleep(std::time::Duration::from_millis(100));
        std::fs::remove_dir_all(&chat)?;
        drop(held);
        let took = waiter.join().map_err(|_| anyhow::anyhow!("waiter panicked"))??;
        assert!(!took, "the waiter sees the lock file was removed");
        assert!(!chat.exists());
        Ok(())
    }
}
