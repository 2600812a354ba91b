//! A manifest: the full state of a workspace, `{path: file}`.
//!
//! In memory a manifest is a flat sorted map; on disk it is a set of
//! [trees](super::tree). Comparing two manifests gives the [`Change`]s that
//! materialize applies and that diffs and change sets report.
//!
//! Modes are kept as git keeps them, plus one bit: whether a file is
//! *private* (no group or other permission, like an SSH key or a `.env`
//! made 0600). A file is written back as 0644 or 0755, or 0600 or 0700
//! when private; any other mode is not recorded. Without that bit a 0600
//! secret would come back readable by every local user after a checkout.

use std::collections::BTreeMap;

use super::Hash;

/// One file of a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileEntry {
    pub hash: Hash,
    pub size: u64,
    /// The owner's executable bit (as git keeps it).
    pub executable: bool,
    /// No group or other permission bit was set (`mode & 0o077 == 0`).
    pub private: bool,
}

impl FileEntry {
    /// The mode the entry records: 0644 or 0755, 0600 or 0700 when
    /// private.
    pub fn mode(&self) -> u32 {
        file_mode(self.executable, self.private)
    }

    /// The mode a file is written with: [`Self::mode`] narrowed by the
    /// umask as any program's new file is (under 027 a shared file is
    /// 0640, as it was before it went through the store), but never so far
    /// that a file recorded as shared reads as private (under 077 it would
    /// be 0600, and the next snapshot would record a change nobody made)
    /// or that its owner cannot read and write it.
    pub fn written_mode(&self) -> u32 {
        let mode = self.mode();
        let narrowed = mode & !umask();
        let looks_private = narrowed & 0o077 == 0;
        if narrowed & 0o600 != 0o600 || (looks_private && !self.private) {
            mode
        } else {
            narrowed
        }
    }
}

/// This process's umask, read once (`/proc/self/status`: reading it with
/// `umask(2)` means setting it, which races with every thread creating a
/// file); 022 where it cannot be read.
fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    })
}

/// The mode of a file with these two bits (see the module docs).
pub fn file_mode(executable: bool, private: bool) -> u32 {
    match (executable, private) {
        (false, false) => 0o644,
        (true, false) => 0o755,
        (false, true) => 0o600,
        (true, true) => 0o700,
    }
}

/// The state of a workspace: workspace-relative path → file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub files: BTreeMap<String, FileEntry>,
}

/// How a path differs between two manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added(FileEntry),
    Removed(FileEntry),
    /// Content or mode (executable or private) changed.
    Modified {
        from: FileEntry,
        to: FileEntry,
    },
}

impl Manifest {
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn get(&self, path: &str) -> Option<&FileEntry> {
        self.files.get(path)
    }

    /// Sum of the file sizes.
    pub fn total_size(&self) -> u64 {
        self.files.values().map(|f| f.size).sum()
    }

    /// What changes from `self` to `to`, in path order. Linear merge of two
    /// sorted maps.
    pub fn changes_to<'a>(&'a self, to: &'a Manifest) -> Vec<(&'a str, Change)> {
        let mut out = Vec::new();
        let mut a = self.files.iter().peekable();
        let mut b = to.files.iter().peekable();
        loop {
            match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some((pa, fa)), None) => {
                    out.push((pa.as_str(), Change::Removed(**fa)));
                    a.next();
                }
                (None, Some((pb, fb))) => {
                    out.push((pb.as_str(), Change::Added(**fb)));
                    b.next();
                }
                (Some((pa, fa)), Some((pb, fb))) => match pa.cmp(pb) {
                    std::cmp::Ordering::Less => {
                        out.push((pa.as_str(), Change::Removed(**fa)));
                        a.next();
                    }
                    std::cmp::Ordering::Greater => {
                        out.push((pb.as_str(), Change::Added(**fb)));
                        b.next();
                    }
                    std::cmp::Ordering::Equal => {
                        if fa != fb {
                            out.push((pa.as_str(), Change::Modified { from: **fa, to: **fb }));
                        }
                        a.next();
                        b.next();
                    }
                },
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(s: &str, executable: bool) -> FileEntry {
        FileEntry {
            hash: Hash::of(s.as_bytes()),
            size: s.len() as u64,
            executable,
            private: false,
        }
    }

    #[test]
    fn changes_cover_added_removed_modified_and_mode() {
        let mut a = Manifest::default();
        a.files.insert("keep".into(), entry("k", false));
        a.files.insert("gone".into(), entry("g", false));
        a.files.insert("edit".into(), entry("1", false));
        a.files.insert("chmod".into(), entry("c", false));
        a.files.insert("chmod600".into(), entry("s", false));
        let mut b = a.clone();
        b.files.remove("gone");
        b.files.insert("new".into(), entry("n", false));
        b.files.insert("edit".into(), entry("2", false));
        b.files.insert("chmod".into(), entry("c", true));
        b.files.insert(
            "chmod600".into(),
            FileEntry {
                private: true,
                ..entry("s", false)
            },
        );
        let ch: Vec<_> = a.changes_to(&b).into_iter().map(|(p, c)| (p.to_owned(), c)).collect();
        let names: Vec<_> = ch
            .iter()
            .map(|(p, c)| {
                format!(
                    "{p}:{}",
                    match c {
                        Change::Added(_) => "A",
                        Change::Removed(_) => "D",
                        Change::Modified { .. } => "M",
                    }
                )
            })
            .collect();
        assert_eq!(names, ["chmod:M", "chmod600:M", "edit:M", "gone:D", "new:A"]);
        assert!(a.changes_to(&a).is_empty());
    }

    #[test]
    fn modes_are_git_like_plus_private() {
        let e = entry("k", false);
        assert_eq!(e.mode(), 0o644);
        assert_eq!(FileEntry { executable: true, ..e }.mode(), 0o755);
        assert_eq!(FileEntry { private: true, ..e }.mode(), 0o600);
        assert_eq!(
            FileEntry {
                executable: true,
                private: true,
                ..e
            }
            .mode(),
            0o700
        );
    }
}
