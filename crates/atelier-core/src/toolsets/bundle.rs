//! Reading bundles safely: a ZIP unpacked into a staging folder, or a local
//! folder scanned in place. Every byte is untrusted.
//!
//! ZIP rules, each checked before anything lands outside the staging folder
//! (and the staging folder is removed on any failure): headers that agree
//! (local and central records, Unicode-path fields, no overlapping or
//! unlisted entries: what another ZIP tool shows is what is installed); at
//! most [`MAX_ENTRIES`] entries; names that are relative, without `..` or
//! drive letters; no symlinks, devices or other special entries; no
//! encrypted entries; only Store and Deflate; no duplicate names; at most
//! [`MAX_TOTAL`] bytes in all, counted while inflating (headers lie); no
//! entry over 1 MiB that inflates to more than [`MAX_RATIO`]× its
//! compressed size, nor an archive over [`MAX_TOTAL`] / [`MAX_RATIO`] that
//! does. `toolset.yaml` may sit at the root or in one top-level folder.
//!
//! Names as other people's tools write them: UTF-8 (flagged or not), else
//! the legacy code page CP437 (Windows' built-in "Compressed folder");
//! backslashes as separators (PowerShell's `Compress-Archive`); and
//! normalized to NFC (macOS writes decomposed accents) so they match the
//! paths a manifest names. The executable bit is kept (a bundled server
//! script). Folder import and ZIPs alike skip `.git`, `__pycache__`,
//! dotfiles and macOS and Windows debris — whatever kind of entry they
//! are: a symlink there (`.github/`, `node_modules/.bin/`) is skipped with
//! them, once the rules on names, devices and duplicates have passed.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

use sha2::Digest;

use super::validate::MANIFEST_FILE;
use super::zipnames::{check_method, clean_name, file_under_file};
use crate::store::{Hash, Observer, Progress};
use crate::{Error, Result};

pub const MAX_ENTRIES: usize = 10_000;
pub const MAX_TOTAL: u64 = 512 << 20;
pub const MAX_RATIO: u64 = 200;
/// Entries up to this size may have any ratio (tiny files compress well).
pub const RATIO_FLOOR: u64 = 1 << 20;
const CHUNK: usize = 256 << 10;

/// One file of a bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    pub sha256: Hash,
    pub size: u64,
}

/// A bundle's files, by `/`-separated relative path.
pub type Files = BTreeMap<String, FileInfo>;

/// Whether a path segment is skipped on import and pack.
pub fn is_ignored(segment: &str) -> bool {
    super::ignore::always_ignored(segment)
}

fn ignored_path(path: &str) -> bool {
    path.split('/').any(is_ignored)
}

/// A bundle error naming the bundle and the entry (a name of hostile
/// length is shown by its start).
/// A size in the units a person reads: "512 MiB", "4.0 GiB", "900 bytes".
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size {
            return if n.is_multiple_of(size) {
                format!("{} {unit}", n / size)
            } else {
                #[allow(clippy::cast_precision_loss)] // one decimal is all that is shown
                let v = n as f64 / size as f64;
                format!("{v:.1} {unit}")
            };
        }
    }
    format!("{n} bytes")
}

pub(super) fn reject(bundle: &Path, entry: Option<&str>, message: impl Into<String>) -> Error {
    let shown = |e: &str| {
        if e.chars().count() > 120 {
            format!("{}…", e.chars().take(120).collect::<String>())
        } else {
            e.to_owned()
        }
    };
    Error::Bundle {
        bundle: bundle.display().to_string(),
        entry: entry.map(shown),
        message: message.into(),
    }
}

