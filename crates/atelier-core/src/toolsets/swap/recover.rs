//! Putting right what a crash left in `toolsets/` (see [`super`]): dead
//! imports' swaps finished or undone ([`recover`]), dead uninstalls
//! finished or put back and folders with no row removed
//! ([`recover_uninstalls`]). Both run when a data dir is opened.

use std::path::{Path, PathBuf};

use sqlx::SqlitePool;

use super::{Journal, Leftovers, TRASH, finish_leftovers, trashed_id, with_suffix};
use crate::lock::{FileLock, Probe};
use crate::{Atelier, Error, Result};

/// Puts right what dead uninstalls left, and removes installed folders
/// with no row while no import runs; how many it put right. Run when a
/// data dir is opened (with the handle: a committed uninstall's secrets
/// and sign-ins go through their stores).
///
/// A dead uninstall (its trash's lock free) is finished when its row is
/// gone — the folder removed, the secrets whose names are gone deleted,
/// the sign-ins of servers that went forgotten — and undone when the row
/// is there: the folder comes back and its secrets, names and values, were
/// never touched. A lock file with nothing beside it (a crash between the
/// lock and the journal) goes too. A journal past its commit that this
/// version cannot read stays (its values would be lost with it).
pub(crate) async fn recover_uninstalls(app: &Atelier) -> Result<usize> {
    let toolsets_dir = app.data_dir().toolsets_dir();
    let Ok(entries) = std::fs::read_dir(&toolsets_dir) else {
        return Ok(0);
    };
    let mut trashes = std::collections::BTreeSet::new();
    let mut folders: Vec<(String, PathBuf)> = Vec::new();
    let mut imports: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(TRASH) {
            let stem = name.strip_suffix(".lock").or_else(|| name.strip_suffix(".json"));
            trashes.insert(stem.unwrap_or(&name).to_owned());
        } else if name.starts_with(".import-") && name.ends_with(".lock") {
            imports.push(e.path());
        } else if !name.starts_with('.') && e.file_type().is_ok_and(|t| t.is_dir()) {
            folders.push((name, e.path()));
        }
    }
    let mut cleaned = 0;
    for stem in trashes {
        let Some(id) = trashed_id(&stem) else { continue };
        let aside = toolsets_dir.join(&stem);
        let lock = match FileLock::try_take_present(&with_suffix(&aside, ".lock"))? {
            Probe::Busy => continue, // a live uninstall
            Probe::Taken(lock) => lock,
            // From before trashes had a journal, or its lock file went:
            // no live uninstall is without one.
            Probe::Gone => match FileLock::try_acquire(&with_suffix(&aside, ".lock"))? {
                Some(lock) => lock,
                None => continue,
            },
        };
        let row: Option<String> = sqlx::query_scalar("SELECT id FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(app.db())
            .await?;
        let installed = toolsets_dir.join(id);
        if aside.is_dir() {
            if row.is_some() && !installed.exists() {
                std::fs::rename(&aside, &installed).map_err(Error::io("restore", &installed))?;
                tracing::warn!(toolset = %id, "an uninstall was cut short before it happened: the folder is back");
            } else {
                let _ = std::fs::remove_dir_all(&aside);
                tracing::warn!(toolset = %id, "removed the folder of an uninstall a crash cut short");
            }
        }
        let journal = with_suffix(&aside, ".json");
        let (left, unreadable) = match std::fs::read(&journal) {
            Ok(text) => match serde_json::from_slice::<Leftovers>(&text) {
                Ok(left) => (Some(left), false),
                Err(_) => (None, true),
            },
            Err(_) => (None, false),
        };
        // Kept for the next start while a value could not be deleted now.
        let done = match &left {
            Some(left) => finish_leftovers(app, id, left).await?,
            // Written whole before the commit, so one cut short belongs to
            // an uninstall that never committed (the row is there: nothing
            // to do). Past a commit it is one this version cannot read (a
            // later version's): the values it names would be lost with it,
            // so it stays for a version that can, and says so.
            None if unreadable && row.is_none() => {
                tracing::warn!(
                    toolset = %id,
                    journal = %journal.display(),
                    "an uninstall left a journal this version cannot read: kept, with the secret values it names, for a version that can"
                );
                false
            }
            None => true,
        };
        if done {
            let _ = std::fs::remove_file(&journal);
            let _ = std::fs::remove_file(lock.path());
        }
        drop(lock);
        cleaned += 1;
    }
    let rows: std::collections::HashSet<String> = sqlx::query_scalar("SELECT id FROM toolsets")
        .fetch_all(app.db())
        .await?
        .into_iter()
        .collect();
    // An import may have put a folder of an id in place after the rows
    // were read and be about to commit (or have committed since): while
    // any import runs, no folder is known to be no toolset's, and a folder
    // goes only with its row read again. (An import's lock is named by the
    // import, not by the toolset, which it learns only from the bundle.)
    for path in imports {
        if matches!(FileLock::try_take_present(&path)?, Probe::Busy) {
            return Ok(cleaned);
        }
    }
    for (name, path) in folders.into_iter().filter(|(name, _)| !rows.contains(name)) {
        let row: Option<String> = sqlx::query_scalar("SELECT id FROM toolsets WHERE id = ?")
            .bind(&name)
            .fetch_optional(app.db())
            .await?;
        if row.is_none() {
            let _ = std::fs::remove_dir_all(&path);
            tracing::warn!(toolset = %name, "removed an installed folder whose toolset is uninstalled");
            cleaned += 1;
        }
    }
    Ok(cleaned)
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
