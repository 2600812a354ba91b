//! Snapshot: turn the workspace folder on disk into a [`Manifest`].
//!
//! 1. Walk the folder without following symlinks, lstat'ing every entry.
//! 2. Files whose stat matches the [`StatCache`] keep their cached hash;
//!    the rest are hashed (on two threads) and stored if new.
//! 3. The blob batch is committed (durable) before the manifest is returned,
//!    so whoever records the manifest can rely on every blob existing.
//!
//! Skipped with a warning (never followed, never stored): symlinks, sockets,
//! FIFOs, devices, and names that are not UTF-8 (they cannot be named in a
//! JSON manifest). Empty folders are not recorded (like git). A file or
//! folder this process may not read (`chmod 000`) keeps its last recorded
//! version, with a warning naming it: it was not deleted, and one such path
//! must never make the whole chat unusable.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::blobs::PutOutcome;
use super::statcache::{Stat, StatCache};
use super::{BlobStore, FileEntry, Manifest, Observer, Progress};
use crate::{Error, Result};

/// What a scan found.
#[derive(Debug)]
pub struct Scan {
    pub manifest: Manifest,
    /// The cache to save once the manifest is recorded.
    pub cache: StatCache,
    /// Files whose content had to be read.
    pub hashed: usize,
    /// Every file was vouched for by the cache and the cache had no other
    /// entry: the folder is exactly the state the cache describes
    /// ([`StatCache::root`]).
    pub matches_cache: bool,
    /// Blobs added to the store.
    pub new_blobs: usize,
    /// Things skipped, one line each, naming the path.
    pub warnings: Vec<String>,
}

struct Found {
    path: String,
    abs: PathBuf,
    stat: Stat,
}

/// What the walk found: files the cache vouches for, and files to read.
#[derive(Default)]
struct Walked {
    clean: Vec<(String, FileEntry)>,
    dirty: Vec<Found>,
    warnings: Vec<String>,
}

impl Walked {
    fn extend(&mut self, other: Walked) {
        self.clean.extend(other.clean);
        self.dirty.extend(other.dirty);
        self.warnings.extend(other.warnings);
    }
}

/// Scans `workspace` (see the module docs).
pub fn scan(workspace: &Path, store: &BlobStore, mut cache: StatCache, observer: &Observer) -> Result<Scan> {
    match fs::symlink_metadata(workspace) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::InvalidPath {
                path: workspace.display().to_string(),
                reason: "the workspace must be a real folder (it is a file or a symlink)",
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(workspace).map_err(Error::io("create", workspace))?;
        }
        Err(e) => return Err(Error::io("read", workspace)(e)),
    }

    // The top level here; its folders are walked on the worker threads
    // (lstat-bound work: two threads on two cores halve it, as git's
    // preloaded index does).
    let mut walked = Walked::default();
    let mut subdirs = Vec::new();
    read_folder(workspace, "", &cache, &mut walked, &mut subdirs, observer)?;
    for part in super::par_map(&subdirs, |(abs, prefix)| {
        let mut w = Walked::default();
        walk(abs, prefix, &cache, &mut w, observer)?;
        Ok(w)
    })? {
        walked.extend(part);
    }
    let Walked {
        clean,
        dirty: to_hash,
        warnings,
    } = walked;
    let matches_cache = to_hash.is_empty() && clean.len() == cache.len();

    // Collecting (sort, then build in bulk) is cheaper than inserting
    // 10,000 paths one by one; a no-change snapshot pays it every time.
    let mut manifest = Manifest {
        files: clean.into_iter().collect(),
    };
    let files_total = (manifest.len() + to_hash.len()) as u64;
    let bytes_total: u64 = to_hash.iter().map(|f| f.stat.size).sum();
    let mut progress = Progress {
        files_done: manifest.len() as u64,
        files_total,
        bytes_done: 0,
        bytes_total,
    };
    observer.progress(progress);

    let batch = store.batch()?;
    let outcomes = hash_all(&to_hash, &batch, observer, progress)?;
    let new_blobs = batch.commit()?;
    let hashed = to_hash.len();

    let mut warnings = warnings;
    for (f, out) in to_hash.into_iter().zip(outcomes) {
        let out = match out {
            Read::Stored(o) => o,
            // Deleted between the walk and the read: it is simply not there.
            Read::Gone => continue,
            Read::Unreadable => {
                match cache.last_recorded(&f.path) {
                    Some(entry) => {
                        warnings.push(format!(
                            "{}: not readable (permission denied); its last recorded version is kept",
                            f.path
                        ));
                        manifest.files.insert(f.path, entry);
                    }
                    None => warnings.push(format!(
                        "{}: not readable (permission denied) and never recorded: left out",
                        f.path
                    )),
                }
                continue;
            }
        };
        manifest.files.insert(
            f.path.clone(),
            FileEntry {
                size: out.size,
                ..f.stat.entry(out.hash)
            },
        );
        if out.size == f.stat.size {
            cache.insert(f.path, f.stat, out.hash);
        } else {
            // Changed while we read it: don't cache a stat that no longer
            // describes the content; the next snapshot re-reads it.
            cache.remove(&f.path);
        }
    }
    if cache.len() != manifest.len() {
        cache.retain(|p| manifest.files.contains_key(p));
    }
    progress.files_done = files_total;
    progress.bytes_done = bytes_total;
    observer.progress(progress);
    Ok(Scan {
        manifest,
        cache,
        hashed,
        matches_cache,
        new_blobs,
        warnings,
    })
}

