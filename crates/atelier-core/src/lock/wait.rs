//! Waiting for a held lock: polled, told, and stoppable.
//!
//! A blocking `flock` cannot be interrupted: a thread left in one waits
//! for as long as the holder likes, and takes the lock for no one once it
//! comes. So a wait tries the lock without blocking, on the file it opened,
//! again and again — at once when a lock of this process is released,
//! else after a pause that grows to [`MAX_PAUSE`] (another process's
//! release is seen that late at worst). After [`GRACE`] the wait is told to
//! the context's `on_wait` with the holder's own description, and told
//! again when the holder changes. An async wait stops when dropped; both
//! stop when the context's token is cancelled.

use std::fs::File;
use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, flock};

use super::context::LockContext;
use super::holder::Holder;
use crate::{Error, Result};

/// How long a wait stays quiet: most locks are held for a moment.
pub const GRACE: Duration = Duration::from_millis(750);

/// The first pause between two tries.
const FIRST_PAUSE: Duration = Duration::from_millis(5);

/// The longest pause between two tries.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// A wait for a lock someone holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Waiting {
    /// What is waited for: "chat \"Notes\" (0192…)", "the import of toolset csv".
    pub what: String,
    /// Who holds it, when it said so and is alive.
    pub holder: Option<Holder>,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.holder {
            Some(holder) => write!(f, "waiting for {}: {holder}", self.what),
            None => write!(f, "waiting for {}: another task or process holds it", self.what),
        }
    }
}

/// Releases of this process's locks, counted, for blocking waiters.
static RELEASES: (Mutex<u64>, Condvar) = (Mutex::new(0), Condvar::new());

/// Releases of this process's locks, for async waiters.
static RELEASED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Wakes this process's waiters: a lock was released.
pub(super) fn released() {
    *RELEASES.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
    RELEASES.1.notify_all();
    RELEASED.notify_waiters();
}

/// Takes the exclusive lock on `file` if it is free: whether it did.
pub(super) fn try_lock(file: &File, path: &Path) -> Result<bool> {
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(Error::io("lock", path)(e.into())),
    }
}

/// What a wait has told so far.
struct Told {
    start: Instant,
    last: Option<Option<Holder>>,
}

impl Told {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            last: None,
        }
    }

    /// Tells the wait once the grace has passed, and whenever its holder
    /// changes.
    fn tell(&mut self, context: &LockContext, what: &str, path: &Path) {
        if self.start.elapsed() < GRACE {
            return;
        }
        let holder = Holder::read(path);
        if self.last.as_ref() != Some(&holder) {
            context.tell(&Waiting {
                what: what.to_owned(),
                holder: holder.clone(),
            });
            self.last = Some(holder);
        }
    }
}

/// Waits, blocking this thread, until `file` (at `path`) is locked.
pub(super) fn blocking(file: &File, path: &Path, what: &str, context: &LockContext) -> Result<()> {
    let mut told = Told::new();
    let mut pause = FIRST_PAUSE;
    loop {
        let seen = *RELEASES.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if try_lock(file, path)? {
            return Ok(());
        }
        if context.is_cancelled() {
            return Err(Error::Cancelled);
        }
        told.tell(context, what, path);
        let count = RELEASES.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = RELEASES
            .1
            .wait_timeout_while(count, pause, |count| *count == seen)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// Waits until `file` (at `path`) is locked; dropping the future ends the
/// wait (the file is closed with it: nothing is left waiting).
pub(super) async fn polled(file: &File, path: &Path, what: &str, context: &LockContext) -> Result<()> {
    let mut told = Told::new();
    let mut pause = FIRST_PAUSE;
    let cancel = context.cancel.clone().unwrap_or_default();
    loop {
        // Registered before the try, so a release in between is not missed.
        let released = RELEASED.notified();
        tokio::pin!(released);
        released.as_mut().enable();
        // A non-blocking flock returns at once: no need to leave the runtime.
        if try_lock(file, path)? {
            return Ok(());
        }
        if context.is_cancelled() {
            return Err(Error::Cancelled);
        }
        if told.start.elapsed() >= GRACE {
            // The holder's line is a small read, off the runtime all the same.
            let (p, c, w) = (path.to_owned(), context.clone(), what.to_owned());
            told = tokio::task::spawn_blocking(move || {
                told.tell(&c, &w, &p);
                told
            })
            .await
            .map_err(|e| Error::Internal(format!("a lock wait's task failed: {e}")))?;
        }
        tokio::select! {
            () = released => {}
            () = tokio::time::sleep(pause) => {}
            () = cancel.cancelled() => return Err(Error::Cancelled),
        }
        pause = (pause * 2).min(MAX_PAUSE);
    }
}
