//! The names and methods of a ZIP's entries, as other people's tools write
//! them: decoded (UTF-8, else CP437) by the reader, then checked and made
//! one form — `/`-separated (a backslash is Windows' separator), NFC (macOS
//! writes decomposed accents), without empty or `.` parts; the methods
//! this reader inflates; a name that is both a file and a folder. The
//! bundle reader ([`super::bundle`]) applies them before anything lands.

use std::path::Path;

use super::bundle::reject;
use crate::Result;

/// The longest entry name, and the longest file or folder name in it
/// (what Linux file systems take).
pub(super) const MAX_NAME: usize = 1024;
pub(super) const MAX_SEGMENT: usize = 255;

/// Checks an entry name as the ZIP reader decoded it (UTF-8, else CP437);
/// returns it normalized: `/`-separated, NFC, without empty or `.` parts.
pub(super) fn clean_name(bundle: &Path, decoded: &str) -> Result<String> {
    use unicode_normalization::UnicodeNormalization;
    // A backslash is Windows' separator (PowerShell 5's Compress-Archive
    // writes it); read as one, `..\..\x` is refused as `..` below.
    let name: String = decoded.replace('\\', "/").nfc().collect();
    let bad = |m: &str| Err(reject(bundle, Some(&name), m.to_owned()));
    if name.len() > MAX_NAME || name.split('/').any(|seg| seg.len() > MAX_SEGMENT) {
        return bad("the name is too long: at most 255 bytes per file or folder name and 1,024 in all");
    }
    if name.starts_with('/') {
        return bad("absolute paths are not allowed");
    }
    if name.len() >= 2 && name.as_bytes()[1] == b':' && name.as_bytes()[0].is_ascii_alphabetic() {
        return bad("drive letters are not allowed");
    }
    if name.split('/').any(|s| s == "..") {
        return bad("`..` would write outside the toolset folder");
    }
    if name.contains('\0') {
        return bad("NUL in a name");
    }
    let norm: Vec<&str> = name.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
    Ok(norm.join("/"))
}

/// The ZIP methods this reader inflates: Store and Deflate (what every
/// tool writes by default). Any other gets its name and the way out.
pub(super) fn check_method(bundle: &Path, name: &str, method: zip::CompressionMethod) -> Result<()> {
    use zip::CompressionMethod as M;
    if matches!(method, M::Stored | M::Deflated) {
        return Ok(());
    }
    // Without the crate's codecs every other method is `Unsupported(code)`.
    let shown = format!("{method:?}");
    let code = shown
        .trim_start_matches("Unsupported(")
        .trim_end_matches(')')
        .parse::<u16>()
        .ok();
    let what = match code {
        Some(9) => "Deflate64".to_owned(),
        Some(12) => "bzip2".to_owned(),
        Some(14) => "LZMA".to_owned(),
        Some(93) => "Zstandard".to_owned(),
        Some(95) => "XZ".to_owned(),
        Some(98) => "PPMd".to_owned(),
        Some(n) => format!("method {n}"),
        None => shown,
    };
    Err(reject(
        bundle,
        Some(name),
        format!(
            "compressed with {what}, which Atelier does not read: pack the bundle again with Deflate (the usual ZIP method) or Store"
        ),
    ))
}

/// A name that is both a file and the folder of another entry (`a`, `a/b`).
pub(super) fn file_under_file<'a>(names: impl Iterator<Item = &'a str>) -> Option<String> {
    let names: std::collections::BTreeSet<&str> = names.collect();
    names.iter().find_map(|n| {
        let mut at = 0;
        while let Some(k) = n[at..].find('/') {
            let folder = &n[..at + k];
            if names.contains(folder) {
                return Some(folder.to_owned());
            }
            at += k + 1;
        }
        None
    })
}
