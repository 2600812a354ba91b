//! Materialize: make the workspace folder match a target manifest, touching
//! only what differs.
//!
//! The caller has just snapshotted, so the folder holds exactly `from`; we
//! apply `from → to`:
//! 1. **Verify**: read every needed blob and check its hash. Small files are
//!    kept in memory (up to a budget); big ones are copied, verified, into
//!    `chats/<id>/staging/`. A missing or corrupt blob stops here, with the
//!    workspace untouched.
//! 2. **Apply**: delete removed and replaced files, prune folders that became
//!    empty, then create the new files (written straight from memory, or
//!    renamed from staging — delete + create is cheaper than rename-over on
//!    ext4) and fix modes.
//!
//! Files get exactly the mode their entry names (0644, 0755, 0600, 0700:
//! [`FileEntry::mode`]), whatever the umask: under `umask 077` a 0644 file
//! would come out 0600, and the next snapshot would record it as made
//! private (a change no one made).
//!
//! Every folder on the way to a path is lstat'ed: a symlink (which snapshots
//! skip) is never followed, so nothing outside the workspace is written or
//! deleted. The stat cache is updated for the files written, so the next
//! snapshot does not re-read them.
//!
//! **Hand edits made while a checkout runs are kept.** The snapshot before
//! the checkout recorded each file's stat; right before a file is removed,
//! replaced or re-moded, its stat is taken again, and a file that changed
//! since (edited, deleted, or created where the checkout would create one)
//! is left as the person left it, named in a warning, and dropped from the
//! stat cache so the next snapshot records it as an edit. What remains is
//! the gap between that last stat and the replace itself (microseconds),
//! and an edit within one clock tick of the snapshot that keeps the size.

use std::collections::{BTreeSet, HashSet};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::confine::{Way, check_way, folders_on_the_way};
use super::manifest::Change;
use super::statcache::{Stat, StatCache};
use super::{BlobStore, FileEntry, Manifest, Observer, Progress, failpoint};
use crate::{Error, Result};

/// Files up to this size are verified into memory and written from there
/// (so only these can be cut half-written by a crash: bigger ones are
/// renamed into place whole, which `workspace::moves` relies on).
pub(crate) const HOLD_FILE_LIMIT: u64 = 1 << 20;
/// At most this much is held in memory at once; the rest is staged on disk.
const HOLD_BUDGET: u64 = 256 << 20;

/// What a materialize did.
#[derive(Debug)]
pub struct Applied {
    pub written: usize,
    pub removed: usize,
    /// The updated stat cache, to save.
    pub cache: StatCache,
    /// Untracked things that were in the way (symlinks), and files kept
    /// because a person changed them during the checkout, one line each.
    pub warnings: Vec<String>,
    /// Paths left as a person changed them during the checkout: the folder
    /// is not exactly `to` there, and the next snapshot records them.
    pub kept: Vec<String>,
}

/// A file to write: (path, entry, held in memory) and its verified content.
type WriteJob<'a> = (&'a (&'a str, FileEntry, bool), &'a Ready);

/// A verified file, ready to be put in place.
enum Ready {
    Held(Vec<u8>),
    Staged(PathBuf),
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
    let mut to_write: Vec<(&str, FileEntry, bool)> = Vec::new();
    let mut to_remove: Vec<&str> = Vec::new();
    let mut to_chmod: Vec<(&str, FileEntry)> = Vec::new();
    let mut held_budget = HOLD_BUDGET;
    for (path, change) in &changes {
        super::path::validate(path)?;
        let mut write = |e: FileEntry| {
            let hold = e.size <= HOLD_FILE_LIMIT && e.size <= held_budget;
            if hold {
                held_budget -= e.size;
            }
            to_write.push((path, e, hold));
        };
        match *change {
            Change::Added(e) => write(e),
            Change::Removed(_) => to_remove.push(path),
            Change::Modified { from, to } if from.hash == to.hash => to_chmod.push((path, to)),
            Change::Modified { to, .. } => {
                to_remove.push(path);
                write(to);
            }
        }
    }

    // 0. Every obstacle is found before anything changes: a failed checkout
    // leaves the folder exactly as it was.
    check_obstacles(workspace, &to_write, &to_remove)?;

