//! Cross-process file locks, and waits for them that say what they wait for.
//!
//! The CLI and the desktop app may work on one data dir at the same time.
//! Operations that move a chat's workspace hold an exclusive `flock` on
//! `chats/<id>/lock`; as flock locks belong to the open file description,
//! two opens in one process exclude each other too, so the lock also
//! serializes tasks inside one process. The lock is released when the guard
//! drops (or the process dies), never by a timeout.
//!
//! A holder writes who it is into the lock file (`holder`), so a wait can
//! tell a person what it waits for (`wait`): the front door says who hears
//! of waits, what stops them and what its own locks are held for
//! (`context`). The blocking constructors wait on the calling thread (call
//! them from blocking code); [`FileLock::acquire_async`] waits on the
//! runtime and stops when dropped.

mod context;
mod holder;
mod wait;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

pub use context::LockContext;
pub use holder::Holder;
pub use wait::{GRACE, Waiting};

use crate::{Error, Result};

/// An exclusive lock held on a file until dropped.
#[derive(Debug)]
pub struct FileLock {
    /// Always `Some` until dropped.
    file: Option<File>,
    path: PathBuf,
}

/// Where [`FileLock::acquire_async`] may make its lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Made, with the folders above it, if missing.
    Create,
    /// Only a file that exists: `None` when it is missing or was removed
    /// while this waited (see [`FileLock::acquire_present`]).
    Present,
}

impl FileLock {
    /// The lock, held: `file` is locked; its holder's line is written now.
    fn held(file: File, path: &Path, context: &LockContext) -> Self {
        Holder::this_process(context).write_into(&file);
        Self {
            file: Some(file),
            path: path.to_path_buf(),
        }
    }

    /// Opens (creating) `path` and waits for an exclusive lock on it.
    pub fn acquire(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
        }
        let file = open(path).map_err(Error::io("open lock file", path))?;
        let context = LockContext::current();
        wait::blocking(&file, path, &describe(path), &context)?;
        Ok(Self::held(file, path, &context))
    }

    /// Like [`FileLock::acquire`], but only in a folder that exists, and
    /// `None` when the folder is missing or the file was removed (unlinked)
    /// while this waited for it: whoever removed it meant its folder to be
    /// gone, and holding a lock on a removed file excludes no one.
    pub fn acquire_present(path: &Path) -> Result<Option<Self>> {
        let Some(file) = open_present(path)? else {
            return Ok(None);
        };
        let context = LockContext::current();
        wait::blocking(&file, path, &describe(path), &context)?;
        if is_removed(&file, path)? {
            return Ok(None);
        }
        Ok(Some(Self::held(file, path, &context)))
    }

    /// The lock of a name just made up (a fresh id's) in a folder that
    /// exists, for a folder or file to be made beside it. A start or `gc`
    /// removes a lock file that is free and guards nothing; one that did
    /// so between this making the file and locking it is beaten by taking
    /// it again. `None` when `path`'s folder is gone (its owner was
    /// deleted: it is not made again here).
    pub fn acquire_fresh(path: &Path) -> Result<Option<Self>> {
        for _ in 0..3 {
            if let Some(lock) = Self::acquire_present(path)? {
                return Ok(Some(lock));
            }
            if path.parent().is_some_and(|dir| !dir.is_dir()) {
                return Ok(None);
            }
        }
        Err(Error::io("lock", path)(std::io::Error::other(
            "another process removed it each time it was made",
        )))
    }

    /// Waits for the lock at `path` without holding a thread: the wait ends
    /// when this future is dropped (or the context's token is cancelled).
    /// `what` names what is waited for, in the words of
    /// [`Waiting::what`]; it is awaited only if the lock is busy. `None`
    /// only for [`Place::Present`] (see there).
    pub async fn acquire_async(path: &Path, place: Place, what: impl Future<Output = String>) -> Result<Option<Self>> {
        let context = LockContext::current();
        let first = {
            let path = path.to_path_buf();
            crate::blocking(move || {
                let file = match place {
                    Place::Create => {
                        if let Some(dir) = path.parent() {
                            std::fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
                        }
                        open(&path).map_err(Error::io("open lock file", &path))?
                    }
                    Place::Present => match open_present(&path)? {
                        Some(file) => file,
                        None => return Ok(None),
                    },
                };
                let taken = wait::try_lock(&file, &path)?;
                Ok(Some((file, taken)))
            })
            .await?
        };
        let Some((file, taken)) = first else {
            return Ok(None);
        };
        if !taken {
            let what = what.await;
            wait::polled(&file, path, &what, &context).await?;
        }
        let path = path.to_path_buf();
        crate::blocking(move || {
            if place == Place::Present && is_removed(&file, &path)? {
                return Ok(None);
            }
            Ok(Some(Self::held(file, &path, &context)))
        })
        .await
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
        if !wait::try_lock(&file, path)? {
            return Ok(None);
        }
        Ok(Some(Self::held(file, path, &LockContext::current())))
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
        if !wait::try_lock(&file, path)? {
            return Ok(Probe::Busy);
        }
        if is_removed(&file, path)? {
            return Ok(Probe::Gone);
        }
        Ok(Probe::Taken(Self::held(file, path, &LockContext::current())))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            holder::clear(&file);
            // Closing the file releases the lock; then this process's
            // waiters try again at once.
            drop(file);
            wait::released();
        }
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

/// Opens a lock file that exists; `None` when it (or its folder) does not.
fn open_present(path: &Path) -> Result<Option<File>> {
    match open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("open lock file", path)(e)),
    }
}

/// Whether the locked file was unlinked (its owner removed it meanwhile).
fn is_removed(file: &File, path: &Path) -> Result<bool> {
    let stat = rustix::fs::fstat(file).map_err(|e| Error::io("stat", path)(e.into()))?;
    Ok(stat.st_nlink == 0)
}

/// `path` with `suffix` added to its name: `beside(dir, ".lock")` is the
/// lock file of a folder, next to it (`export-1` → `export-1.lock`).
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// What a lock file guards, in a person's words, from where it lies in
/// the data dir's layout (see [`crate::data_dir`]).
pub fn describe(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let parent = path.parent();
    let grandparent = parent.and_then(Path::parent);
    if name == "lock"
        && grandparent.and_then(Path::file_name).is_some_and(|n| n == "chats")
        && let Some(chat) = parent.and_then(Path::file_name)
    {
        return format!("chat {}", chat.to_string_lossy());
    }
    if let Some(id) = name.strip_prefix(".import-").and_then(|n| n.strip_suffix(".lock")) {
        return format!("the import of toolset {id}");
    }
    if name.ends_with(".migrate-lock") {
        return format!(
            "the database upgrade in {}",
            parent.map(Path::display).map(|d| d.to_string()).unwrap_or_default()
        );
    }
    format!("the lock {}", path.display())
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