/// Reads one folder: files go to `out` (clean if the cache vouches for
/// them), subfolders to `subdirs`.
fn read_folder(
    dir: &Path,
    prefix: &str,
    cache: &StatCache,
    out: &mut Walked,
    subdirs: &mut Vec<(PathBuf, String)>,
    observer: &Observer,
) -> Result<()> {
    observer.check()?;
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied && !prefix.is_empty() => {
            keep_unreadable(prefix, cache, out);
            return Ok(());
        }
        Err(e) => return Err(Error::io("read folder", dir)(e)),
    };
    for entry in rd {
        let entry = entry.map_err(Error::io("read folder", dir))?;
        let name = match entry.file_name().into_string() {
            Ok(n) => n,
            Err(raw) => {
                out.warnings.push(format!(
                    "{prefix}{}: skipped, the name is not valid UTF-8",
                    raw.to_string_lossy()
                ));
                continue;
            }
        };
        let rel = format!("{prefix}{name}");
        let ft = entry.file_type().map_err(Error::io("read", entry.path()))?;
        if ft.is_dir() {
            subdirs.push((entry.path(), format!("{rel}/")));
        } else if ft.is_file() {
            // DirEntry::metadata is an lstat relative to the open folder.
            let md = match entry.metadata() {
                Ok(m) => m,
                // Deleted between readdir and lstat: it is simply not there.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io("read", entry.path())(e)),
            };
            let stat = Stat::of(&md);
            match cache.lookup(&rel, &stat) {
                Some(hash) => out.clean.push((rel, stat.entry(hash))),
                None => out.dirty.push(Found {
                    path: rel,
                    abs: entry.path(),
                    stat,
                }),
            }
        } else if ft.is_symlink() {
            out.warnings
                .push(format!("{rel}: skipped, symlinks are not stored or followed"));
        } else {
            out.warnings
                .push(format!("{rel}: skipped, not a regular file or folder"));
        }
    }
    Ok(())
}

/// A folder that may not be read: its recorded files stay as they were.
fn keep_unreadable(prefix: &str, cache: &StatCache, out: &mut Walked) {
    let kept: Vec<(String, FileEntry)> = cache
        .recorded_under(prefix)
        .filter_map(|p| cache.last_recorded(p).map(|e| (p.to_owned(), e)))
        .collect();
    out.warnings.push(format!(
        "{}: not readable (permission denied); its {} recorded file(s) keep their last versions",
        prefix.trim_end_matches('/'),
        kept.len()
    ));
    out.clean.extend(kept);
}

/// Walks a folder and everything below it.
fn walk(dir: &Path, prefix: &str, cache: &StatCache, out: &mut Walked, observer: &Observer) -> Result<()> {
    let mut subdirs = Vec::new();
    read_folder(dir, prefix, cache, out, &mut subdirs, observer)?;
    for (abs, prefix) in subdirs {
        walk(&abs, &prefix, cache, out, observer)?;
    }
    Ok(())
}

/// What reading one file gave.
enum Read {
    Stored(PutOutcome),
    /// Deleted between the walk and the read.
    Gone,
    /// Permission denied.
    Unreadable,
}

fn hash_all(
    files: &[Found],
    batch: &super::blobs::BlobBatch<'_>,
    observer: &Observer,
    base: Progress,
) -> Result<Vec<Read>> {
    let done_files = AtomicU64::new(base.files_done);
    let done_bytes = AtomicU64::new(0);
    super::par_map(files, |f| {
        observer.check()?;
        match batch.put_file(&f.abs, f.stat.size) {
            Ok(o) => {
                let bytes_done = done_bytes.fetch_add(o.size, Ordering::Relaxed) + o.size;
                let files_done = done_files.fetch_add(1, Ordering::Relaxed) + 1;
                observer.progress(Progress {
                    files_done,
                    bytes_done,
                    ..base
                });
                Ok(Read::Stored(o))
            }
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(Read::Gone),
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::PermissionDenied => {
                Ok(Read::Unreadable)
            }
            Err(e) => Err(e),
        }
    })
}
