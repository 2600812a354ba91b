//! The blob store: `blobs/ab/abcd…`, one file per distinct content.
//!
//! Writes go through a [`BlobBatch`]: new blobs are written to `blobs/tmp/`,
//! made durable (an fsync each for a small batch, one `syncfs` for a big
//! one), renamed to their final names, and the renames made durable (fsync
//! of the folders, or a second `syncfs`). Big blobs are written around the
//! page cache ([`super::direct`]) and synced as soon as they are written,
//! by the batch's own [`Syncer`] threads, so the disk writes one file while
//! the workers hash the next. A fan-out folder is made, and its name made
//! durable, by the first commit that renames a blob into it. So a blob is
//! only ever visible under its final name with durable, complete content,
//! and "the blob exists" can be trusted by later snapshots. Reads used to
//! rebuild a workspace verify the content against the name.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::Digest;

use super::Hash;
use super::direct::{copy_hashing, write_direct};
use super::sync::{Syncer, syncfs};
use crate::{Error, Result};

/// Files up to this size are read into memory once, hashed, and written
/// only if the store lacks them; bigger ones are streamed.
const IN_MEMORY_LIMIT: u64 = 8 << 20;
/// The buffer for copying a blob out to the workspace.
const CHUNK: usize = 256 << 10;
/// Blobs this big are written around the page cache and synced early, on
/// the batch's [`Syncer`] threads.
const EARLY_SYNC_MIN: u64 = 1 << 20;
/// Up to this many new blobs are synced one by one; more, with one `syncfs`.
#[cfg(target_os = "linux")]
const FSYNC_BATCH_LIMIT: usize = 64;
#[cfg(not(target_os = "linux"))]
const FSYNC_BATCH_LIMIT: usize = usize::MAX;

/// A chat's blob store.
#[derive(Debug, Clone)]
pub struct BlobStore {
    root: PathBuf,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The folder of blobs found corrupt, under the store's root.
pub(crate) const QUARANTINE: &str = "corrupt";

/// Opens a file for reading without following a symlink at its last segment.
pub(crate) fn open_nofollow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// The hash of a file's content, read in chunks (symlinks not followed).
pub(crate) fn hash_file(path: &Path) -> std::io::Result<Hash> {
    let mut input = open_nofollow(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(Hash(hasher.finalize().into()));
        }
        hasher.update(&buf[..n]);
    }
}

