//! Hot reload of local toolset folders: the author's inner loop.
//!
//! A folder installed as `local` is watched (notify); changes are debounced
//! ([`DEBOUNCE`] of quiet), then the folder is re-validated and reimported.
//! An edit that makes it invalid changes nothing installed: the last good
//! version keeps running and the problems are reported.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio_util::sync::CancellationToken;

use super::bundle::is_ignored;
use super::install::ImportOptions;
use super::records::ImportReport;
use crate::toolsets::Toolsets;
use crate::{Error, Result};

/// Quiet time after the last change before reloading: editors write a file
/// in several steps (temp file, rename, chmod).
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// What one reload did.
#[derive(Debug)]
pub enum Reload {
    /// The new version is installed.
    Reloaded(Box<ImportReport>),
    /// The folder is invalid now; the previous version stays installed.
    Rejected(Error),
}

impl Toolsets<'_> {
    /// Installs the folder `dir` as a local toolset, then reloads it on
    /// every change until `cancel` fires. Each outcome goes to `on_reload`.
    pub async fn watch(
        &self,
        dir: &Path,
        cancel: CancellationToken,
        mut on_reload: impl FnMut(Reload) + Send,
    ) -> Result<()> {
        let dir = tokio::fs::canonicalize(dir).await.map_err(Error::io("open", dir))?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(event) = res {
                for p in event.paths {
                    let _ = tx.send(p);
                }
            }
        })
        .map_err(|e| Error::io("watch", &dir)(std::io::Error::other(e)))?;
        watcher
            .watch(&dir, RecursiveMode::Recursive)
            .map_err(|e| Error::io("watch", &dir)(std::io::Error::other(e)))?;

        let force = ImportOptions {
            force: true,
            ..Default::default()
        };
        match self.reload(&dir, &force, &cancel).await {
            Some(r) => on_reload(r),
            None => return Ok(()),
        }
        let relevant = |p: &Path| {
            p.strip_prefix(&dir)
                .is_ok_and(|rel| !rel.iter().any(|s| s.to_str().is_none_or(is_ignored)))
        };
        loop {
            // Wait for a relevant change…
            let first = tokio::select! {
                _ = cancel.cancelled() => return Ok(()),
                p = rx.recv() => match p { Some(p) => p, None => return Ok(()) },
            };
            if !relevant(&first) {
                continue;
            }
            // …then for quiet.
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return Ok(()),
                    _ = tokio::time::sleep(DEBOUNCE) => break,
                    p = rx.recv() => if p.is_none() { return Ok(()) },
                }
            }
            match self.reload(&dir, &force, &cancel).await {
                Some(r) => on_reload(r),
                None => return Ok(()),
            }
        }
    }

    /// Reimports the folder. While a call of the toolset runs the import
    /// is refused (an upgrade never swaps code under a running call), so it
    /// is tried again every [`BUSY_RETRY`] until that call ends: a save made
    /// during a call is not lost. `None`: cancelled meanwhile.
    async fn reload(&self, dir: &Path, force: &ImportOptions, cancel: &CancellationToken) -> Option<Reload> {
        loop {
            match self.import(dir, force).await {
                Ok(r) => return Some(Reload::Reloaded(Box::new(r))),
                Err(Error::ToolsetBusy { .. }) => tokio::select! {
                    _ = cancel.cancelled() => return None,
                    _ = tokio::time::sleep(BUSY_RETRY) => {}
                },
                Err(e) => return Some(Reload::Rejected(e)),
            }
        }
    }
}

/// How often a reload refused by a running call is tried again.
const BUSY_RETRY: Duration = Duration::from_millis(250);
