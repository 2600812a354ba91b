//! Confinement: the one rule for reaching a path inside a workspace.
//!
//! A workspace-relative path is first normalized ([`super::path`]: no `..`,
//! no absolute path, no NUL). Then every folder on the way to it is
//! `lstat`ed: a folder that turns out to be a symlink (or a file) would lead
//! the write, read or delete somewhere else — possibly outside the
//! workspace — so the path is refused. A folder that does not exist yet is
//! fine: nothing there can be followed, and whoever creates it creates a
//! real folder. The last segment is the caller's to check, because each
//! operation needs a different answer there (reads open it with
//! `O_NOFOLLOW`, writes refuse a symlink or a folder, deletes unlink it).
//!
//! Every code path that touches a workspace by a path it did not walk
//! itself — builtin tools, editor saves and restores, uploads, materialize —
//! goes through [`check_way`] (or [`resolve`], which adds normalization).

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::path::normalize;
use crate::{Error, Result};

/// What stands on the way to a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Way {
    /// Every folder on the way is a real folder, or missing.
    Clear,
    /// `at` (a prefix of the path) is a symlink, or not a folder.
    Blocked { at: String, symlink: bool },
}

/// The folders on the way to `rel`, outermost first: `a/b/c` gives `a`,
/// `a/b`.
pub fn folders_on_the_way(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(i, _)| &rel[..i])
}

/// Checks every folder on the way to the clean relative path `rel` inside
/// `root`. `known_real` caches prefixes already found to be real folders
/// (a walk over many paths lstat's each folder once); pass an empty set for
/// one path.
pub fn check_way(root: &Path, rel: &str, known_real: &mut HashSet<String>) -> Way {
    for prefix in folders_on_the_way(rel) {
        if known_real.contains(prefix) {
            continue;
        }
        match fs::symlink_metadata(root.join(prefix)) {
            Ok(m) if m.is_dir() => {
                known_real.insert(prefix.to_owned());
            }
            Ok(m) => {
                return Way::Blocked {
                    at: prefix.to_owned(),
                    symlink: m.file_type().is_symlink(),
                };
            }
            // Missing: nothing beyond it exists to follow.
            Err(_) => return Way::Clear,
        }
    }
    Way::Clear
}

/// Normalizes a path a person or a tool gave and checks the way to it:
/// `(normalized, absolute)`. The last segment is not checked (see the
/// module doc).
pub fn resolve(root: &Path, raw: &str) -> Result<(String, PathBuf)> {
    let rel = normalize(raw)?;
    match check_way(root, &rel, &mut HashSet::new()) {
        Way::Clear => {
            let abs = root.join(&rel);
            Ok((rel, abs))
        }
        Way::Blocked { symlink, .. } => Err(Error::InvalidPath {
            path: raw.to_owned(),
            reason: if symlink {
                "a folder on the path is a symlink"
            } else {
                "a folder on the path is a file"
            },
        }),
    }
}

/// [`resolve`] for a folder to read (a listing): the folder itself must be
/// a real folder too, never a symlink to one.
pub fn resolve_folder(root: &Path, raw: &str) -> Result<(String, PathBuf)> {
    let (rel, abs) = resolve(root, raw)?;
    match fs::symlink_metadata(&abs) {
        Ok(m) if m.is_dir() => Ok((rel, abs)),
        Ok(m) => Err(Error::InvalidPath {
            path: rel,
            reason: if m.file_type().is_symlink() {
                "it is a symlink"
            } else {
                "it is not a folder"
            },
        }),
        Err(e) => Err(Error::io("list", abs)(e)),
    }
}

/// Writes a workspace file (creating folders; never through a symlink or
/// over a folder), atomically. A file it replaces keeps its permissions (as
/// `>` in a shell keeps them): an editor save or a tool's write never makes
/// a 0600 `.env` readable by others, nor a script lose its x bit. Returns
/// the normalized path.
pub fn write_file(root: &Path, raw: &str, bytes: &[u8]) -> Result<String> {
    write_file_as(root, raw, bytes, None)
}