/// Unpacks the ZIP at `zip_path` into `dest` (created; must not exist).
/// Returns the files, relative to the toolset root (a single top-level
/// folder holding `toolset.yaml` is stripped).
pub fn unpack_zip(zip_path: &Path, dest: &Path, observer: &Observer) -> Result<Files> {
    let file = File::open(zip_path).map_err(Error::io("open", zip_path))?;
    let size_on_disk = file.metadata().map_err(Error::io("read", zip_path))?.len();
    // Counted from the directory records, before the zip crate reads them
    // all (two million records cost it seconds and hundreds of MB), and
    // because it merges entries that share a name.
    let (count, recorded) = super::zipdir::entry_names(zip_path, MAX_ENTRIES)?;
    if count > MAX_ENTRIES as u64 {
        return Err(reject(
            zip_path,
            None,
            format!("{count} entries; a bundle may have at most {MAX_ENTRIES}"),
        ));
    }
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| reject(zip_path, None, format!("not a readable ZIP archive ({e})")))?;
    if let Some(name) = super::zipdir::first_duplicate(&recorded) {
        return Err(reject(
            zip_path,
            Some(&name),
            "duplicate entry name: two entries have it, and which one would be installed is not defined",
        ));
    }
    // Two readings of one archive must agree: a second local header under
    // a name, a Unicode-path field naming another file, entries sharing
    // bytes (a zip bomb's trick) or hidden between them would each let
    // another ZIP tool show files other than the ones installed.
    archive.validate_header_consistency().map_err(|e| {
        let said = e.to_string();
        let said = said.trim_start_matches("invalid Zip archive: ");
        reject(
            zip_path,
            None,
            format!("its headers contradict each other ({said}): other ZIP tools would show other files than the ones installed"),
        )
    })?;
    if count != archive.len() as u64 {
        return Err(reject(
            zip_path,
            None,
            format!(
                "its directory lists {count} entries to one reading and {} to another (a second directory hidden in the archive?)",
                archive.len()
            ),
        ));
    }
    // Pass 1: names and kinds, from the central directory.
    let mut entries: Vec<(usize, String, bool)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut declared: u64 = 0;
    for i in 0..archive.len() {
        let e = archive
            .by_index_raw(i)
            .map_err(|e| reject(zip_path, None, format!("unreadable entry #{i} ({e})")))?;
        let decoded = e
            .name()
            .map_err(|err| reject(zip_path, None, format!("entry #{i} has an unreadable name ({err})")))?;
        let name = clean_name(zip_path, &decoded)?;
        if e.encrypted() {
            return Err(reject(zip_path, Some(&name), "encrypted entries are not supported"));
        }
        if let Some(mode) = e.unix_mode() {
            let kind = mode & 0o170000;
            if ![0, 0o100000, 0o040000, 0o120000].contains(&kind) {
                return Err(reject(
                    zip_path,
                    Some(&name),
                    "device files, FIFOs and sockets are not allowed",
                ));
            }
        }
        if !seen.insert(name.clone()) {
            let raw = String::from_utf8_lossy(e.name_raw()).into_owned();
            return Err(reject(
                zip_path,
                Some(&raw),
                format!("duplicate entry name (another entry is also {name:?})"),
            ));
        }
        // What is skipped anyway is never written, a symlink included
        // (`git archive` keeps one under `.github/`; npm puts them in
        // `node_modules/.bin/`), as a folder import skips it.
        if ignored_path(&name) {
            continue;
        }
        if e.is_symlink() {
            return Err(reject(zip_path, Some(&name), "symlinks are not allowed in bundles"));
        }
        if e.is_dir() || name.is_empty() {
            continue;
        }
        check_method(zip_path, &name, e.compression())?;
        declared = declared.saturating_add(e.size());
        let executable = e.unix_mode().is_some_and(|m| m & 0o111 != 0);
        entries.push((i, name, executable));
    }
    if declared > MAX_TOTAL {
        return Err(reject(
            zip_path,
            None,
            format!(
                "{} uncompressed; a bundle may hold at most {}",
                human_bytes(declared),
                human_bytes(MAX_TOTAL)
            ),
        ));
    }
    if let Some(name) = file_under_file(entries.iter().map(|(_, n, _)| n.as_str())) {
        return Err(reject(
            zip_path,
            Some(&name),
            "a file of this name is also the folder of other entries",
        ));
    }
    let prefix = root_prefix(zip_path, entries.iter().map(|(_, n, _)| n.as_str()))?;

    // Pass 2: inflate, counting real bytes.
    fs::create_dir_all(dest).map_err(Error::io("create", dest))?;
    let result = (|| {
        let mut files = Files::new();
        let mut total: u64 = 0;
        let bytes_total = declared;
        for (n, (i, name, executable)) in entries.iter().enumerate() {
            observer.check()?;
            let rel = name.strip_prefix(prefix.as_str()).unwrap_or(name).to_owned();
            let mut e = archive
                .by_index(*i)
                .map_err(|e| reject(zip_path, Some(name), format!("cannot read ({e})")))?;
            let compressed = e.compressed_size().max(1);
            let out_path = dest.join(&rel);
            if let Some(dir) = out_path.parent() {
                fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
            }
            let mut out = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&out_path)
                .map_err(Error::io("create", &out_path))?;
            let mut hasher = sha2::Sha256::new();
            let mut buf = vec![0u8; CHUNK];
            let mut size: u64 = 0;
            loop {
                let k = e
                    .read(&mut buf)
                    .map_err(|err| reject(zip_path, Some(name), format!("corrupt data ({err})")))?;
                if k == 0 {
                    break;
                }
                size += k as u64;
                total += k as u64;
                if size > RATIO_FLOOR && size > compressed.saturating_mul(MAX_RATIO) {
                    return Err(reject(
                        zip_path,
                        Some(name),
                        format!(
                            "inflates to more than {MAX_RATIO}× its compressed size ({}): a zip bomb?",
                            human_bytes(compressed)
                        ),
                    ));
                }
                if total > MAX_TOTAL {
                    return Err(reject(
                        zip_path,
                        None,
                        format!("more than {} uncompressed", human_bytes(MAX_TOTAL)),
                    ));
                }
                if total > RATIO_FLOOR * 64 && total > size_on_disk.saturating_mul(MAX_RATIO) {
                    return Err(reject(
                        zip_path,
                        None,
                        format!(
                            "inflates to more than {MAX_RATIO}× the archive's size ({}): a zip bomb?",
                            human_bytes(size_on_disk)
                        ),
                    ));
                }
                hasher.update(&buf[..k]);
                out.write_all(&buf[..k]).map_err(Error::io("write", &out_path))?;
            }
            if *executable {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&out_path, fs::Permissions::from_mode(0o755))
                    .map_err(Error::io("write", &out_path))?;
            }
            files.insert(
                rel,
                FileInfo {
                    sha256: Hash(hasher.finalize().into()),
                    size,
                },
            );
            observer.progress(Progress {
                files_done: n as u64 + 1,
                files_total: entries.len() as u64,
                bytes_done: total,
                bytes_total,
            });
        }
        Ok(files)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(dest);
    }
    result
}

