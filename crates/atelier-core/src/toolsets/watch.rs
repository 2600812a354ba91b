//! Hot reload of local toolset folders: the author's inner loop.
//!
//! A folder installed as `local` is watched (notify); content changes
//! (files created, written, removed, renamed — never a file merely opened,
//! which each reload itself does) are debounced ([`DEBOUNCE`] of quiet),
//! and the folder is reloaded only when its content differs from what the
//! last reload saw (a hash of every file's path and bytes): one reload per
//! real change, and a broken version or a failing install is not retried
//! until it is edited again. The folder is then re-validated and
//! reimported. An edit that makes it invalid changes nothing installed:
//! the last good version keeps running and the problems are reported.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio_util::sync::CancellationToken;

use super::bundle::is_ignored;
use super::ignore::{IGNORE_FILE, Ignore};
use super::install::ImportOptions;
use super::records::ImportReport;
use crate::toolsets::Toolsets;
use crate::{Error, Result};

/// Quiet time after the last change before reloading: editors write a file
/// in several steps (temp file, rename, chmod), all within a few
/// milliseconds of each other. It is most of what a save waits for (the
/// `toolset-dev` benchmark), so it is short; a save caught halfway is
/// reloaded again at its next event, since the content hash then differs.
pub const DEBOUNCE: Duration = Duration::from_millis(25);

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
    /// every change until `cancel` fires. Each outcome goes to `on_reload`;
    /// `observer` hears the steps of each reload (a long requirements
    /// install says what it does).
    pub async fn watch(
        &self,
        dir: &Path,
        observer: crate::store::Observer,
        cancel: CancellationToken,
        mut on_reload: impl FnMut(Reload) + Send,
    ) -> Result<()> {
        let dir = tokio::fs::canonicalize(dir).await.map_err(Error::io("open", dir))?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(event) = res
                && changes_content(&event.kind)
            {
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
            observer,
            warm: true,
            ..Default::default()
        };
        let mut seen = content_hash(&dir).await?;
        match self.reload(&dir, &force, &cancel).await {
            Some(r) => on_reload(r),
            None => return Ok(()),
        }
        // Its own patterns change what a reload reads, so they count too.
        let relevant = |p: &Path| {
            p.strip_prefix(&dir).is_ok_and(|rel| {
                rel == Path::new(IGNORE_FILE) || !rel.iter().any(|s| s.to_str().is_none_or(is_ignored))
            })
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
            // Saved without a change (an editor's save, a touch): nothing to do.
            let now = content_hash(&dir).await?;
            if now == seen {
                continue;
            }
            seen = now;
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

/// Whether an event can change what a reload would read: not an access
/// (opening, reading, closing a file unwritten) nor a change of metadata
/// such as access times.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        // A file written and closed: some back ends say only this.
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Any => true,
    }
}

/// A hash of every file of the folder a reload reads (paths and bytes,
/// ignored names left out), in path order.
async fn content_hash(dir: &Path) -> Result<[u8; 32]> {
    let dir = dir.to_path_buf();
    crate::blocking(move || {
        use sha2::{Digest, Sha256};
        let mut files = Vec::new();
        let ignore = Ignore::for_folder(&dir);
        collect(&dir, &dir, &ignore, &mut files)?;
        // The patterns themselves are part of what a reload reads.
        files.push(IGNORE_FILE.to_owned());
        files.sort();
        let mut h = Sha256::new();
        for rel in files {
            let bytes = std::fs::read(dir.join(&rel)).unwrap_or_default();
            h.update(rel.as_bytes());
            h.update([0]);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        Ok(h.finalize().into())
    })
    .await
}

fn collect(root: &Path, at: &Path, ignore: &Ignore, out: &mut Vec<String>) -> Result<()> {
    let entries = match std::fs::read_dir(at) {
        Ok(e) => e,
        // Removed meanwhile: the next event says so.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("read", at)(e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_str().is_none() {
            continue;
        }
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root).map(|r| r.to_string_lossy().replace('\\', "/")) else {
            continue;
        };
        match entry.file_type() {
            Ok(t) if t.is_dir() && !ignore.ignored(&rel, true) => collect(root, &path, ignore, out)?,
            Ok(t) if t.is_file() && !ignore.ignored(&rel, false) => out.push(rel),
            _ => {}
        }
    }
    Ok(())
}

/// How often a reload refused by a running call is tried again.
const BUSY_RETRY: Duration = Duration::from_millis(250);
