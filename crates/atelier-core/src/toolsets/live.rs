//! Hot reload of every `local` toolset while an app runs.
//!
//! The desktop app keeps one [`LiveReload`]: at start it watches the folder
//! of every installed local toolset ([`LiveReload::watch_all`]), a local
//! folder imported later is added ([`LiveReload::ensure`]), an uninstalled
//! one dropped ([`LiveReload::stop`]). Each edit reloads the toolset through
//! [`Toolsets::watch`]: the pool sees the new version on its next snapshot
//! (its fingerprint changed), warm workers of the old version are stopped,
//! and an edit that breaks the folder keeps the last good version installed.
//! Each outcome is kept ([`LiveReload::status`], what the toolset manager
//! shows) and sent to the app's listener.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::records::SourceType;
use super::watch::Reload;
use crate::{Atelier, Result};

/// The last reload of a local toolset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ReloadStatus {
    pub toolset_id: String,
    /// The folder watched.
    pub path: String,
    /// The version now installed, after a good reload.
    pub version: Option<String>,
    /// Why the folder was refused: the last good version still runs.
    pub error: Option<String>,
}

type Listener = Arc<dyn Fn(&ReloadStatus) + Send + Sync>;

/// One watch: its folder, and what stops it. `run` tells a watch from the
/// one that replaced it (same toolset, another folder or a restart).
struct Watch {
    run: u64,
    dir: PathBuf,
    cancel: CancellationToken,
}

/// The watches of one app (see the module docs).
pub struct LiveReload {
    app: Atelier,
    watches: Mutex<BTreeMap<String, Watch>>,
    runs: std::sync::atomic::AtomicU64,
    status: Mutex<BTreeMap<String, ReloadStatus>>,
    listener: Listener,
}

impl std::fmt::Debug for LiveReload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveReload")
            .field("watching", &self.watching())
            .finish()
    }
}

impl LiveReload {
    /// A manager that tells `listener` of every reload; it watches nothing
    /// until [`LiveReload::watch_all`] or [`LiveReload::ensure`].
    pub fn new(app: Atelier, listener: impl Fn(&ReloadStatus) + Send + Sync + 'static) -> Arc<Self> {
        Arc::new(Self {
            app,
            watches: Mutex::default(),
            runs: std::sync::atomic::AtomicU64::new(0),
            status: Mutex::default(),
            listener: Arc::new(listener),
        })
    }

    /// Watches every installed local toolset (each is reloaded once first,
    /// which picks up edits made while the app was closed).
    pub async fn watch_all(self: &Arc<Self>) -> Result<()> {
        for t in self.app.toolsets().list().await? {
            if t.source_type == SourceType::Local
                && let Some(dir) = &t.source_ref
            {
                self.ensure(&t.id, PathBuf::from(dir));
            }
        }
        Ok(())
    }

    /// Watches a local toolset's folder, unless it already is; a toolset
    /// now installed from another folder has its old watch stopped.
    pub fn ensure(self: &Arc<Self>, toolset_id: &str, dir: PathBuf) {
        let cancel = CancellationToken::new();
        let run = self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            let mut watches = lock(&self.watches);
            match watches.get(toolset_id) {
                Some(w) if w.dir == dir => return,
                Some(w) => w.cancel.cancel(),
                None => {}
            }
            let watch = Watch {
                run,
                dir: dir.clone(),
                cancel: cancel.clone(),
            };
            watches.insert(toolset_id.to_owned(), watch);
        }
        let me = Arc::clone(self);
        let id = toolset_id.to_owned();
        tokio::spawn(async move {
            let path = dir.display().to_string();
            let on_reload = |r: Reload| {
                let status = match r {
                    Reload::Reloaded(report) => ReloadStatus {
                        toolset_id: id.clone(),
                        path: path.clone(),
                        version: Some(report.toolset.version),
                        error: None,
                    },
                    Reload::Rejected(e) => ReloadStatus {
                        toolset_id: id.clone(),
                        path: path.clone(),
                        version: None,
                        error: Some(e.to_string()),
                    },
                };
                lock(&me.status).insert(id.clone(), status.clone());
                (me.listener)(&status);
            };
            if let Err(e) = me
                .app
                .toolsets()
                .watch(&dir, Default::default(), cancel, on_reload)
                .await
            {
                // The folder is gone or cannot be watched: say so, once.
                let status = ReloadStatus {
                    toolset_id: id.clone(),
                    path,
                    version: None,
                    error: Some(format!("not watched: {e}")),
                };
                lock(&me.status).insert(id.clone(), status.clone());
                (me.listener)(&status);
            }
            // Forget this watch, not one that replaced it meanwhile.
            let mut watches = lock(&me.watches);
            if watches.get(&id).is_some_and(|w| w.run == run) {
                watches.remove(&id);
            }
        });
    }

    /// Stops watching a toolset (uninstalled).
    pub fn stop(&self, toolset_id: &str) {
        if let Some(w) = lock(&self.watches).remove(toolset_id) {
            w.cancel.cancel();
        }
        lock(&self.status).remove(toolset_id);
    }

    /// Stops every watch.
    pub fn stop_all(&self) {
        for (_, w) in std::mem::take(&mut *lock(&self.watches)) {
            w.cancel.cancel();
        }
    }

    /// The ids of the toolsets watched.
    pub fn watching(&self) -> Vec<String> {
        lock(&self.watches).keys().cloned().collect()
    }

    /// The last reload of each watched toolset.
    pub fn status(&self) -> Vec<ReloadStatus> {
        lock(&self.status).values().cloned().collect()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding these leaves valid maps.
    m.lock().unwrap_or_else(|p| p.into_inner())
}
