//! The folders of one import, and putting things right after a crash.
//!
//! An import of a ZIP works in `toolsets/` under one id: it holds
//! `.import-<id>.lock` (a flock) for its whole life, unpacks into
//! `.staging-<id>/`, and — inside the database transaction — moves the
//! installed folder aside to `.old-<id>/` and the staging folder into its
//! place. Before that swap it writes `.journal-<id>.json`, which says how to
//! tell afterwards whether the transaction committed (the toolset row, and
//! the `updated_at` this import wrote). After the commit the old folder, the
//! journal and the lock file are removed, in that order.
//!
//! A process killed anywhere in between leaves these names behind, and the
//! lock free. [`recover`] (run when a data dir is opened) finds every import
//! whose lock it can take — so never one still running in another process —
//! and makes the folder agree with the database: committed, the old folder
//! goes; not committed, the new folder goes and the old one comes back. Then
//! the import's staging folder, journal and lock file are removed.
//!
//! An uninstall moves the installed folder to `.trash-<id>-<uuid>/` (its
//! lock `.trash-<id>-<uuid>.lock` held meanwhile) before its commit and
//! removes it after: recovery puts a dead uninstall's folder back when the
//! row is still there, else removes it. An installed folder with no row
//! (left by versions that removed the folder after the commit) is removed
//! too, while no import runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sqlx::SqlitePool;

use crate::lock::FileLock;
use crate::{Error, Result, ids};

/// What recovery needs to finish or undo a swap.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    toolset: String,
    /// The installed folder, moved aside (none for a first install).
    old: Option<PathBuf>,
    /// The `updated_at` the import writes (none for a first install: the
    /// row's existence is the commit).
    updated_at: Option<String>,
}

/// One import's names and lock.
#[derive(Debug)]
pub(crate) struct ImportDir {
    dir: PathBuf,
    id: String,
    lock: Option<FileLock>,
}

impl ImportDir {
    /// Starts an import in `toolsets_dir`: takes its lock.
    pub(crate) fn begin(toolsets_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(toolsets_dir).map_err(Error::io("create", toolsets_dir))?;
        let id = ids::new_id();
        let lock = FileLock::acquire(&toolsets_dir.join(format!(".import-{id}.lock")))?;
        Ok(Self {
            dir: toolsets_dir.to_path_buf(),
            id,
            lock: Some(lock),
        })
    }

    fn name(&self, kind: &str) -> PathBuf {
        self.dir.join(format!(".{kind}-{}", self.id))
    }

    /// Where the bundle is unpacked.
    pub(crate) fn staging(&self) -> PathBuf {
        self.name("staging")
    }

    fn journal(&self) -> PathBuf {
        self.dir.join(format!(".journal-{}.json", self.id))
    }

    /// Moves `staging` into `final_dir` (the installed folder, if any, goes
    /// aside), after writing the journal durably. `updated_at` is what the
    /// import writes in the toolset's row (none for a first install).
    pub(crate) fn swap_in(
        &self,
        staging: &Path,
        final_dir: &Path,
        toolset: &str,
        updated_at: Option<&str>,
    ) -> Result<Swapped> {
        let old = final_dir.exists().then(|| self.name("old"));
        let journal = Journal {
            toolset: toolset.to_owned(),
            old: old.clone(),
            updated_at: updated_at.map(str::to_owned),
        };
        let path = self.journal();
        let text = serde_json::to_vec(&journal).map_err(|e| Error::Internal(e.to_string()))?;
        write_durably(&path, &text)?;
        if let Some(o) = &old {
            std::fs::rename(final_dir, o).map_err(Error::io("move aside", final_dir))?;
        }
        if let Err(e) = std::fs::rename(staging, final_dir) {
            if let Some(o) = &old {
                let _ = std::fs::rename(o, final_dir);
            }
            let _ = std::fs::remove_file(&path);
            return Err(Error::io("install", final_dir)(e));
        }
        Ok(Swapped { old, journal: path })
    }
}

impl Drop for ImportDir {
    /// Whatever the import left (a staging folder it did not swap in), then
    /// the lock file, then the lock.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.staging());
        if let Some(lock) = self.lock.take() {
            let _ = std::fs::remove_file(lock.path());
            drop(lock);
        }
    }
}

/// A folder swap that can be undone until finished.
#[derive(Debug)]
pub(crate) struct Swapped {
    old: Option<PathBuf>,
    journal: PathBuf,
}

