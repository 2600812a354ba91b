//! A refused write said as what a person can act on: SQLite's "disk full"
//! and "read-only" codes, ENOSPC and a refused write inside a read-only
//! data dir become [`Error::DiskFull`] and [`Error::ReadOnly`] naming the
//! data dir. A database error does not say which file it came from, so the
//! data dirs this process opened are noted when they open ([`note_opened`],
//! [`note_read_only`]); an app or the CLI opens one, and a process that
//! opened several (a test) cannot tell which one it was.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::Error;

/// Data dirs noted by this process, in the order they opened.
struct Dirs(Mutex<Vec<PathBuf>>);

impl Dirs {
    const fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    fn note(&self, dir: &Path) {
        let mut dirs = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !dirs.iter().any(|d| d == dir) {
            dirs.push(dir.to_owned());
        }
    }

    /// The one noted dir; none when there are several.
    fn one(&self) -> Option<PathBuf> {
        match self.0.lock().unwrap_or_else(PoisonError::into_inner).as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }
}

/// The data dirs whose database this process opened.
static OPENED: Dirs = Dirs::new();
/// The data dirs this process opened read-only.
static READ_ONLY: Dirs = Dirs::new();

/// Notes that this process opened the database of `dir`: a full disk is
/// then said as the disk holding it.
pub(crate) fn note_opened(dir: &Path) {
    OPENED.note(dir);
}

/// Notes that this process opened `dir` read-only: a write SQLite or the
/// file system refuses there is then said as that.
pub(crate) fn note_read_only(dir: &Path) {
    READ_ONLY.note(dir);
}

/// The one data dir this process opened, if it opened one.
pub(super) fn opened_data_dir() -> Option<PathBuf> {
    OPENED.one()
}

/// The one data dir this process opened read-only, if it opened one.
pub(super) fn read_only_data_dir() -> Option<PathBuf> {
    READ_ONLY.one()
}

/// SQLite's primary result code of a database error (its extended bits
/// dropped): 13 is SQLITE_FULL, 8 SQLITE_READONLY.
fn primary_code(e: &sqlx::Error) -> Option<i32> {
    match e {
        sqlx::Error::Database(db) => db.code().and_then(|c| c.parse::<i32>().ok()).map(|c| c & 0xff),
        _ => None,
    }
}

/// Whether SQLite (or the file system under it) refused a write because
/// the disk is full: SQLITE_FULL or ENOSPC.
fn is_disk_full(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(io) => io.kind() == std::io::ErrorKind::StorageFull,
        _ => primary_code(e) == Some(13),
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        if is_disk_full(&e) {
            return Error::DiskFull {
                dir: opened_data_dir().unwrap_or_else(|| PathBuf::from("the data dir")),
            };
        }
        if primary_code(&e) == Some(8)
            && let Some(dir) = read_only_data_dir()
        {
            return Error::read_only(dir);
        }
        Error::Db(e)
    }
}
