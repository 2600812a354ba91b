//! Materialize: make the workspace folder match a target manifest, touching
//! only what differs.
//!
//! The caller has just snapshotted, so the folder holds exactly `from`; we
//! apply `from → to`:
//! 1. **Stage**: copy every needed blob into `chats/<id>/staging/`, checking
//!    its hash. A missing or corrupt blob stops here, with the workspace
//!    untouched.
//! 2. **Apply**: delete removed and replaced files, prune folders that became
//!    empty, then move staged files into place (delete + create is cheaper
//!    than rename-over on ext4) and fix executable bits.
//!
//! Every folder on the way to a path is lstat'ed: a symlink (which snapshots
//! skip) is never followed, so nothing outside the workspace is written or
//! deleted. The stat cache is updated for the files written, so the next
//! snapshot does not re-read them.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::manifest::Change;
use super::statcache::{Stat, StatCache};
use super::{BlobStore, FileEntry, Manifest, Observer, Progress, failpoint};
use crate::{Error, Result};

/// What a materialize did.
#[derive(Debug)]
pub struct Applied {
    pub written: usize,
    pub removed: usize,
    /// The updated stat cache, to save.
    pub cache: StatCache,
    /// Untracked things that were in the way (symlinks), one line each.
    pub warnings: Vec<String>,
}

struct Staged<'a> {
    path: &'a str,
    entry: FileEntry,
    staged: PathBuf,
}

/// Applies `from → to` to `workspace` (see the module docs).
pub fn apply(
    workspace: &Path,
    staging: &Path,
    store: &BlobStore,
    from: &Manifest,
    to: &Manifest,
    mut cache: StatCache,
    observer: &Observer,
) -> Result<Applied> {
    let changes = from.changes_to(to);
    let mut to_write: Vec<(&str, FileEntry)> = Vec::new();
    let mut to_remove: Vec<&str> = Vec::new();
    let mut to_chmod: Vec<(&str, FileEntry)> = Vec::new();
    for (path, change) in &changes {
        super::path::validate(path)?;
        match *change {
            Change::Added(e) => to_write.push((path, e)),
            Change::Removed(_) => to_remove.push(path),
            Change::Modified { from, to } if from.hash == to.hash => to_chmod.push((path, to)),
            Change::Modified { to, .. } => {
                to_remove.push(path);
                to_write.push((path, to));
            }
        }
    }

    // 1. Stage.
    let _ = fs::remove_dir_all(staging);
    fs::create_dir_all(staging).map_err(Error::io("create", staging))?;
    let bytes_total = to_write.iter().map(|(_, e)| e.size).sum();
    let files_total = to_write.len() as u64;
    let done = AtomicU64::new(0);
    let done_bytes = AtomicU64::new(0);
    let staged = super::par_map(
        &to_write.iter().enumerate().collect::<Vec<_>>(),
        |(i, (path, entry))| {
            observer.check()?;
            let dest = staging.join(i.to_string());
            store.copy_verified(&entry.hash, path, &dest, entry.executable)?;
            let files_done = done.fetch_add(1, Ordering::Relaxed) + 1;
            let bytes_done = done_bytes.fetch_add(entry.size, Ordering::Relaxed) + entry.size;
            observer.progress(Progress {
                files_done,
                files_total,
                bytes_done,
                bytes_total,
            });
            Ok(Staged {
                path,
                entry: *entry,
                staged: dest,
            })
        },
    );
    let staged = match staged.and_then(|s| failpoint::hit(failpoint::AFTER_STAGING).map(|()| s)) {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(staging);
            return Err(e);
        }
    };

    // 2. Apply.
    let mut warnings = Vec::new();
    let mut real_dirs: HashSet<String> = HashSet::new();
    let mut emptied: BTreeSet<&str> = BTreeSet::new();
    for path in &to_remove {
        if !parent_is_real(workspace, path, &mut real_dirs) {
            warnings.push(format!("{path}: not removed, a folder on its path is a symlink"));
            continue;
        }
        let abs = workspace.join(path);
        match fs::remove_file(&abs) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("remove", abs)(e)),
        }
        cache.remove(path);
        if let Some((dir, _)) = path.rsplit_once('/') {
            emptied.insert(dir);
        }
    }
    prune_empty_dirs(workspace, &emptied, &mut real_dirs);

    for s in &staged {
        ensure_parent(workspace, s.path, &mut real_dirs, &mut warnings)?;
        let abs = workspace.join(s.path);
        match fs::symlink_metadata(&abs) {
            Ok(m) if m.is_dir() => {
                return Err(Error::InvalidPath {
                    path: s.path.to_owned(),
                    reason: "a folder that is not tracked (it holds only symlinks or special files) is in the way",
                });
            }
            Ok(_) => {
                warnings.push(format!("{}: replaced an untracked symlink or special file", s.path));
                fs::remove_file(&abs).map_err(Error::io("remove", &abs))?;
            }
            Err(_) => {}
        }
        fs::rename(&s.staged, &abs).map_err(Error::io("write", &abs))?;
        let md = fs::symlink_metadata(&abs).map_err(Error::io("read", &abs))?;
        cache.insert(s.path.to_owned(), Stat::of(&md), s.entry.hash);
    }
    for (path, entry) in &to_chmod {
        let abs = workspace.join(path);
        if !parent_is_real(workspace, path, &mut real_dirs) {
            continue;
        }
        let mode = if entry.executable { 0o755 } else { 0o644 };
        fs::set_permissions(&abs, fs::Permissions::from_mode(mode)).map_err(Error::io("set permissions of", &abs))?;
        let md = fs::symlink_metadata(&abs).map_err(Error::io("read", &abs))?;
        cache.insert((*path).to_owned(), Stat::of(&md), entry.hash);
    }
    let _ = fs::remove_dir_all(staging);
    Ok(Applied {
        written: staged.len(),
        removed: to_remove.len(),
        cache,
        warnings,
    })
}

