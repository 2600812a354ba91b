//! A ZIP's central directory as written: every entry name, duplicates
//! included.
//!
//! The `zip` crate indexes entries by name, so of two entries named
//! `tools/e.py` it keeps one and counts one: a bundle could hide a second
//! file (which one is installed depends on the reader) and have more
//! entries than the limit. This reads the directory records themselves.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::{Error, Result};

const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 2).map(|s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 4)
        .map(|s| u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]])))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8).map(|s| {
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        u64::from_le_bytes(a)
    })
}

/// The number of entries the archive declares, and the raw names of its
/// central directory records in order — all of them, unless there are more
/// than `limit` (then none are read: the count says enough).
pub(crate) fn entry_names(path: &Path, limit: usize) -> Result<(u64, Vec<Vec<u8>>)> {
    let bad = |why: &str| Error::Bundle {
        bundle: path.display().to_string(),
        entry: None,
        message: format!("not a readable ZIP archive ({why})"),
    };
    let mut f = File::open(path).map_err(Error::io("open", path))?;
    let len = f.metadata().map_err(Error::io("read", path))?.len();
    // The end record is in the last 22 + 65,535 (comment) bytes.
    let tail_len = len.min(22 + 65_535);
    f.seek(SeekFrom::Start(len - tail_len))
        .map_err(Error::io("read", path))?;
    let mut tail = vec![0u8; usize::try_from(tail_len).unwrap_or(0)];
    f.read_exact(&mut tail).map_err(Error::io("read", path))?;
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == Some(u64::from(EOCD)))
        .ok_or_else(|| bad("no end of central directory"))?;
    let mut count = u16_at(&tail, at + 10).ok_or_else(|| bad("short end record"))?;
    let mut offset = u32_at(&tail, at + 16).ok_or_else(|| bad("short end record"))?;
    // ZIP64: the locator sits just before the end record.
    if (count == 0xFFFF || offset == 0xFFFF_FFFF)
        && at >= 20
        && u32_at(&tail, at - 20) == Some(u64::from(ZIP64_LOCATOR))
    {
        let record = u64_at(&tail, at - 20 + 8).ok_or_else(|| bad("short ZIP64 locator"))?;
        f.seek(SeekFrom::Start(record)).map_err(Error::io("read", path))?;
        let mut z = [0u8; 56];
        f.read_exact(&mut z).map_err(|_| bad("short ZIP64 end record"))?;
        if u32_at(&z, 0) != Some(u64::from(ZIP64_EOCD)) {
            return Err(bad("bad ZIP64 end record"));
        }
        count = u64_at(&z, 32).ok_or_else(|| bad("short ZIP64 end record"))?;
        offset = u64_at(&z, 48).ok_or_else(|| bad("short ZIP64 end record"))?;
    }
    if count > limit as u64 {
        return Ok((count, Vec::new()));
    }
    f.seek(SeekFrom::Start(offset)).map_err(Error::io("read", path))?;
    let mut reader = std::io::BufReader::new(f);
    let wanted = usize::try_from(count).unwrap_or(0);
    let mut names = Vec::with_capacity(wanted);
    for _ in 0..wanted {
        let mut h = [0u8; 46];
        reader
            .read_exact(&mut h)
            .map_err(|_| bad("central directory cut short"))?;
        if u32_at(&h, 0) != Some(u64::from(CENTRAL_HEADER)) {
            return Err(bad("bad central directory record"));
        }
        let (name_len, extra_len, comment_len) = (
            u16_at(&h, 28).unwrap_or(0),
            u16_at(&h, 30).unwrap_or(0),
            u16_at(&h, 32).unwrap_or(0),
        );
        let mut name = vec![0u8; usize::try_from(name_len).unwrap_or(0)];
        reader
            .read_exact(&mut name)
            .map_err(|_| bad("central directory cut short"))?;
        let skip = i64::try_from(extra_len + comment_len).unwrap_or(0);
        reader.seek_relative(skip).map_err(Error::io("read", path))?;
        names.push(name);
    }
    Ok((count, names))
}

/// The first name that occurs twice, if any.
pub(crate) fn first_duplicate(names: &[Vec<u8>]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .find(|n| !seen.insert(n.as_slice()))
        .map(|n| String::from_utf8_lossy(n).into_owned())
}