/// [`write_file`] with exactly `mode` (a manifest entry's, for a file put
/// back as a node had it), or the replaced file's permissions when `None`.
pub fn write_file_as(root: &Path, raw: &str, bytes: &[u8], mode: Option<u32>) -> Result<String> {
    let (rel, abs) = resolve(root, raw)?;
    if let Some(dir) = abs.parent() {
        fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
    }
    let existing = fs::symlink_metadata(&abs).ok();
    if existing
        .as_ref()
        .is_some_and(|m| m.file_type().is_symlink() || m.is_dir())
    {
        return Err(Error::InvalidPath {
            path: rel,
            reason: "it is a symlink or a folder",
        });
    }
    let mode = mode.or_else(|| existing.filter(fs::Metadata::is_file).map(|m| m.mode() & 0o777));
    write_atomic(&abs, bytes, mode)?;
    Ok(rel)
}

/// Writes `bytes` to `abs` through a temp file and a rename, so a reader
/// never sees half a file. The temp file is created new (`O_EXCL`, which
/// also refuses a symlink planted at its name) under a fresh random name:
/// nothing a tool left in the folder can redirect the write. It is made
/// with `mode` from the start (never wider for a moment), set again after
/// the umask; without one, as the umask makes new files.
fn write_atomic(abs: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let name = abs.file_name().and_then(|n| n.to_str()).unwrap_or("f");
    let (mut f, tmp) = create_new_temp(abs, name, mode)?;
    let mut written = f.write_all(bytes).map_err(Error::io("write", &tmp));
    if let (Ok(()), Some(mode)) = (&written, mode) {
        written = f
            .set_permissions(fs::Permissions::from_mode(mode))
            .map_err(Error::io("set permissions of", &tmp));
    }
    drop(f);
    let done = written.and_then(|()| fs::rename(&tmp, abs).map_err(Error::io("write", abs)));
    if done.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    done
}

/// A new file beside `abs`, named `.<name>.<random>.atelier-tmp`.
fn create_new_temp(abs: &Path, name: &str, mode: Option<u32>) -> Result<(fs::File, PathBuf)> {
    let mut last = None;
    for _ in 0..8 {
        let tmp = abs.with_file_name(format!(".{name}.{}.atelier-tmp", crate::ids::new_id()));
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            options.mode(mode);
        }
        match options.open(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some((e, tmp)),
            Err(e) => return Err(Error::io("write", &tmp)(e)),
        }
    }
    let (e, tmp) = last.unwrap_or_else(|| (std::io::Error::other("no temp name"), abs.to_path_buf()));
    Err(Error::io("write", &tmp)(e))
}