/// Whether every folder on the way to `path` is a real folder (not a
/// symlink). Missing folders count as real (nothing to follow).
fn parent_is_real(workspace: &Path, path: &str, real: &mut HashSet<String>) -> bool {
    let Some((dir, _)) = path.rsplit_once('/') else {
        return true;
    };
    let mut prefix = String::new();
    for seg in dir.split('/') {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(seg);
        if real.contains(&prefix) {
            continue;
        }
        match fs::symlink_metadata(workspace.join(&prefix)) {
            Ok(m) if m.is_dir() => {
                real.insert(prefix.clone());
            }
            Ok(_) => return false,
            Err(_) => return true,
        }
    }
    true
}

/// Creates the folders on the way to `path`, replacing any symlink or file
/// in the way (those are untracked: a snapshot just skipped them).
fn ensure_parent(workspace: &Path, path: &str, real: &mut HashSet<String>, warnings: &mut Vec<String>) -> Result<()> {
    let Some((dir, _)) = path.rsplit_once('/') else {
        return Ok(());
    };
    let mut prefix = String::new();
    for seg in dir.split('/') {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(seg);
        if real.contains(&prefix) {
            continue;
        }
        let abs = workspace.join(&prefix);
        match fs::symlink_metadata(&abs) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                warnings.push(format!(
                    "{prefix}: replaced an untracked symlink or special file with a folder"
                ));
                fs::remove_file(&abs).map_err(Error::io("remove", &abs))?;
                fs::create_dir(&abs).map_err(Error::io("create", &abs))?;
            }
            Err(_) => fs::create_dir(&abs).map_err(Error::io("create", &abs))?,
        }
        real.insert(prefix.clone());
    }
    Ok(())
}

/// Removes folders left empty by deletions, deepest first, walking up while
/// they are empty.
fn prune_empty_dirs(workspace: &Path, emptied: &BTreeSet<&str>, real: &mut HashSet<String>) {
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for dir in emptied {
        let mut d = *dir;
        loop {
            candidates.insert(d.to_owned());
            match d.rsplit_once('/') {
                Some((parent, _)) => d = parent,
                None => break,
            }
        }
    }
    // Deepest first: sort by segment count, descending.
    let mut ordered: Vec<String> = candidates.into_iter().collect();
    ordered.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    for d in ordered {
        let abs = workspace.join(&d);
        // remove_dir never follows a symlink and fails on a non-empty folder.
        if matches!(fs::symlink_metadata(&abs), Ok(m) if m.is_dir()) && fs::remove_dir(&abs).is_ok() {
            real.remove(&d);
        }
    }
}
