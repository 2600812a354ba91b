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

/// The watches of one app (see the module docs).
pub struct LiveReload {
    app: Atelier,
    watches: Mutex<BTreeMap<String, CancellationToken>>,
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

    /// Watches a local toolset's folder, unless it already is.
    pub fn ensure(self: &Arc<Self>, toolset_id: &str, dir: PathBuf) {
        let cancel = CancellationToken::new();
        {
            let mut watches = lock(&self.watches);
            if watches.contains_key(toolset_id) {
                return;
            }
            watches.insert(toolset_id.to_owned(), cancel.clone());
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
            if let Err(e) = me.app.toolsets().watch(&dir, cancel, on_reload).await {
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
            lock(&me.watches).remove(&id);
        });
    }

    /// Stops watching a toolset (uninstalled).
    pub fn stop(&self, toolset_id: &str) {
        if let Some(cancel) = lock(&self.watches).remove(toolset_id) {
            cancel.cancel();
        }
        lock(&self.status).remove(toolset_id);
    }

    /// Stops every watch.
    pub fn stop_all(&self) {
        for (_, cancel) in std::mem::take(&mut *lock(&self.watches)) {
            cancel.cancel();
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
