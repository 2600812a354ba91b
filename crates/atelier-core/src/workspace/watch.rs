//! Sparing the pre-call walk: a file-system watcher per recently used chat
//! workspace tells the run flow that nothing changed in the folder since
//! its last snapshot, so edits made outside need not be looked for.
//!
//! The walk is what finds edits made outside Atelier before a tool runs (so
//! they become their own `edit` node); with a watcher armed and silent since
//! the last snapshot there are none. Safety comes from counting events: the
//! count is read *before* the post-call walk, and the folder is declared
//! clean only if no event arrived by the time that walk is recorded. Any
//! doubt (an event, a watcher error, no watcher yet, a watch limit) means a
//! walk, never a skipped edit. Only long-lived processes (the app, the
//! benchmarks) gain; a one-shot CLI call always walks.
//!
//! Events reach the count some time after the change (the watcher's thread
//! must run; on a busy machine that can take many milliseconds), so a count
//! read right after an edit may not include it yet. Before the count is
//! trusted it is *fenced*: a file in the chat's `fence/` folder, watched by
//! the same watcher, is renamed to its next number, and the check waits
//! until the watcher reports that name. The kernel queues one watcher's
//! events in order, so by then every change made before the fence has been
//! counted. A fence that does not come back in time means a walk.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use tokio::sync::Notify;

/// At most this many workspaces are watched (inotify watches are a shared,
/// limited resource); the least recently used is dropped.
const MAX_WATCHED: usize = 16;

/// How long a fence may take to come back before the walk is done instead
/// (it normally takes well under a millisecond; a walk of 10,000 files
/// takes tens).
const FENCE_WAIT: Duration = Duration::from_millis(100);

struct Watched {
    _watcher: notify::RecommendedWatcher,
    /// Events (and errors) seen since the watch began.
    events: Arc<AtomicU64>,
    /// `events` when the folder was last known to match its manifest;
    /// `u64::MAX` when never.
    clean_at: AtomicU64,
    fence: Arc<Fence>,
    used: Instant,
}

/// The file that proves the watcher has caught up (see the module docs).
struct Fence {
    /// `chats/<id>/fence`: one file per process that watches the chat.
    dir: PathBuf,
    /// Names this watcher's file (`<ours>-<n>`): another process's fence in
    /// the same folder proves nothing about this watcher.
    ours: String,
    /// `n` of the file as it is named now. Locked only across the rename.
    current: Mutex<u64>,
    /// The highest `n` the watcher reported.
    seen: AtomicU64,
    arrived: Notify,
}

impl Fence {
    /// Creates `dir` and this watcher's file in it.
    fn new(dir: PathBuf) -> std::io::Result<Self> {
        let fence = Self {
            dir,
            ours: crate::ids::new_id(),
            current: Mutex::new(0),
            seen: AtomicU64::new(0),
            arrived: Notify::new(),
        };
        std::fs::create_dir_all(&fence.dir)?;
        std::fs::File::create(fence.file(0))?;
        Ok(fence)
    }

    fn file(&self, n: u64) -> PathBuf {
        self.dir.join(format!("{}-{n}", self.ours))
    }

