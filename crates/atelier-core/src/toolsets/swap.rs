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
//! An uninstall, under its lock `.trash-<id>-<uuid>.lock`, writes what it
//! leaves to do after its commit (`.trash-<id>-<uuid>.json`: the secrets
//! whose values go, the servers whose sign-ins may go) and moves the
//! installed folder to `.trash-<id>-<uuid>/` before its commit; after it,
//! the values and sign-ins go, then the folder. Nothing outside the
//! database is deleted before the commit, so a crash before it loses
//! nothing. [`recover_uninstalls`] (at start, with the handle) puts a dead
//! uninstall's folder back when the row is still there, else finishes it.
//! An installed folder with no row (left by versions that removed the
//! folder after the commit) is removed too, while no import runs.
//!
//! Every lock file here has a fresh id's name, taken so that a start
//! removing it meanwhile makes us take it again ([`lock_fresh`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::lock::FileLock;
use crate::secrets::StoreKind;
use crate::{Atelier, Error, Result, ids};

mod recover;
pub(crate) use recover::{recover, recover_uninstalls};

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
        let lock = lock_fresh(&toolsets_dir.join(format!(".import-{id}.lock")))?;
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

/// What an uninstall leaves to do once its transaction commits, written
/// (`.trash-<id>-<uuid>.json`) before the commit: a crash after the commit
/// leaves it for the next start to finish; one before, for the next start
/// to find nothing to do (see [`recover_uninstalls`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Leftovers {
    /// The toolset's secrets and the store each is in: their values go
    /// once their names are gone (deleted in the transaction).
    pub(crate) secrets: Vec<(String, StoreKind)>,
    /// Its servers and their URLs before: the sign-in of one that went
    /// (or whose URL changed) is forgotten.
    pub(crate) servers: Vec<(String, Option<String>)>,
}

/// An uninstall's installed folder, moved aside until the commit, and what
/// is left to do after it, under the trash's lock.
#[derive(Debug)]
pub(crate) struct Trash {
    id: String,
    installed: PathBuf,
    aside: PathBuf,
    /// Whether the installed folder went aside (there may be none).
    moved: bool,
    leftovers: Leftovers,
    /// Something is left to do: the journal stays for the next start.
    keep: bool,
    lock: Option<FileLock>,
}

impl Trash {
    /// Takes the trash's lock, writes `leftovers` durably, and moves
    /// `toolsets_dir/<id>` aside.
    pub(crate) fn take(toolsets_dir: &Path, id: &str, leftovers: Leftovers) -> Result<Self> {
        std::fs::create_dir_all(toolsets_dir).map_err(Error::io("create", toolsets_dir))?;
        let installed = toolsets_dir.join(id);
        let aside = toolsets_dir.join(format!("{TRASH}{id}-{}", ids::new_id()));
        let lock = lock_fresh(&with_suffix(&aside, ".lock"))?;
        let text = serde_json::to_vec(&leftovers).map_err(|e| Error::Internal(e.to_string()))?;
        write_durably(&with_suffix(&aside, ".json"), &text)?;
        let mut trash = Self {
            id: id.to_owned(),
            installed,
            aside,
            moved: false,
            leftovers,
            keep: false,
            lock: Some(lock),
        };
        if trash.installed.exists() {
            std::fs::rename(&trash.installed, &trash.aside).map_err(Error::io("move aside", &trash.installed))?;
            trash.moved = true;
        }
        Ok(trash)
    }

    /// The commit failed: the folder comes back, nothing else is done.
    pub(crate) fn put_back(mut self) {
        if self.moved
            && let Err(e) = std::fs::rename(&self.aside, &self.installed)
        {
            tracing::warn!(path = %self.aside.display(), error = %e, "could not put a toolset's folder back");
        }
        self.release();
    }

    /// The commit went through: the secrets' values go, and the sign-ins of
    /// servers that went. What could not go now (no keychain) is left to
    /// the next start: the journal and its lock file stay.
    pub(crate) async fn forget(&mut self, app: &Atelier) {
        match finish_leftovers(app, &self.id, &self.leftovers).await {
            Ok(all) => self.keep = !all,
            Err(e) => {
                tracing::warn!(toolset = %self.id, error = %e, "could not remove an uninstalled toolset's secrets: the next start will");
                self.keep = true;
            }
        }
    }

    /// The commit went through: the folder goes.
    pub(crate) async fn empty(mut self) -> Result<()> {
        if self.moved
            && let Err(e) = tokio::fs::remove_dir_all(&self.aside).await
            && e.kind() != std::io::ErrorKind::NotFound
        {
            return Err(Error::io("remove", &self.aside)(e));
        }
        self.release();
        Ok(())
    }

    /// The journal, then the lock file, then the lock (the lock alone
    /// while something is left to do).
    fn release(&mut self) {
        let lock = self.lock.take();
        if self.keep {
            return;
        }
        let _ = std::fs::remove_file(with_suffix(&self.aside, ".json"));
        if let Some(lock) = lock {
            let _ = std::fs::remove_file(lock.path());
        }
    }
}

/// Does what a committed uninstall leaves to do (nothing where it did not
/// commit: the names and servers are still there); whether it all went.
async fn finish_leftovers(app: &Atelier, id: &str, left: &Leftovers) -> Result<bool> {
    let owner = crate::secrets::Owner::Toolset(id.to_owned());
    let all = app.secrets().delete_unnamed(&owner, &left.secrets).await?;
    app.mcp().forget_moved_sign_ins(&left.servers).await;
    Ok(all)
}

/// Takes the lock of a new name (a fresh id's) in the toolsets folder,
/// which exists ([`FileLock::acquire_fresh`]).
fn lock_fresh(path: &Path) -> Result<FileLock> {
    FileLock::acquire_fresh(path)?
        .ok_or_else(|| Error::io("lock", path)(std::io::Error::new(std::io::ErrorKind::NotFound, "its folder is gone")))
}

/// What an uninstall's folder is named while it waits for the commit.
const TRASH: &str = ".trash-";

/// `path` with `suffix` added to its name (`.trash-x-1` → `.trash-x-1.lock`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    crate::lock::beside(path, suffix)
}
/// The toolset id in a trash folder's name (`.trash-<id>-<uuid>`).
fn trashed_id(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(TRASH)?;
    let cut = rest.len().checked_sub(ids::new_id().len() + 1)?;
    rest.get(..cut).filter(|id| !id.is_empty())
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