/// Opens a workspace file to read: never through a symlink (not on the way,
/// not at the end), and only a regular file — a FIFO would block the open
/// forever, a device could be anything. Returns the normalized path, the
/// open file and its size.
pub fn open_regular(root: &Path, raw: &str) -> Result<(String, fs::File, u64)> {
    let (rel, abs) = resolve(root, raw)?;
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
    // waiting; a regular file ignores the flag.
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(&abs)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => Error::InvalidPath {
                path: rel.clone(),
                reason: "it is a symlink",
            },
            _ if e.kind() == std::io::ErrorKind::NotFound => Error::NotInWorkspace { path: rel.clone() },
            _ => Error::io("read", &abs)(e),
        })?;
    let meta = f.metadata().map_err(Error::io("read", &abs))?;
    if !meta.is_file() {
        return Err(Error::InvalidPath {
            path: rel,
            reason: if meta.is_dir() {
                "it is a folder"
            } else {
                "it is not a regular file"
            },
        });
    }
    Ok((rel, f, meta.len()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
        let ws = tempfile::tempdir().expect("test step");
        let outside = tempfile::tempdir().expect("test step");
        fs::create_dir_all(ws.path().join("real/deep")).expect("test step");
        fs::write(ws.path().join("file.txt"), "x").expect("test step");
        symlink(outside.path(), ws.path().join("out")).expect("test step");
        (ws, outside)
    }

    #[test]
    fn folders_on_the_way_are_every_proper_prefix() {
        assert_eq!(folders_on_the_way("a/b/c").collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!(folders_on_the_way("a").count(), 0);
    }

    #[test]
    fn a_symlinked_or_file_folder_blocks_the_way_and_a_missing_one_does_not() {
        let (ws, _outside) = setup();
        let root = ws.path();
        let mut cache = HashSet::new();
        assert_eq!(check_way(root, "real/deep/x.txt", &mut cache), Way::Clear);
        assert!(cache.contains("real/deep"));
        assert_eq!(check_way(root, "new/folder/x.txt", &mut cache), Way::Clear);
        assert_eq!(
            check_way(root, "out/x.txt", &mut cache),
            Way::Blocked {
                at: "out".into(),
                symlink: true
            }
        );
        assert_eq!(
            check_way(root, "file.txt/x", &mut cache),
            Way::Blocked {
                at: "file.txt".into(),
                symlink: false
            }
        );
    }

    #[test]
    fn nothing_is_written_through_a_symlink_or_with_dot_dot() {
        let (ws, outside) = setup();
        let root = ws.path();
        assert!(write_file(root, "out/evil.txt", b"x").is_err());
        assert!(write_file(root, "../evil.txt", b"x").is_err());
        assert!(write_file(root, "/tmp/evil.txt", b"x").is_err());
        symlink(outside.path().join("target.txt"), root.join("link.txt")).expect("test step");
        assert!(write_file(root, "link.txt", b"x").is_err());
        assert_eq!(
            fs::read_dir(outside.path()).expect("test step").count(),
            0,
            "nothing reached the outside folder"
        );
        assert_eq!(write_file(root, "./a//b.txt", b"ok").expect("test step"), "a/b.txt");
        assert_eq!(fs::read(root.join("a/b.txt")).expect("test step"), b"ok");
    }

    #[test]
    fn a_symlink_planted_at_a_temp_name_cannot_redirect_a_write() {
        let (ws, outside) = setup();
        let root = ws.path();
        let victim = outside.path().join("victim.txt");
        // The temp name the old code used, planted by a tool.
        symlink(&victim, root.join(".notes.txt.atelier-tmp")).expect("plant");
        assert_eq!(write_file(root, "notes.txt", b"mine").expect("write"), "notes.txt");
        assert_eq!(fs::read(root.join("notes.txt")).expect("read"), b"mine");
        assert!(!victim.exists(), "nothing was written outside the workspace");
        assert!(root.join("notes.txt").symlink_metadata().expect("stat").is_file());
    }

    #[test]
    fn a_write_keeps_the_mode_of_the_file_it_replaces_or_sets_the_one_asked() {
        let (ws, _outside) = setup();
        let root = ws.path();
        let mode = |rel: &str| fs::metadata(root.join(rel)).expect("stat").mode() & 0o777;
        for (rel, m) in [(".env", 0o600), ("run.sh", 0o755), ("key", 0o700)] {
            fs::write(root.join(rel), "old").expect("write");
            fs::set_permissions(root.join(rel), fs::Permissions::from_mode(m)).expect("chmod");
            write_file(root, rel, b"new").expect("save");
            assert_eq!((rel, mode(rel)), (rel, m), "an editor save keeps the mode");
        }
        write_file_as(root, "run.sh", b"back", Some(0o600)).expect("restore");
        assert_eq!(mode("run.sh"), 0o600, "a restore puts the node's mode back");
        assert_eq!(fs::read(root.join("run.sh")).expect("read"), b"back");
    }

    #[test]
    fn only_regular_files_open_for_reading() {
        let (ws, outside) = setup();
        let root = ws.path();
        let fifo = root.join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
        // Returns at once (no writer would ever come) with a clear refusal.
        let err = open_regular(root, "pipe").expect_err("a FIFO").to_string();
        assert!(err.contains("not a regular file"), "{err}");
        fs::write(outside.path().join("secret"), "s").expect("write");
        symlink(outside.path().join("secret"), root.join("link")).expect("link");
        let err = open_regular(root, "link").expect_err("a symlink").to_string();
        assert!(err.contains("symlink"), "{err}");
        assert!(open_regular(root, "real").is_err(), "a folder");
        let (rel, _, size) = open_regular(root, "./file.txt").expect("a file");
        assert_eq!((rel.as_str(), size), ("file.txt", 1));
    }

    #[test]
    fn a_folder_to_list_must_itself_be_real() {
        let (ws, _outside) = setup();
        let root = ws.path();
        assert!(resolve_folder(root, "real").is_ok());
        let err = resolve_folder(root, "out").expect_err("must be refused").to_string();
        assert!(err.contains("symlink"), "{err}");
        assert!(resolve_folder(root, "file.txt").is_err());
    }
}
