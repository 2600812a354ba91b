//! The fence that proves an edit watcher has caught up with the file
//! system (see [`super::watch`]): one file per watching process in the
//! chat's `fence/` folder, watched by the same watcher as the workspace,
//! renamed `<ours>-<n>` → `<ours>-<n+1>` for each check. The kernel queues
//! one watcher's events in order, so once the watcher reports the new name,
//! every change made before the rename has been reported too.
//!
//! Each file is `flock`ed by its process for as long as it watches; a file
//! nobody holds was left by a process that ended without cleaning up, and
//! the next watcher to start removes it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustix::fs::{FlockOperation, flock};
use tokio::sync::Notify;

/// How long a fence may take to come back before the caller walks the
/// folder instead (it normally takes well under a millisecond; a walk of
/// 10,000 files takes tens). Tests allow more: a loaded CI machine may not
/// run the watcher's thread for a while, and a test must not mistake that
/// for a bug.
pub(super) const FENCE_WAIT: Duration = if cfg!(test) {
    Duration::from_secs(5)
} else {
    Duration::from_millis(100)
};

pub(super) struct Fence {
    /// `chats/<id>/fence`.
    dir: PathBuf,
    /// Names this watcher's file (`<ours>-<n>`): another process's fence in
    /// the same folder proves nothing about this watcher.
    ours: String,
    /// `n` of the file as it is named now, and the file (its lock);
    /// `None` before [`Fence::start`] and after [`Fence::stop`]. Locked only
    /// across a rename.
    current: Mutex<Option<(u64, File)>>,
    /// The highest `n` the watcher reported.
    seen: AtomicU64,
    arrived: Notify,
}

impl Fence {
    /// Creates the folder (to be watched before [`Fence::start`]).
    pub(super) fn new(dir: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(Self {
            dir,
            ours: crate::ids::new_id(),
            current: Mutex::new(None),
            seen: AtomicU64::new(0),
            arrived: Notify::new(),
        })
    }

    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, n: u64) -> PathBuf {
        self.dir.join(format!("{}-{n}", self.ours))
    }

    /// Creates file `n` and locks it (for as long as it stays open).
    fn create_locked(&self, n: u64) -> std::io::Result<File> {
        let file = File::create(self.file(n))?;
        flock(&file, FlockOperation::NonBlockingLockExclusive)?;
        Ok(file)
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<(u64, File)>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Creates and locks this watcher's file (once the folder is watched,
    /// so a failed watch leaves no file), and removes files that no live
    /// process holds.
    pub(super) fn start(&self) -> std::io::Result<()> {
        *self.current() = Some((0, self.create_locked(0)?));
        for entry in std::fs::read_dir(&self.dir)?.flatten() {
            let name = entry.file_name();
            if name.to_str().is_some_and(|n| n.starts_with(&self.ours)) {
                continue;
            }
            let Ok(stale) = File::open(entry.path()) else { continue };
            if flock(&stale, FlockOperation::NonBlockingLockExclusive).is_ok() {
                // (A file another process created a moment ago and has not
                // locked yet may go too; that process's next check fails,
                // makes a new file and walks once.)
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    }

    /// Removes this watcher's file; later checks fail.
    pub(super) fn stop(&self) {
        if let Some((n, _file)) = self.current().take() {
            let _ = std::fs::remove_file(self.file(n));
        }
    }

    /// Called by the watcher for an event in the fence folder.
    pub(super) fn saw(&self, paths: &[PathBuf]) {
        let n = paths
            .iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?;
                name.strip_prefix(&self.ours)?.strip_prefix('-')?.parse::<u64>().ok()
            })
            .max();
        if let Some(n) = n {
            self.seen.fetch_max(n, Ordering::SeqCst);
            self.arrived.notify_waiters();
        }
    }

    /// Whether the watcher has reported every change made before this call
    /// (within [`FENCE_WAIT`]).
    pub(super) async fn pass(&self) -> bool {
        let n = {
            let mut current = self.current();
            let Some((n, file)) = current.as_mut() else {
                return false;
            };
            // One rename in a folder of a file or two, about 10 µs, done
            // here: a trip through the blocking pool costs ten times that,
            // and every call passes two fences.
            if std::fs::rename(self.file(*n), self.file(*n + 1)).is_err() {
                // Gone (removed as stale by a process that started just
                // then, or by hand): start a new one; this check fails.
                if let Ok(new) = self.create_locked(*n + 1) {
                    *file = new;
                    *n += 1;
                }
                return false;
            }
            *n += 1;
            *n
        };
        let deadline = tokio::time::Instant::now() + FENCE_WAIT;
        loop {
            // Created before the check, so a report in between still wakes it.
            let arrived = self.arrived.notified();
            if self.seen.load(Ordering::SeqCst) >= n {
                return true;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return self.seen.load(Ordering::SeqCst) >= n;
            }
        }
    }
}
