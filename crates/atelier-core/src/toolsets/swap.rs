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
    Ok(cleaned)
}
