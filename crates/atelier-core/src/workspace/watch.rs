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

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use notify::{RecursiveMode, Watcher};

/// At most this many workspaces are watched (inotify watches are a shared,
/// limited resource); the least recently used is dropped.
const MAX_WATCHED: usize = 16;

struct Watched {
    _watcher: notify::RecommendedWatcher,
    /// Events (and errors) seen since the watch began.
    events: Arc<AtomicU64>,
    /// `events` when the folder was last known to match its manifest;
    /// `u64::MAX` when never.
    clean_at: AtomicU64,
    used: Instant,
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
    pub(crate) fn is_clean(&self, chat_id: &str) -> bool {
        self.chats().get(chat_id).is_some_and(|w| {
            let clean_at = w.clean_at.load(Ordering::SeqCst);
            clean_at != u64::MAX && w.events.load(Ordering::SeqCst) == clean_at
        })
    }

    /// Starts watching the chat's folder if it is not yet; returns the
    /// event count to hand to [`EditWatch::mark_clean`] after the walk that
    /// follows. `None` when the folder cannot be watched.
    pub(crate) fn before_walk(&self, chat_id: &str, folder: &Path) -> Option<u64> {
        let mut chats = self.chats();
        if let Some(w) = chats.get_mut(chat_id) {
            w.used = Instant::now();
            return Some(w.events.load(Ordering::SeqCst));
        }
        let events = Arc::new(AtomicU64::new(0));
        let seen = events.clone();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            // Reads (our own walks open every folder) change nothing.
            if !matches!(res, Ok(ref e) if matches!(e.kind, notify::EventKind::Access(_))) {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        })
        .ok()?;
        if let Err(e) = watcher.watch(folder, RecursiveMode::Recursive) {
            tracing::debug!(chat = %chat_id, error = %e, "cannot watch the workspace; every call walks it");
            return None;
        }
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