impl Swapped {
    /// The transaction failed: the old folder comes back.
    pub(crate) fn undo(self, final_dir: &Path) {
        let _ = std::fs::remove_dir_all(final_dir);
        if let Some(o) = &self.old {
            let _ = std::fs::rename(o, final_dir);
        }
        let _ = std::fs::remove_file(&self.journal);
    }

    /// The transaction committed: the old folder goes.
    pub(crate) fn finish(self) {
        if let Some(o) = &self.old {
            let _ = std::fs::remove_dir_all(o);
        }
        let _ = std::fs::remove_file(&self.journal);
    }
}

/// An uninstall's installed folder, moved aside until the commit.
#[derive(Debug)]
pub(crate) struct Trash {
    installed: PathBuf,
    /// Where the folder went (none: there was none).
    aside: Option<PathBuf>,
    lock: Option<FileLock>,
}

impl Trash {
    /// Moves `toolsets_dir/<id>` aside under the trash's lock.
    pub(crate) fn take(toolsets_dir: &Path, id: &str) -> Result<Self> {
        let installed = toolsets_dir.join(id);
        if !installed.exists() {
            return Ok(Self {
                installed,
                aside: None,
                lock: None,
            });
        }
        let aside = toolsets_dir.join(format!("{TRASH}{id}-{}", ids::new_id()));
        let lock = FileLock::acquire(&lock_of(&aside))?;
        std::fs::rename(&installed, &aside).map_err(Error::io("move aside", &installed))?;
        Ok(Self {
            installed,
            aside: Some(aside),
            lock: Some(lock),
        })
    }

    /// The commit failed: the folder comes back.
    pub(crate) fn put_back(mut self) {
        if let Some(aside) = self.aside.take()
            && let Err(e) = std::fs::rename(&aside, &self.installed)
        {
            tracing::warn!(path = %aside.display(), error = %e, "could not put a toolset's folder back");
        }
        self.release();
    }

    /// The commit went through: the folder goes.
    pub(crate) async fn empty(mut self) -> Result<()> {
        if let Some(aside) = self.aside.take()
            && let Err(e) = tokio::fs::remove_dir_all(&aside).await
            && e.kind() != std::io::ErrorKind::NotFound
        {
            return Err(Error::io("remove", aside)(e));
        }
        self.release();
        Ok(())
    }

    fn release(&mut self) {
        if let Some(lock) = self.lock.take() {
            let _ = std::fs::remove_file(lock.path());
        }
    }
}

/// What an uninstall's folder is named while it waits for the commit.
const TRASH: &str = ".trash-";

fn lock_of(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The toolset id in a trash folder's name (`.trash-<id>-<uuid>`).
fn trashed_id(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(TRASH)?;
    let cut = rest.len().checked_sub(ids::new_id().len() + 1)?;
    rest.get(..cut).filter(|id| !id.is_empty())
}

/// Puts right what dead uninstalls left, and removes installed folders
/// with no row, each under its import lock; how many it put right.
async fn recover_uninstalls(toolsets_dir: &Path, db: &SqlitePool) -> Result<usize> {
    let Ok(entries) = std::fs::read_dir(toolsets_dir) else {
        return Ok(0);
    };
    let entries: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    let rows: std::collections::HashSet<String> = sqlx::query_scalar("SELECT id FROM toolsets")
        .fetch_all(db)
        .await?
        .into_iter()
        .collect();
    let mut cleaned = 0;
    for (name, path) in entries {
        if let Some(id) = trashed_id(&name) {
            let Some(lock) = FileLock::try_acquire(&lock_of(&path))? else {
                continue; // a live uninstall
            };
            let installed = toolsets_dir.join(id);
            if rows.contains(id) && !installed.exists() {
                std::fs::rename(&path, &installed).map_err(Error::io("restore", &installed))?;
                tracing::warn!(toolset = %id, "an uninstall was cut short before it happened: the folder is back");
            } else {
                let _ = std::fs::remove_dir_all(&path);
                tracing::warn!(toolset = %id, "removed the folder of an uninstall a crash cut short");
            }
            let _ = std::fs::remove_file(lock.path());
            cleaned += 1;
        } else if !name.starts_with('.') && !rows.contains(&name) {
            // An import of this id may have put the folder in place after
            // the rows were read and be about to commit: only under its
            // lock, with the row read again, is the folder known to be
            // no toolset's.
            let import_lock = toolsets_dir.join(format!(".import-{name}.lock"));
            let Some(lock) = FileLock::try_acquire(&import_lock)? else {
                continue; // an import of it runs now
            };
            let row: Option<String> = sqlx::query_scalar("SELECT id FROM toolsets WHERE id = ?")
                .bind(&name)
                .fetch_optional(db)
                .await?;
            if row.is_none() {
                let _ = std::fs::remove_dir_all(&path);
                tracing::warn!(toolset = %name, "removed an installed folder whose toolset is uninstalled");
                cleaned += 1;
            }
            let _ = std::fs::remove_file(lock.path());
        }
    }
    Ok(cleaned)
}

fn write_durably(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path).map_err(Error::io("write", path))?;
    f.write_all(bytes).map_err(Error::io("write", path))?;
    f.sync_all().map_err(Error::io("sync", path))?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(Error::io("sync", dir))?;
    }
    Ok(())
}