/// `""` if `toolset.yaml` is at the root, `"x/"` if every entry is under one
/// folder `x` holding it.
fn root_prefix<'a>(bundle: &Path, names: impl Iterator<Item = &'a str> + Clone) -> Result<String> {
    if names.clone().any(|n| n == MANIFEST_FILE) {
        return Ok(String::new());
    }
    let mut tops = names
        .clone()
        .filter_map(|n| n.split_once('/').map(|(t, _)| t))
        .collect::<Vec<_>>();
    tops.sort_unstable();
    tops.dedup();
    let all_nested = names.clone().all(|n| n.contains('/'));
    if let [top] = tops.as_slice()
        && all_nested
        && names.clone().any(|n| n == format!("{top}/{MANIFEST_FILE}"))
    {
        return Ok(format!("{top}/"));
    }
    Err(reject(
        bundle,
        None,
        super::not_found::explain(names, super::not_found::Place::Archive),
    ))
}

/// Lists a local toolset folder (skipping ignored names), hashing each file.
/// Symlinks are refused, like in ZIPs.
pub fn scan_folder(dir: &Path, observer: &Observer) -> Result<Files> {
    let ignore = super::ignore::Ignore::for_folder(dir);
    let mut files = Files::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((abs, prefix)) = stack.pop() {
        observer.check()?;
        for entry in fs::read_dir(&abs).map_err(Error::io("read folder", &abs))? {
            let entry = entry.map_err(Error::io("read folder", &abs))?;
            let Ok(name) = entry.file_name().into_string() else {
                return Err(reject(
                    dir,
                    Some(&entry.file_name().to_string_lossy()),
                    "the name is not valid UTF-8",
                ));
            };
            let rel = format!("{prefix}{name}");
            let ft = entry.file_type().map_err(Error::io("read", entry.path()))?;
            // A virtual environment by any name (it holds symlinks).
            if ignore.ignored(&rel, ft.is_dir()) || ft.is_dir() && entry.path().join("pyvenv.cfg").is_file() {
                continue;
            }
            if name.contains('\\') {
                return Err(reject(
                    dir,
                    Some(&rel),
                    "a backslash in a file name: ZIP tools on Windows read it as a folder, so this toolset could not be packed or exported safely; rename the file",
                ));
            }
            if ft.is_dir() {
                stack.push((entry.path(), format!("{rel}/")));
            } else if ft.is_file() {
                if files.len() >= MAX_ENTRIES {
                    return Err(reject(dir, None, format!("more than {MAX_ENTRIES} files")));
                }
                files.insert(rel, hash_file(&entry.path())?);
            } else {
                return Err(reject(
                    dir,
                    Some(&rel),
                    "symlinks and special files are not allowed in toolsets",
                ));
            }
        }
    }
    let total: u64 = files.values().map(|f| f.size).sum();
    if total > MAX_TOTAL {
        return Err(reject(
            dir,
            None,
            format!(
                "{}; a toolset may hold at most {}",
                human_bytes(total),
                human_bytes(MAX_TOTAL)
            ),
        ));
    }
    Ok(files)
}