    /// Called by the watcher for an event in the fence folder.
    fn saw(&self, paths: &[PathBuf]) {
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
    async fn pass(&self) -> bool {
        let n = {
            let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
            // One rename in a folder of a file or two, about 10 µs, done
            // here: a trip through the blocking pool costs ten times that,
            // and every call passes two fences.
            if std::fs::rename(self.file(*current), self.file(*current + 1)).is_err() {
                return false;
            }
            *current += 1;
            *current
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

impl Drop for Watched {
    fn drop(&mut self) {
        // The watch stopped (the chat was evicted or forgotten); its fence
        // goes too. (The watcher's thread, which shares the fence, may
        // outlive this.)
        let fence = &self.fence;
        let n = *fence.current.lock().unwrap_or_else(|p| p.into_inner());
        let _ = std::fs::remove_file(fence.file(n));
    }
}

/// The watchers of one [`crate::Atelier`].
#[derive(Default)]
pub(crate) struct EditWatch {
    chats: Mutex<HashMap<String, Watched>>,
}

impl std::fmt::Debug for EditWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditWatch").finish_non_exhaustive()
    }
}

impl EditWatch {
    fn chats(&self) -> std::sync::MutexGuard<'_, HashMap<String, Watched>> {
        self.chats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the folder surely still matches the last recorded snapshot.
    pub(crate) async fn is_clean(&self, chat_id: &str) -> bool {
        let Some(fence) = self.chats().get(chat_id).and_then(|w| {
            let clean_at = w.clean_at.load(Ordering::SeqCst);
            (clean_at != u64::MAX && w.events.load(Ordering::SeqCst) == clean_at).then(|| w.fence.clone())
        }) else {
            return false;
        };
        if !fence.pass().await {
            return false;
        }
        // Read again: the fence may have let in events that were on their way.
        self.chats().get(chat_id).is_some_and(|w| {
            let clean_at = w.clean_at.load(Ordering::SeqCst);
            clean_at != u64::MAX && w.events.load(Ordering::SeqCst) == clean_at
        })
    }

    /// Starts watching the chat's folder if it is not yet; returns the
    /// event count to hand to [`EditWatch::mark_clean`] after the walk that
    /// follows. `None` when the folder cannot be watched.
    ///
    /// `chat_dir` holds `workspace/` (watched recursively) and `fence/`.
    pub(crate) async fn before_walk(&self, chat_id: &str, chat_dir: &Path) -> Option<u64> {
        let known = self.chats().get_mut(chat_id).map(|w| {
            w.used = Instant::now();
            (w.events.clone(), w.fence.clone())
        });
        if let Some((events, fence)) = known {
            // Fenced, so the events of what the tool just wrote are counted
            // before the walk (not after it, which would cost the next call
            // a needless walk). Unfenced the count is still safe.
            fence.pass().await;
            return Some(events.load(Ordering::SeqCst));
        }
        let fence = match Fence::new(chat_dir.join("fence")) {
            Ok(fence) => Arc::new(fence),
            Err(e) => {
                tracing::debug!(chat = %chat_id, error = %e, "cannot create the fence; every call walks");
                return None;
            }
        };
        let events = Arc::new(AtomicU64::new(0));
        let (seen, fenced) = (events.clone(), fence.clone());
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
            Ok(e) if e.paths.iter().any(|p| p.starts_with(&fenced.dir)) => fenced.saw(&e.paths),
            // Reads (our own walks open every folder) change nothing.
            Ok(e) if matches!(e.kind, notify::EventKind::Access(_)) => {}
            _ => {
                #[cfg(test)]
                tests::slow_delivery();
                seen.fetch_add(1, Ordering::SeqCst);
            }
        })
        .ok()?;
        let workspace = chat_dir.join("workspace");
        for (folder, mode) in [
            (&workspace, RecursiveMode::Recursive),
            (&fence.dir, RecursiveMode::NonRecursive),
        ] {
            if let Err(e) = watcher.watch(folder, mode) {
                tracing::debug!(chat = %chat_id, error = %e, "cannot watch the workspace; every call walks it");
                return None;
            }
        }
        let mut chats = self.chats();
        if chats.len() >= MAX_WATCHED
            && let Some(oldest) = chats.iter().min_by_key(|(_, w)| w.used).map(|(k, _)| k.clone())
        {
            chats.remove(&oldest);
        }
        chats.insert(
            chat_id.to_owned(),
            Watched {
                _watcher: watcher,
                events,
                clean_at: AtomicU64::new(u64::MAX),
                fence,
                used: Instant::now(),
            },
        );
        Some(0)
    }

    /// After a walk that started at event count `at` was recorded: the
    /// folder matches that record unless events came in meanwhile.
    pub(crate) fn mark_clean(&self, chat_id: &str, at: u64) {
        if let Some(w) = self.chats().get(chat_id) {
            w.clean_at.store(at, Ordering::SeqCst);
        }
    }

    /// Stops watching a chat (deleted).
    pub(crate) fn forget(&self, chat_id: &str) {
        self.chats().remove(chat_id);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;

    /// Milliseconds the watcher's thread stalls on the next workspace event,
    /// as it can on a busy machine. Shared by this module's tests: each
    /// uses its own watcher, but only one sets a stall.
    static STALL_MS: AtomicU64 = AtomicU64::new(0);

    pub(super) fn slow_delivery() {
        let ms = STALL_MS.swap(0, Ordering::SeqCst);
        if ms > 0 {
            std::thread::sleep(Duration::from_millis(ms));
        }
    }

    async fn watched() -> (EditWatch, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(dir.path().join("workspace")).expect("workspace");
        let watch = EditWatch::default();
        let at = watch.before_walk("c", dir.path()).await.expect("watched");
        watch.mark_clean("c", at);
        (watch, dir)
    }

    #[tokio::test]
    async fn a_quiet_folder_is_clean_and_any_edit_makes_it_dirty() {
        let (watch, dir) = watched().await;
        assert!(watch.is_clean("c").await);
        assert!(watch.is_clean("c").await, "checking changes nothing");
        let fences = || std::fs::read_dir(dir.path().join("fence")).expect("fence").count();
        assert_eq!(fences(), 1, "the fence is one file, renamed");
        std::fs::write(dir.path().join("workspace/a.txt"), "edited").expect("edit");
        assert!(!watch.is_clean("c").await);
        assert!(!watch.is_clean("other").await, "an unwatched chat is never clean");
        watch.forget("c");
        assert_eq!(fences(), 0, "a watch that stops takes its fence along");
    }

    /// The case the fence exists for: the watcher's thread is late with an
    /// edit made just before the check (but not later than the fence wait).
    #[tokio::test]
    async fn an_edit_the_watcher_reports_late_still_makes_the_folder_dirty() {
        let (watch, dir) = watched().await;
        STALL_MS.store(FENCE_WAIT.as_millis() as u64 / 2, Ordering::SeqCst);
        std::fs::write(dir.path().join("workspace/a.txt"), "edited").expect("edit");
        assert!(!watch.is_clean("c").await, "the late edit was missed");
    }
}
