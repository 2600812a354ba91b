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
//! trusted it is *fenced* ([`super::fence`]): by the time the fence comes
//! back, every change made before it has been counted. A fence that does
//! not come back in time means a walk.
//!
//! A new folder is watched only once the watcher's thread has added a
//! watch for it, a moment after the event that announced it; a change
//! inside it before then sends no event. So a walk that follows a new
//! folder does not declare the workspace clean: the next call walks again.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use notify::event::{CreateKind, ModifyKind, RenameMode};
use notify::{EventKind, RecursiveMode, Watcher};

use super::fence::Fence;

/// At most this many workspaces are watched (inotify watches are a shared,
/// limited resource); the least recently used is dropped.
const MAX_WATCHED: usize = 16;

struct Watched {
    _watcher: notify::RecommendedWatcher,
    counts: Arc<Counts>,
    /// `events` when the folder was last known to match its manifest;
    /// `u64::MAX` when never.
    clean_at: AtomicU64,
    /// The count the previous walk started at.
    walked_at: AtomicU64,
    fence: Arc<Fence>,
    used: Instant,
}

/// What the watcher's thread counts.
#[derive(Default)]
struct Counts {
    /// Events (and errors) seen since the watch began.
    events: AtomicU64,
    /// `events` as it was right after the latest new folder.
    new_folder_at: AtomicU64,
}

impl Counts {
    /// Called only by the watcher's one thread.
    fn saw(&self, event: &notify::Result<notify::Event>) {
        let new_folder = match event {
            Ok(e) => match e.kind {
                EventKind::Create(CreateKind::Folder) => true,
                // A folder moved in (a rename does not say what it moved).
                EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both)) => {
                    e.paths.last().is_some_and(|p| p.is_dir())
                }
                _ => false,
            },
            Err(_) => false,
        };
        // Marked before it is counted, so whoever reads the count already
        // sees the mark.
        if new_folder {
            let n = self.events.load(Ordering::SeqCst) + 1;
            self.new_folder_at.fetch_max(n, Ordering::SeqCst);
        }
        self.events.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // The watch stopped (the chat was evicted or forgotten); its fence
        // goes too. (The watcher's thread, which shares the fence, may
        // outlive this.)
        self.fence.stop();
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

impl Watched {
    fn still_clean(&self) -> bool {
        let clean_at = self.clean_at.load(Ordering::SeqCst);
        clean_at != u64::MAX && self.counts.events.load(Ordering::SeqCst) == clean_at
    }
}

impl EditWatch {
    fn chats(&self) -> std::sync::MutexGuard<'_, HashMap<String, Watched>> {
        self.chats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the folder surely still matches the last recorded snapshot.
    pub(crate) async fn is_clean(&self, chat_id: &str) -> bool {
        let Some(fence) = self
            .chats()
            .get(chat_id)
            .filter(|w| w.still_clean())
            .map(|w| w.fence.clone())
        else {
            return false;
        };
        if !fence.pass().await {
            return false;
        }
        // Read again: the fence lets in the events that were on their way.
        self.still_clean(chat_id)
    }

    /// [`Self::is_clean`] without a fence: no event reported since the
    /// last recorded walk. Right after [`Self::is_clean`] said yes, this
    /// says whether anything has been reported since.
    pub(crate) fn still_clean(&self, chat_id: &str) -> bool {
        self.chats().get(chat_id).is_some_and(Watched::still_clean)
    }

