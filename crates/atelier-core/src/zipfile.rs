//! Writing ZIPs deterministically: the same contents give the same bytes,
//! so an exported toolset or workspace can be compared and re-imported.
//!
//! Used by toolset export and workspace export; reading (untrusted) ZIPs is
//! the bundle reader's job, with its own safety rules.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A deterministic ZIP: entries sorted, fixed timestamps (1980-01-01) and
/// permissions, no extra fields. `contents` maps bundle paths to bytes or to
/// a file to copy.
pub fn write_zip(out: &Path, contents: &BTreeMap<String, Content>) -> Result<()> {
    write_zip_with(out, contents, zip::DateTime::default(), &BTreeMap::new())
}

/// [`write_zip`] with every entry dated `modified`, and the entries named in
/// `modes` given that mode (0755 for a script, 0600 for a private file);
/// the others say 0644. An archive holding an entry only its owner may read
/// is itself made 0600 from its first byte: until someone unpacks it (and
/// the entry's mode is put back), the archive's mode is all that protects
/// that entry's bytes.
pub fn write_zip_with(
    out: &Path,
    contents: &BTreeMap<String, Content>,
    modified: zip::DateTime,
    modes: &BTreeMap<String, u32>,
) -> Result<()> {
    let private = modes.values().any(|m| m & 0o077 == 0);
    let tmp = out.with_extension("zip.partial");
    let result = (|| {
        let file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(if private { 0o600 } else { 0o666 })
            .open(&tmp)
            .map_err(Error::io("create", &tmp))?;
        // A partial file left by a killed export keeps its old mode when
        // opened again: a private archive is made 0600 whatever it was.
        if private {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(0o600))
                .map_err(Error::io("set permissions of", &tmp))?;
        }
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(modified)
            .unix_permissions(0o644);
        for (name, content) in contents {
            let zerr = |e: zip::result::ZipError| Error::io("write", &tmp)(std::io::Error::other(e));
            let mode = modes.get(name).copied().unwrap_or(0o644);
            // ZIP64 only where an entry needs it (4 GiB and more): the zip
            // crate refuses to write past 4 GiB into an entry without it,
            // and small entries keep the plain, widely read form.
            let size = match content {
                Content::Bytes(b) => b.len() as u64,
                Content::File(p) => fs::metadata(p).map_err(Error::io("read", p))?.len(),
            };
            let options = options.unix_permissions(mode).large_file(size >= u64::from(u32::MAX));
            zip.start_file(name.as_str(), options).map_err(zerr)?;
            match content {
                Content::Bytes(b) => zip.write_all(b).map_err(Error::io("write", &tmp))?,
                Content::File(p) => {
                    let mut f = File::open(p).map_err(Error::io("read", p))?;
                    std::io::copy(&mut f, &mut zip).map_err(Error::io("write", &tmp))?;
                }
            }
        }
        let file = zip
            .finish()
            .map_err(|e| Error::io("write", &tmp)(std::io::Error::other(e)))?;
        file.sync_all().map_err(Error::io("sync", &tmp))?;
        fs::rename(&tmp, out).map_err(Error::io("write", out))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// What goes into a ZIP entry.
#[derive(Debug, Clone)]
pub enum Content {
    Bytes(Vec<u8>),
    File(PathBuf),
}