impl BlobStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `blobs/ab/abcd…`.
    pub fn path_of(&self, hash: &Hash) -> PathBuf {
        let hex = hash.to_hex();
        self.root.join(&hex[..2]).join(hex)
    }

    pub fn contains(&self, hash: &Hash) -> bool {
        fs::symlink_metadata(self.path_of(hash)).is_ok_and(|m| m.is_file())
    }

    /// Reads a stored blob and checks it against its name; one that does
    /// not match is moved aside ([`BlobStore::quarantined`]). Whether it was
    /// whole (a missing blob is not this check's business: true).
    pub(crate) fn verify(&self, hash: &Hash) -> Result<bool> {
        let path = self.path_of(hash);
        match hash_file(&path) {
            Ok(actual) if actual == *hash => Ok(true),
            Ok(_) => {
                self.move_aside(hash);
                Ok(false)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
            Err(e) => Err(Error::io("read blob", path)(e)),
        }
    }

    fn move_aside(&self, hash: &Hash) {
        let aside = self.quarantined(hash);
        let moved = aside
            .parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| fs::rename(self.path_of(hash), &aside));
        if let Err(e) = moved {
            tracing::warn!(blob = %hash.to_hex(), error = %e, "could not move a corrupt blob aside");
        }
    }

    /// Whether the blob is stored at its full size. One of another size (a
    /// torn or truncated copy) is moved aside, so the caller stores the good
    /// content it holds: a snapshot repairs it. (Same-size damage is found
    /// when the blob is read, which moves it aside too.)
    fn holds(&self, hash: &Hash, size: u64) -> bool {
        let path = self.path_of(hash);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() && m.len() == size => true,
            Ok(m) if m.is_file() => {
                self.move_aside(hash);
                tracing::warn!(blob = %hash.to_hex(), "a stored blob had the wrong size; it was moved aside and stored again");
                false
            }
            _ => false,
        }
    }

    fn tmp_dir(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// Creates the store and its `tmp/` folder. The fan-out folders are
    /// made by [`BlobBatch::commit`] when a rename first finds one missing:
    /// that costs nothing while they exist, where checking for each would
    /// cost a syscall per blob, and a store of a few big files does not pay
    /// for 256 folders (36–78 ms here on a file system with recent
    /// deletions).
    pub fn ensure_layout(&self) -> Result<()> {
        let tmp = self.tmp_dir();
        fs::create_dir_all(&tmp).map_err(Error::io("create", &tmp))
    }

    /// Makes everything written under this store durable at once (links
    /// and copies made outside a batch, such as a fork's): one `syncfs`.
    pub(crate) fn sync_everything(&self) -> Result<()> {
        super::sync::syncfs(&self.root)
    }

    /// Starts a batch of writes. The caller holds the chat lock, so any file
    /// left in `tmp/` is debris of a crashed batch and is removed.
    pub fn batch(&self) -> Result<BlobBatch<'_>> {
        self.ensure_layout()?;
        let tmp = self.tmp_dir();
        if let Ok(rd) = fs::read_dir(&tmp) {
            for e in rd.flatten() {
                let _ = fs::remove_file(e.path());
            }
        }
        Ok(BlobBatch {
            store: self,
            pending: Mutex::new(Vec::new()),
            seen: Mutex::new(HashSet::new()),
            syncer: Mutex::new(None),
        })
    }

    /// Reads a whole blob and checks it against its hash. `path` names the
    /// workspace file it stands for, for the error message.
    pub fn read_verified(&self, hash: &Hash, path: &str) -> Result<Vec<u8>> {
        let p = self.path_of(hash);
        let bytes = match fs::read(&p) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.missing(hash, path));
            }
            Err(e) => return Err(Error::io("read blob", p)(e)),
        };
        let actual = Hash::of(&bytes);
        if actual != *hash {
            return Err(self.corrupt(hash, actual, path));
        }
        Ok(bytes)
    }

    /// Writes a blob to `out` in chunks, hashing on the way; a blob whose
    /// content no longer matches its name is a [`Error::CorruptBlob`] at the
    /// end (what was written is then not to be trusted). `to` names the
    /// destination in errors.
    pub fn stream_verified(&self, hash: &Hash, path: &str, out: &mut dyn Write, to: &Path) -> Result<u64> {
        let src = self.path_of(hash);
        let mut input = match File::open(&src) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.missing(hash, path));
            }
            Err(e) => return Err(Error::io("open blob", src)(e)),
        };
        let mut hasher = sha2::Sha256::new();
        let mut buf = vec![0u8; CHUNK];
        let mut total = 0u64;
        loop {
            let n = input.read(&mut buf).map_err(Error::io("read blob", &src))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(Error::io("write", to))?;
            total += n as u64;
        }
        let actual = Hash(hasher.finalize().into());
        if actual != *hash {
            return Err(self.corrupt(hash, actual, path));
        }
        Ok(total)
    }

    /// Copies a blob to a new file `dest` (which must not exist) with
    /// exactly `mode` (a [`super::FileEntry::mode`]: private files stay
    /// 0600 or 0700), checking its hash on the way; on a mismatch `dest`
    /// is removed.
    pub fn copy_verified(&self, hash: &Hash, path: &str, dest: &Path, mode: u32) -> Result<()> {
        if !self.path_of(hash).exists() {
            return Err(self.missing(hash, path));
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(dest)
            .map_err(Error::io("create", dest))?;
        let result = self.stream_verified(hash, path, &mut out, dest).and_then(|_| {
            // The umask may have cleared bits of `mode`.
            out.set_permissions(fs::Permissions::from_mode(mode))
                .map_err(Error::io("set permissions of", dest))
        });
        if result.is_err() {
            let _ = fs::remove_file(dest);
        }
        result
    }

    fn missing(&self, hash: &Hash, path: &str) -> Error {
        // Moved aside when it was found corrupt: say so, not "missing".
        if let Ok(actual) = hash_file(&self.quarantined(hash)) {
            return Error::CorruptBlob {
                path: path.to_owned(),
                hash: hash.to_hex(),
                actual: actual.to_hex(),
            };
        }
        Error::MissingBlob {
            path: path.to_owned(),
            hash: hash.to_hex(),
            store: self.root.clone(),
        }
    }

    /// Where a blob found corrupt is kept, out of the way: with its name
    /// free, the next snapshot of a good copy of the file stores it again
    /// (a blob that exists is never rewritten), which repairs every manifest
    /// naming it.
    pub(crate) fn quarantined(&self, hash: &Hash) -> PathBuf {
        self.root.join(QUARANTINE).join(hash.to_hex())
    }

    /// Moves a blob whose content hashes to `actual` aside (see
    /// [`BlobStore::quarantined`]) and describes it.
    fn corrupt(&self, hash: &Hash, actual: Hash, path: &str) -> Error {
        self.move_aside(hash);
        Error::CorruptBlob {
            path: path.to_owned(),
            hash: hash.to_hex(),
            actual: actual.to_hex(),
        }
    }
}