    /// Starts watching the chat's folder if it is not yet; returns the
    /// event count to hand to [`EditWatch::mark_clean`] after the walk that
    /// follows. `None` when the folder cannot be watched.
    ///
    /// `chat_dir` holds `workspace/` (watched recursively) and `fence/`.
    pub(crate) async fn before_walk(&self, chat_id: &str, chat_dir: &Path) -> Option<u64> {
        let known = self.chats().get_mut(chat_id).map(|w| {
            w.used = Instant::now();
            (w.counts.clone(), w.fence.clone())
        });
        if let Some((counts, fence)) = known {
            // Fenced, so the events of what the tool just wrote are counted
            // before the walk (not after it, which would cost the next call
            // a needless walk). Unfenced the count is still safe.
            fence.pass().await;
            return Some(counts.events.load(Ordering::SeqCst));
        }
        // The watcher reports absolute paths; the fence's events are told
        // apart by theirs.
        let chat_dir = std::path::absolute(chat_dir).ok()?;
        let fence = match Fence::new(chat_dir.join("fence")) {
            Ok(fence) => Arc::new(fence),
            Err(e) => {
                tracing::debug!(chat = %chat_id, error = %e, "cannot create the fence; every call walks");
                return None;
            }
        };
        let counts = Arc::new(Counts::default());
        let (counted, fenced) = (counts.clone(), fence.clone());
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
            Ok(e) if e.paths.iter().any(|p| p.starts_with(fenced.dir())) => fenced.saw(&e.paths),
            // Reads (our own walks open every folder) change nothing.
            Ok(e) if matches!(e.kind, EventKind::Access(_)) => {}
            res => {
                #[cfg(test)]
                tests::slow_delivery(&res);
                counted.saw(&res);
            }
        })
        .ok()?;
        for (folder, mode) in [
            (&chat_dir.join("workspace"), RecursiveMode::Recursive),
            (&fence.dir().to_path_buf(), RecursiveMode::NonRecursive),
        ] {
            if let Err(e) = watcher.watch(folder, mode) {
                tracing::debug!(chat = %chat_id, error = %e, "cannot watch the workspace; every call walks it");
                return None;
            }
        }
        if let Err(e) = fence.start() {
            tracing::debug!(chat = %chat_id, error = %e, "cannot create the fence; every call walks");
            return None;
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
                counts,
                clean_at: AtomicU64::new(u64::MAX),
                walked_at: AtomicU64::new(0),
                fence,
                used: Instant::now(),
            },
        );
        Some(0)
    }

    /// After a walk that started at event count `at` was recorded: the
    /// folder matches that record unless events came in meanwhile, or a
    /// new folder appeared since the previous walk (see the module docs).
    pub(crate) fn mark_clean(&self, chat_id: &str, at: u64) {
        if let Some(w) = self.chats().get(chat_id) {
            let before = w.walked_at.swap(at, Ordering::SeqCst);
            let new_folder = w.counts.new_folder_at.load(Ordering::SeqCst);
            let unsettled = new_folder > before && new_folder <= at;
            w.clean_at
                .store(if unsettled { u64::MAX } else { at }, Ordering::SeqCst);
        }
    }

    /// Stops watching a chat (deleted).
    pub(crate) fn forget(&self, chat_id: &str) {
        self.chats().remove(chat_id);
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    /// A folder whose next event stalls the watcher's thread, as a busy
    /// machine can, and for how long.
    static STALL: Mutex<Option<(PathBuf, Duration)>> = Mutex::new(None);

    pub(super) fn slow_delivery(event: &notify::Result<notify::Event>) {
        let Ok(e) = event else { return };
        let mut stall = STALL.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((dir, how_long)) = stall.as_ref()
            && e.paths.iter().any(|p| p.starts_with(dir))
        {
            let how_long = *how_long;
            *stall = None;
            drop(stall);
            std::thread::sleep(how_long);
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

    fn fence_files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("fence"))
            .expect("fence")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[tokio::test]
    async fn a_quiet_folder_is_clean_and_any_edit_makes_it_dirty() {
        let (watch, dir) = watched().await;
        assert!(watch.is_clean("c").await);
        assert!(watch.is_clean("c").await, "checking changes nothing");
        assert_eq!(fence_files(dir.path()).len(), 1, "the fence is one file, renamed");
        std::fs::write(dir.path().join("workspace/a.txt"), "edited").expect("edit");
        assert!(!watch.is_clean("c").await);
        assert!(!watch.is_clean("other").await, "an unwatched chat is never clean");
        watch.forget("c");
        assert!(
            fence_files(dir.path()).is_empty(),
            "a watch that stops takes its fence along"
        );
    }

    /// The case the fence exists for: the watcher's thread is late with an
    /// edit made just before the check.
    #[tokio::test]
    async fn an_edit_the_watcher_reports_late_still_makes_the_folder_dirty() {
        let (watch, dir) = watched().await;
        let workspace = std::path::absolute(dir.path().join("workspace")).expect("absolute");
        *STALL.lock().expect("stall") = Some((workspace.clone(), Duration::from_millis(50)));
        std::fs::write(workspace.join("a.txt"), "edited").expect("edit");
        assert!(!watch.is_clean("c").await, "the late edit was missed");
    }

    /// A walk right after a new folder appeared may have run before the
    /// watcher watched inside it: only the next walk makes the folder clean.
    #[tokio::test]
    async fn a_new_folder_needs_a_second_walk_before_the_folder_is_clean() {
        let (watch, dir) = watched().await;
        std::fs::create_dir(dir.path().join("workspace/new")).expect("mkdir");
        let at = watch.before_walk("c", dir.path()).await.expect("watched");
        watch.mark_clean("c", at);
        assert!(!watch.is_clean("c").await, "one walk after the new folder");
        let at = watch.before_walk("c", dir.path()).await.expect("watched");
        watch.mark_clean("c", at);
        assert!(watch.is_clean("c").await, "the second walk settles it");
        std::fs::write(dir.path().join("workspace/new/inside.txt"), "x").expect("write");
        assert!(!watch.is_clean("c").await, "the new folder is watched");
    }

    /// Fence files left by a process that ended without cleaning up are
    /// removed by the next watcher; a live process's file (locked) stays.
    #[tokio::test]
    async fn stale_fence_files_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("workspace")).expect("workspace");
        std::fs::create_dir_all(dir.path().join("fence")).expect("fence");
        std::fs::write(dir.path().join("fence/dead-7"), "").expect("stale");
        let live = std::fs::File::create(dir.path().join("fence/live-3")).expect("live");
        rustix::fs::flock(&live, rustix::fs::FlockOperation::LockExclusive).expect("lock");
        let watch = EditWatch::default();
        watch.before_walk("c", dir.path()).await.expect("watched");
        let names = fence_files(dir.path());
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(
            names.contains(&"live-3".to_owned()) && !names.contains(&"dead-7".to_owned()),
            "{names:?}"
        );
    }

    /// A data dir given as a relative path still gets working fences (the
    /// watcher reports absolute paths).
    #[tokio::test]
    async fn a_relative_data_dir_still_passes_its_fences() {
        let dir = tempfile::tempdir_in(".").expect("tmp");
        let relative = PathBuf::from(".").join(dir.path().file_name().expect("name"));
        std::fs::create_dir(relative.join("workspace")).expect("workspace");
        let watch = EditWatch::default();
        let at = watch.before_walk("c", &relative).await.expect("watched");
        watch.mark_clean("c", at);
        assert!(watch.is_clean("c").await);
    }
}