/// Finishes or undoes the swaps of imports that died, and removes what
/// they left. Imports still running (their lock is held) are left alone.
/// Returns how many dead imports it cleaned up.
pub(crate) async fn recover(toolsets_dir: &Path, db: &SqlitePool) -> Result<usize> {
    let Ok(entries) = std::fs::read_dir(toolsets_dir) else {
        return Ok(0);
    };
    let mut ids: Vec<String> = Vec::new();
    let mut strays: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(id) = name.strip_prefix(".import-").and_then(|n| n.strip_suffix(".lock")) {
            ids.push(id.to_owned());
        } else if name.starts_with(".staging-") || name.starts_with(".old-") || name.starts_with(".journal-") {
            strays.push(e.path());
        }
    }
    let mut cleaned = 0;
    for id in ids {
        let lock_path = toolsets_dir.join(format!(".import-{id}.lock"));
        let Some(lock) = FileLock::try_acquire(&lock_path)? else {
            continue; // a live import
        };
        let journal_path = toolsets_dir.join(format!(".journal-{id}.json"));
        if let Ok(text) = std::fs::read(&journal_path) {
            let journal: Journal = serde_json::from_slice(&text).map_err(|e| Error::InvalidData {
                what: "toolset import journal",
                reason: format!("{}: {e}", journal_path.display()),
            })?;
            let row: Option<Option<String>> = sqlx::query_scalar("SELECT updated_at FROM toolsets WHERE id = ?")
                .bind(&journal.toolset)
                .fetch_optional(db)
                .await?;
            let committed = match (&row, &journal.updated_at) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(at), Some(ours)) => at.as_deref() == Some(ours.as_str()),
            };
            let final_dir = toolsets_dir.join(&journal.toolset);
            if committed {
                if let Some(o) = &journal.old {
                    let _ = std::fs::remove_dir_all(o);
                }
            } else if let Some(o) = journal.old.as_ref().filter(|o| o.exists()) {
                let _ = std::fs::remove_dir_all(&final_dir);
                std::fs::rename(o, &final_dir).map_err(Error::io("restore", &final_dir))?;
            } else if journal.old.is_none() && row.is_none() {
                // A first install that never committed.
                let _ = std::fs::remove_dir_all(&final_dir);
            }
            tracing::warn!(toolset = %journal.toolset, committed, "finished an import a crash interrupted");
        }
        for kind in ["staging", "old"] {
            let _ = std::fs::remove_dir_all(toolsets_dir.join(format!(".{kind}-{id}")));
        }
        let _ = std::fs::remove_file(&journal_path);
        let _ = std::fs::remove_file(&lock_path);
        drop(lock);
        cleaned += 1;
    }
    // Folders of imports from before these locks existed, or whose lock
    // file is gone: nothing can be running in them.
    for stray in strays {
        let name = stray
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = name
            .trim_start_matches(".staging-")
            .trim_start_matches(".old-")
            .trim_start_matches(".journal-")
            .trim_end_matches(".json");
        if !toolsets_dir.join(format!(".import-{id}.lock")).exists() && !name.starts_with(".journal-") {
            let _ = std::fs::remove_dir_all(&stray);
            cleaned += 1;
        }
    }
    Ok(cleaned + recover_uninstalls(toolsets_dir, db).await?)
}