    // 1. Verify.
    let needs_staging = to_write.iter().any(|(_, _, hold)| !hold);
    if needs_staging {
        let _ = fs::remove_dir_all(staging);
        fs::create_dir_all(staging).map_err(Error::io("create", staging))?;
    }
    let bytes_total = to_write.iter().map(|(_, e, _)| e.size).sum();
    let files_total = to_write.len() as u64;
    let done = AtomicU64::new(0);
    let done_bytes = AtomicU64::new(0);
    let indexed: Vec<_> = to_write.iter().enumerate().collect();
    let ready = super::par_map(&indexed, |(i, (path, entry, hold))| {
        observer.check()?;
        let r = if *hold {
            Ready::Held(store.read_verified(&entry.hash, path)?)
        } else {
            let dest = staging.join(i.to_string());
            store.copy_verified(&entry.hash, path, &dest, entry.written_mode())?;
            Ready::Staged(dest)
        };
        let files_done = done.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes_done = done_bytes.fetch_add(entry.size, Ordering::Relaxed) + entry.size;
        observer.progress(Progress {
            files_done,
            files_total,
            bytes_done,
            bytes_total,
        });
        Ok(r)
    })
    .and_then(|r| failpoint::hit(failpoint::AFTER_VERIFY).map(|()| r));
    let ready = match ready {
        Ok(r) => r,
        Err(e) => {
            if needs_staging {
                let _ = fs::remove_dir_all(staging);
            }
            return Err(e);
        }
    };

