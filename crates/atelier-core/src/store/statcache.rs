//! The stat cache (git's index, minus staging): path → (stat, hash).
//!
//! A snapshot re-reads a file only if its stat (size, mtime, ctime, inode,
//! mode) differs from the cached one, so "nothing changed" costs a walk of
//! metadata. The whole mode is compared, so a `chmod` alone (the x bit, or
//! a file made private) is never hidden by the cache. Git's "racily clean" rule applies: a file whose mtime or ctime
//! is not older than the cache file itself may have been changed in the same
//! clock tick after it was hashed, so it is re-hashed.
//!
//! The cache lives in `chats/<id>/index`, is written atomically (temp file +
//! rename), and carries a checksum: a torn or foreign file is ignored
//! (everything is re-hashed once), never trusted.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::Hash;
use crate::{Error, Result};

const MAGIC: &[u8; 8] = b"ATLIDX2\n";

/// The parts of a file's metadata that change when its content may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime: (i64, u32),
    pub ctime: (i64, u32),
    pub ino: u64,
    pub mode: u32,
}

impl Stat {
    pub fn of(md: &Metadata) -> Self {
        Self {
            size: md.size(),
            mtime: (md.mtime(), u32::try_from(md.mtime_nsec()).unwrap_or(0)),
            ctime: (md.ctime(), u32::try_from(md.ctime_nsec()).unwrap_or(0)),
            ino: md.ino(),
            mode: md.mode(),
        }
    }

    /// The executable bit as the store keeps it (the owner's x bit).
    pub fn executable(&self) -> bool {
        self.mode & 0o100 != 0
    }

    /// Whether the store keeps the file as private: no group or other
    /// permission bit is set.
    pub fn private(&self) -> bool {
        self.mode & 0o077 == 0
    }

    /// The manifest entry of a file with this stat and content `hash`.
    pub fn entry(&self, hash: Hash) -> super::FileEntry {
        super::FileEntry {
            hash,
            size: self.size,
            executable: self.executable(),
            private: self.private(),
        }
    }
}

/// The cache of one workspace.
#[derive(Debug, Clone, Default)]
pub struct StatCache {
    entries: HashMap<String, (Stat, Hash)>,
    /// mtime of the cache file when it was loaded; entries touched at or
    /// after it are racily clean.
    written_at: Option<(i64, u32)>,
    /// Whether anything changed since load (an unchanged cache is not
    /// rewritten).
    dirty: bool,
    /// The root tree of the manifest these entries describe, when the
    /// cache covers exactly the files of that manifest (set by the
    /// workspace layer after a snapshot or a materialize).
    root: Option<Hash>,
}

impl StatCache {
    /// Loads the cache, or an empty one if it is missing or unreadable.
    pub fn load(path: &Path) -> Self {
        let Ok(bytes) = fs::read(path) else {
            return Self::default();
        };
        let written_at = fs::metadata(path).ok().map(|m| Stat::of(&m).mtime);
        match decode(&bytes) {
            Some((entries, root)) => Self {
                entries,
                written_at,
                dirty: false,
                root,
            },
            None => {
                tracing::warn!(path = %path.display(), "ignoring an unreadable stat cache; files will be re-hashed");
                Self::default()
            }
        }
    }

    /// The last recorded version of `path` (whatever its stat is now), as a
    /// manifest entry: what a snapshot keeps for a file it cannot read.
    pub fn last_recorded(&self, path: &str) -> Option<super::FileEntry> {
        self.entries.get(path).map(|(stat, hash)| stat.entry(*hash))
    }

    /// The recorded paths under the folder `prefix` (ending in `/`).
    pub fn recorded_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .keys()
            .filter(move |p| p.starts_with(prefix))
            .map(String::as_str)
    }

    /// The stat recorded with `path`, as it was when its content was read.
    pub fn recorded_stat(&self, path: &str) -> Option<Stat> {
        self.entries.get(path).map(|(stat, _)| *stat)
    }

    /// The cached hash of `path` if `stat` proves it unchanged.
    pub fn lookup(&self, path: &str, stat: &Stat) -> Option<Hash> {
        let (cached, hash) = self.entries.get(path)?;
        if cached != stat {
            return None;
        }
        match self.written_at {
            Some(w) if stat.mtime < w && stat.ctime < w => Some(*hash),
            _ => None,
        }
    }

    pub fn insert(&mut self, path: String, stat: Stat, hash: Hash) {
        // Always dirty, even for an identical entry: that entry was re-read
        // because it was racily clean, and saving moves the cache's own
        // timestamp past it.
        self.entries.insert(path, (stat, hash));
        self.dirty = true;
    }

    pub fn remove(&mut self, path: &str) {
        if self.entries.remove(path).is_some() {
            self.dirty = true;
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps only the paths for which `keep` returns true.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|p, _| keep(p));
        self.dirty |= self.entries.len() != before;
    }

    /// The root tree this cache describes, if known.
    pub fn root(&self) -> Option<Hash> {
        self.root
    }

    /// Records which manifest (by root tree) the entries describe.
    pub fn set_root(&mut self, root: Hash) {
        if self.root != Some(root) {
            self.root = Some(root);
            self.dirty = true;
        }
    }

    /// Forgets which manifest the entries describe: the folder differs from
    /// it (files a person changed during a checkout), so the next snapshot
    /// compares every file.
    pub fn forget_root(&mut self) {
        if self.root.take().is_some() {
            self.dirty = true;
        }
    }

    /// Whether [`StatCache::save`] has anything new to write.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Writes the cache atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let tmp = path.with_extension("tmp");
        fs::write(&tmp, encode(&self.entries, self.root)).map_err(Error::io("write", &tmp))?;
        fs::rename(&tmp, path).map_err(Error::io("write", path))
    }
}