/// Copies the scanned `files` of folder `dir` into `dest` — the snapshot a
/// local toolset runs from, so the author's next broken edit never reaches
/// a running version. `toolset.yaml` stays out: a local manifest may hold
/// its author's plain-text values, which never go into the data dir (the
/// rows hold the manifest). A file that changed since it was scanned fails
/// the copy: the version checked is the version installed.
pub fn copy_folder(dir: &Path, files: &Files, dest: &Path, observer: &Observer) -> Result<()> {
    fs::create_dir_all(dest).map_err(Error::io("create", dest))?;
    for (rel, info) in files {
        observer.check()?;
        if rel == MANIFEST_FILE {
            continue;
        }
        let (from, to) = (dir.join(rel), dest.join(rel));
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(Error::io("create", parent))?;
        }
        // Read once: the bytes checked are the bytes written.
        let bytes = fs::read(&from).map_err(Error::io("read", &from))?;
        if Hash::of(&bytes) != info.sha256 {
            return Err(reject(
                dir,
                Some(rel),
                "the file changed while it was being imported; try again",
            ));
        }
        fs::write(&to, &bytes).map_err(Error::io("write", &to))?;
        let mode = fs::metadata(&from).map_err(Error::io("read", &from))?.permissions();
        fs::set_permissions(&to, mode).map_err(Error::io("write", &to))?;
    }
    Ok(())
}

fn hash_file(path: &Path) -> Result<FileInfo> {
    let mut f = crate::store::blobs::open_nofollow(path).map_err(Error::io("open", path))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut size = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(Error::io("read", path))?;
        if k == 0 {
            break;
        }
        size += k as u64;
        hasher.update(&buf[..k]);
    }
    Ok(FileInfo {
        sha256: Hash(hasher.finalize().into()),
        size,
    })
}

#[cfg(test)]
mod size_words {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_bytes(MAX_TOTAL), "512 MiB");
        assert_eq!(human_bytes(4_294_969_317), "4.0 GiB");
        assert_eq!(human_bytes(4 << 30), "4 GiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(900), "900 bytes");
    }
}