    // 2. Apply.
    let mut warnings = Vec::new();
    let mut kept: HashSet<&str> = HashSet::new();
    let mut real_dirs: HashSet<String> = HashSet::new();
    let mut emptied: BTreeSet<&str> = BTreeSet::new();
    for path in &to_remove {
        if !parent_is_real(workspace, path, &mut real_dirs) {
            warnings.push(format!("{path}: not removed, a folder on its path is a symlink"));
            continue;
        }
        let abs = workspace.join(path);
        if let Some(entry) = from.get(path)
            && changed_by_hand(&abs, path, entry, &cache)
        {
            warnings.push(format!("{path}: {KEPT}"));
            kept.insert(path);
            cache.remove(path);
            continue;
        }
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

    // Folders first (one thread: they depend on each other), then the files
    // on both threads.
    // A file written by hand while this ran, where a folder goes, is kept,
    // and the folder's files with it: the switch goes on around them.
    let mut blocked: Vec<&str> = Vec::new();
    let under = |path: &str, folder: &str| path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'));
    for (path, _, _) in to_write.iter().filter(|(p, _, _)| !kept.contains(p)) {
        if blocked.iter().any(|b| under(path, b)) {
            continue;
        }
        if let Some(file) = ensure_parent(workspace, path, &mut real_dirs, &mut warnings)? {
            warnings.push(format!("{file}: {KEPT}"));
            blocked.push(folders_on_the_way(path).find(|f| *f == file).unwrap_or(path));
        }
    }
    for (path, _, _) in &to_write {
        if blocked.iter().any(|b| under(path, b)) {
            kept.insert(path);
        }
    }
    // One folder per task: two threads creating files in one folder contend
    // on its lock, two folders at once do not. (`to_write` is path-sorted,
    // so a folder's files are adjacent.)
    let parent = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    let mut groups: Vec<Vec<WriteJob<'_>>> = Vec::new();
    for job in to_write.iter().zip(&ready).filter(|(w, _)| !kept.contains(w.0)) {
        match groups.last_mut() {
            Some(g) if g.first().is_some_and(|(w, _)| parent(w.0) == parent(job.0.0)) => g.push(job),
            _ => groups.push(vec![job]),
        }
    }
    let write_warnings = std::sync::Mutex::new(Vec::new());
    let written = super::par_map(&groups, |group| {
        let mut stats = Vec::with_capacity(group.len());
        let mut w = Vec::new();
        for ((path, entry, _), r) in group {
            let abs = workspace.join(path);
            let stat = match r {
                Ready::Held(bytes) => create_with(&abs, path, bytes, entry.written_mode(), &mut w)?,
                Ready::Staged(staged) => match clear_way(&abs, path, &mut w)? {
                    Cleared::Yes => {
                        fs::rename(staged, &abs).map_err(Error::io("write", &abs))?;
                        Some(Stat::of(&fs::symlink_metadata(&abs).map_err(Error::io("read", &abs))?))
                    }
                    Cleared::Kept => None,
                },
            };
            stats.push(((*path).to_owned(), stat, entry.hash));
        }
        if !w.is_empty() {
            write_warnings.lock().unwrap_or_else(|e| e.into_inner()).extend(w);
        }
        Ok(stats)
    })?;
    warnings.extend(write_warnings.into_inner().unwrap_or_else(|e| e.into_inner()));
    let mut kept: Vec<String> = kept.into_iter().map(str::to_owned).collect();
    for (path, stat, hash) in written.into_iter().flatten() {
        match stat {
            Some(stat) => cache.insert(path, stat, hash),
            None => {
                cache.remove(&path);
                kept.push(path);
            }
        }
    }
    for (path, entry) in &to_chmod {
        let abs = workspace.join(path);
        if !parent_is_real(workspace, path, &mut real_dirs) {
            continue;
        }
        if let Some(recorded) = from.get(path)
            && changed_by_hand(&abs, path, recorded, &cache)
        {
            warnings.push(format!("{path}: {KEPT}"));
            cache.remove(path);
            kept.push((*path).to_owned());
            continue;
        }
        fs::set_permissions(&abs, fs::Permissions::from_mode(entry.written_mode()))
            .map_err(Error::io("set permissions of", &abs))?;
        let md = fs::symlink_metadata(&abs).map_err(Error::io("read", &abs))?;
        cache.insert((*path).to_owned(), Stat::of(&md), entry.hash);
    }
    if needs_staging {
        let _ = fs::remove_dir_all(staging);
    }
    kept.sort();
    Ok(Applied {
        written: to_write.len() - kept.len().min(to_write.len()),
        removed: to_remove.len(),
        cache,
        warnings,
        kept,
    })
}

const KEPT: &str = "changed by hand while the checkout ran: kept as it is, the next snapshot records it";

/// Whether the file at `abs`, recorded as `entry` by the snapshot that
/// started this checkout, is no longer what was recorded: its stat differs
/// from the cached one and its content from the recorded hash, or it is
/// gone or no longer a regular file.
fn changed_by_hand(abs: &Path, path: &str, entry: &FileEntry, cache: &StatCache) -> bool {
    let md = match fs::symlink_metadata(abs) {
        Ok(md) => md,
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
    };
    if !md.is_file() {
        return true;
    }
    let stat = Stat::of(&md);
    if cache.recorded_stat(path).is_some_and(|s| s == stat) {
        return false;
    }
    // Touched, or never cached (kept from an unreadable state): the content
    // decides. A file that cannot be read now was not edited into something
    // we could record either; replacing it loses nothing recorded.
    stat.size != entry.size
        || stat.executable() != entry.executable
        || stat.private() != entry.private
        || super::blobs::hash_file(abs).is_ok_and(|h| h != entry.hash)
}

/// Creates `abs` (which should not exist) with `bytes` and exactly `mode`,
/// returning its stat. Something untracked in the way (a symlink, a FIFO)
/// is replaced; a regular file there was created by hand during the
/// checkout and is kept (`None`).
fn create_with(abs: &Path, path: &str, bytes: &[u8], mode: u32, warnings: &mut Vec<String>) -> Result<Option<Stat>> {
    let open = || OpenOptions::new().write(true).create_new(true).mode(mode).open(abs);
    let mut file = match open() {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match clear_way(abs, path, warnings)? {
            Cleared::Yes => open().map_err(Error::io("create", abs))?,
            Cleared::Kept => return Ok(None),
        },
        Err(e) => return Err(Error::io("create", abs)(e)),
    };
    file.write_all(bytes).map_err(Error::io("write", abs))?;
    // fstat after the last write: the mtime the next snapshot will see.
    let mut md = file.metadata().map_err(Error::io("read", abs))?;
    if md.permissions().mode() & 0o777 != mode {
        // The umask took bits away (a 0644 file under `umask 077`).
        file.set_permissions(fs::Permissions::from_mode(mode))
            .map_err(Error::io("set permissions of", abs))?;
        md = file.metadata().map_err(Error::io("read", abs))?;
    }
    Ok(Some(Stat::of(&md)))
}

/// What [`clear_way`] did.
enum Cleared {
    /// Nothing is in the way now.
    Yes,
    /// A regular file is there, made by hand since the snapshot: kept.
    Kept,
}

/// A folder where a file must go is removed by the checkout only if the
/// removals empty it; anything else in it (an untracked symlink, FIFO or
/// socket: snapshots record every regular file) would stop the checkout
/// half-way, so it stops it here, before the first change, naming it.
fn check_obstacles(workspace: &Path, to_write: &[(&str, FileEntry, bool)], to_remove: &[&str]) -> Result<()> {
    let removed: HashSet<&str> = to_remove.iter().copied().collect();
    for (path, _, _) in to_write {
        let abs = workspace.join(path);
        if matches!(fs::symlink_metadata(&abs), Ok(m) if m.is_dir())
            && let Some(left) = first_kept(&abs, path, &removed)
        {
            return Err(Error::InvalidPath {
                path: left,
                reason: "untracked (a symlink or special file), it stands in a folder that must become a file: \
                         move or delete it, then check out again",
            });
        }
    }
    Ok(())
}

/// The first thing under the folder `abs` (workspace path `rel`) that the
/// removals would leave there.
fn first_kept(abs: &Path, rel: &str, removed: &HashSet<&str>) -> Option<String> {
    let entries = fs::read_dir(abs).ok()?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = format!("{rel}/{name}");
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                if let Some(left) = first_kept(&e.path(), &path, removed) {
                    return Some(left);
                }
            }
            Ok(t) if t.is_file() && removed.contains(path.as_str()) => {}
            _ => return Some(path),
        }
    }
    None
}