/// New blobs being written; see the module docs. Usable from several threads.
#[derive(Debug)]
pub struct BlobBatch<'a> {
    store: &'a BlobStore,
    /// Temp files and the hash each will be renamed to.
    pending: Mutex<Vec<Pending>>,
    /// Hashes stored or pending in this batch (two equal files → one blob).
    seen: Mutex<HashSet<Hash>>,
    /// Started by the first big blob.
    syncer: Mutex<Option<Syncer>>,
}

/// A blob written to `tmp/`, waiting for its final name.
#[derive(Debug)]
struct Pending {
    tmp: PathBuf,
    hash: Hash,
    /// Handed to the [`Syncer`] (durable once it has finished).
    early: bool,
}

/// What [`BlobBatch::put_file`] found.
#[derive(Debug, Clone, Copy)]
pub struct PutOutcome {
    pub hash: Hash,
    /// Bytes actually read (the file may have changed since it was stat'ed).
    pub size: u64,
    /// Whether a new blob was written.
    pub written: bool,
}

impl BlobBatch<'_> {
    fn tmp_path(&self) -> PathBuf {
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        self.store.tmp_dir().join(format!("{}-{n}", std::process::id()))
    }

    /// Claims `hash` for this batch; false if the store or batch has it.
    fn claim(&self, hash: &Hash, size: u64) -> bool {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.contains(hash) {
            return false;
        }
        if self.store.holds(hash, size) {
            seen.insert(*hash);
            return false;
        }
        seen.insert(*hash);
        true
    }

    /// Stores bytes whose hash is already known.
    pub fn put_bytes(&self, hash: Hash, bytes: &[u8]) -> Result<bool> {
        if !self.claim(&hash, bytes.len() as u64) {
            return Ok(false);
        }
        let tmp = self.tmp_path();
        let written = if bytes.len() as u64 >= EARLY_SYNC_MIN {
            write_direct(&tmp, bytes)
        } else {
            File::create(&tmp).and_then(|mut f| f.write_all(bytes).map(|()| f))
        };
        match written {
            Ok(file) => {
                self.add_pending(tmp, hash, file, bytes.len() as u64);
                Ok(true)
            }
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(Error::io("write blob", &tmp)(e))
            }
        }
    }

    /// Records a written temp file; a big one goes to the syncer now.
    fn add_pending(&self, tmp: PathBuf, hash: Hash, file: File, size: u64) {
        let early = size >= EARLY_SYNC_MIN && {
            let mut syncer = self.syncer.lock().unwrap_or_else(|e| e.into_inner());
            // A send fails only if the thread is gone; commit then syncs
            // the file itself.
            syncer
                .get_or_insert_with(Syncer::start)
                .tx
                .send((file, tmp.clone()))
                .is_ok()
        };
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Pending { tmp, hash, early });
    }

    /// Hashes a workspace file and stores it if new. `size_hint` is the size
    /// from the walk (decides between reading whole and streaming). Never
    /// follows a symlink at `src`.
    pub fn put_file(&self, src: &Path, size_hint: u64) -> Result<PutOutcome> {
        let mut file = open_nofollow(src).map_err(Error::io("open", src))?;
        if size_hint <= IN_MEMORY_LIMIT {
            let mut bytes = Vec::with_capacity(usize::try_from(size_hint).unwrap_or(0));
            file.read_to_end(&mut bytes).map_err(Error::io("read", src))?;
            let hash = Hash::of(&bytes);
            let written = self.put_bytes(hash, &bytes)?;
            return Ok(PutOutcome {
                hash,
                size: bytes.len() as u64,
                written,
            });
        }
        // Big file: hash while copying to a temp file, so it is read once
        // and what is stored is exactly what was hashed.
        let tmp = self.tmp_path();
        let (hash, size, out) = match copy_hashing(&mut file, src, &tmp) {
            Ok(done) => done,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if self.claim(&hash, size) {
            self.add_pending(tmp, hash, out, size);
            Ok(PutOutcome {
                hash,
                size,
                written: true,
            })
        } else {
            drop(out);
            let _ = fs::remove_file(&tmp);
            Ok(PutOutcome {
                hash,
                size,
                written: false,
            })
        }
    }

    /// Makes every blob of the batch durable under its final name. Returns
    /// how many blobs were added.
    pub fn commit(self) -> Result<usize> {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let syncer = self.syncer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if pending.is_empty() {
            return Ok(0);
        }
        // 1. Content durable before any final name exists.
        let late: Vec<&Pending> = pending.iter().filter(|p| !p.early).collect();
        if late.len() <= FSYNC_BATCH_LIMIT {
            for p in &late {
                File::open(&p.tmp)
                    .and_then(|f| f.sync_data())
                    .map_err(Error::io("sync", &p.tmp))?;
            }
        } else {
            syncfs(&self.store.tmp_dir())?;
        }
        if let Some(syncer) = syncer {
            syncer.finish()?;
        }
        // 2. Final names, then make the names durable.
        let mut dirs = HashSet::new();
        for p in &pending {
            let dest = self.store.path_of(&p.hash);
            let fan_out = dest.parent().unwrap_or(&self.store.root);
            match fs::rename(&p.tmp, &dest) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !fan_out.is_dir() => {
                    match fs::create_dir(fan_out) {
                        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                            return Err(Error::io("create", fan_out)(e));
                        }
                        _ => {}
                    }
                    // The new folder's name must be durable too.
                    dirs.insert(self.store.root.clone());
                    fs::rename(&p.tmp, &dest).map_err(Error::io("store blob", &dest))?;
                }
                other => other.map_err(Error::io("store blob", &dest))?,
            }
            dirs.insert(fan_out.to_path_buf());
        }
        if dirs.len() < FSYNC_BATCH_LIMIT {
            dirs.insert(self.store.tmp_dir());
            for d in dirs {
                File::open(&d)
                    .and_then(|f| f.sync_all())
                    .map_err(Error::io("sync", &d))?;
            }
        } else {
            syncfs(&self.store.root)?;
        }
        Ok(pending.len())
    }
}

impl Drop for BlobBatch<'_> {
    fn drop(&mut self) {
        // An uncommitted batch (an error, a cancel) leaves no temp files.
        for p in self.pending.get_mut().unwrap_or_else(|e| e.into_inner()).drain(..) {
            let _ = fs::remove_file(p.tmp);
        }
    }
}

#[cfg(test)]
mod tests;