fn encode(entries: &HashMap<String, (Stat, Hash)>, root: Option<Hash>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + entries.len() * 120);
    out.extend_from_slice(MAGIC);
    out.push(u8::from(root.is_some()));
    out.extend_from_slice(&root.unwrap_or(Hash([0; 32])).0);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (path, (s, h)) in entries {
        out.extend_from_slice(&(path.len() as u32).to_le_bytes());
        out.extend_from_slice(path.as_bytes());
        out.extend_from_slice(&s.size.to_le_bytes());
        out.extend_from_slice(&s.mtime.0.to_le_bytes());
        out.extend_from_slice(&s.mtime.1.to_le_bytes());
        out.extend_from_slice(&s.ctime.0.to_le_bytes());
        out.extend_from_slice(&s.ctime.1.to_le_bytes());
        out.extend_from_slice(&s.ino.to_le_bytes());
        out.extend_from_slice(&s.mode.to_le_bytes());
        out.extend_from_slice(&h.0);
    }
    let sum = Hash::of(&out);
    out.extend_from_slice(&sum.0);
    out
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
}

type Decoded = (HashMap<String, (Stat, Hash)>, Option<Hash>);

fn decode(bytes: &[u8]) -> Option<Decoded> {
    let (body, sum) = bytes.split_last_chunk::<32>()?;
    if Hash::of(body).0 != *sum || !body.starts_with(MAGIC) {
        return None;
    }
    let mut r = Reader(&body[MAGIC.len()..]);
    let has_root = r.take::<1>()?[0] == 1;
    let root = Hash(r.take()?);
    let root = has_root.then_some(root);
    let count = u64::from_le_bytes(r.take()?);
    let mut entries = HashMap::with_capacity(usize::try_from(count).ok()?.min(1 << 20));
    for _ in 0..count {
        let len = u32::from_le_bytes(r.take()?) as usize;
        let path = std::str::from_utf8(r.bytes(len)?).ok()?.to_owned();
        let stat = Stat {
            size: u64::from_le_bytes(r.take()?),
            mtime: (i64::from_le_bytes(r.take()?), u32::from_le_bytes(r.take()?)),
            ctime: (i64::from_le_bytes(r.take()?), u32::from_le_bytes(r.take()?)),
            ino: u64::from_le_bytes(r.take()?),
            mode: u32::from_le_bytes(r.take()?),
        };
        entries.insert(path, (stat, Hash(r.take()?)));
    }
    r.0.is_empty().then_some((entries, root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_racy_rule() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let f = dir.path().join("f");
        fs::write(&f, "x")?;
        let stat = Stat::of(&fs::metadata(&f)?);
        let mut c = StatCache::default();
        c.insert("f".into(), stat, Hash::of(b"x"));
        let idx = dir.path().join("index");
        c.save(&idx)?;
        let loaded = StatCache::load(&idx);
        assert_eq!(loaded.len(), 1);
        // Written in the same tick or later than the file: may be clean…
        let fresh = Stat {
            mtime: (stat.mtime.0 - 10, 0),
            ctime: (stat.ctime.0 - 10, 0),
            ..stat
        };
        let mut c2 = StatCache::default();
        c2.insert("f".into(), fresh, Hash::of(b"x"));
        c2.save(&idx)?;
        let loaded = StatCache::load(&idx);
        assert_eq!(loaded.lookup("f", &fresh), Some(Hash::of(b"x")));
        assert_eq!(
            loaded.lookup("f", &Stat { size: 2, ..fresh }),
            None,
            "a changed size is a miss"
        );
        // …but a file as new as the cache itself is racily clean: a miss.
        let racy = Stat {
            mtime: (i64::MAX, 0),
            ..fresh
        };
        let mut c3 = StatCache::default();
        c3.insert("f".into(), racy, Hash::of(b"x"));
        c3.save(&idx)?;
        assert_eq!(StatCache::load(&idx).lookup("f", &racy), None);
        Ok(())
    }

    #[test]
    fn a_torn_cache_is_ignored() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let idx = dir.path().join("index");
        let mut c = StatCache::default();
        let stat = Stat::of(&fs::metadata(dir.path())?);
        c.insert("a".into(), stat, Hash::of(b"a"));
        c.save(&idx)?;
        let mut bytes = fs::read(&idx)?;
        bytes.truncate(bytes.len() - 5);
        fs::write(&idx, bytes)?;
        assert!(StatCache::load(&idx).is_empty());
        Ok(())
    }
}