/// Removes an untracked symlink or special file at `abs`, or a folder
/// holding only empty folders (a tool's `mkdir`: [`first_kept`] lets them
/// by, so they must go here); keeps a regular file (a person made it since
/// the snapshot, which recorded every regular file); refuses any other
/// folder.
fn clear_way(abs: &Path, path: &str, warnings: &mut Vec<String>) -> Result<Cleared> {
    match fs::symlink_metadata(abs) {
        Ok(m) if m.is_dir() && remove_empty_tree(abs) => {
            warnings.push(format!("{path}: removed empty folders that were where this file goes"));
            Ok(Cleared::Yes)
        }
        Ok(m) if m.is_dir() => Err(Error::InvalidPath {
            path: path.to_owned(),
            reason: "a folder that is not tracked (it holds only symlinks or special files) is in the way",
        }),
        Ok(m) if m.is_file() => {
            warnings.push(format!("{path}: {KEPT}"));
            Ok(Cleared::Kept)
        }
        Ok(_) => {
            warnings.push(format!("{path}: replaced an untracked symlink or special file"));
            fs::remove_file(abs).map_err(Error::io("remove", abs))?;
            Ok(Cleared::Yes)
        }
        Err(_) => Ok(Cleared::Yes),
    }
}

/// Removes `abs` when it holds nothing but folders that hold nothing,
/// deepest first. Never follows a symlink; leaves everything as it was
/// below the first thing that is not an empty folder.
fn remove_empty_tree(abs: &Path) -> bool {
    let Ok(entries) = fs::read_dir(abs) else {
        return false;
    };
    for e in entries {
        let Ok(e) = e else { return false };
        match e.file_type() {
            Ok(t) if t.is_dir() && remove_empty_tree(&e.path()) => {}
            _ => return false,
        }
    }
    fs::remove_dir(abs).is_ok()
}

/// Whether every folder on the way to `path` is a real folder (not a
/// symlink). Missing folders count as real (nothing to follow).
fn parent_is_real(workspace: &Path, path: &str, real: &mut HashSet<String>) -> bool {
    check_way(workspace, path, real) == Way::Clear
}

/// Creates the folders on the way to `path`, replacing any symlink or
/// special file in the way (untracked: a snapshot just skipped them). A
/// regular file in the way is never replaced: its path is returned, and
/// nothing below it is made.
fn ensure_parent(
    workspace: &Path,
    path: &str,
    real: &mut HashSet<String>,
    warnings: &mut Vec<String>,
) -> Result<Option<String>> {
    for prefix in folders_on_the_way(path) {
        if real.contains(prefix) {
            continue;
        }
        let abs = workspace.join(prefix);
        match fs::symlink_metadata(&abs) {
            Ok(m) if m.is_dir() => {}
            // A regular file here was written by hand while the checkout
            // ran (the files the switch removes are gone by now): it is a
            // person's work, never deleted to make room.
            Ok(m) if m.is_file() => return Ok(Some(prefix.to_owned())),
            Ok(_) => {
                warnings.push(format!(
                    "{prefix}: replaced an untracked symlink or special file with a folder"
                ));
                fs::remove_file(&abs).map_err(Error::io("remove", &abs))?;
                fs::create_dir(&abs).map_err(Error::io("create", &abs))?;
            }
            Err(_) => fs::create_dir(&abs).map_err(Error::io("create", &abs))?,
        }
        real.insert(prefix.to_owned());
    }
    Ok(None)
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
