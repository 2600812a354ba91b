//! The log: the filter both binaries start with, the desktop app's log file
//! and the UI's errors written into it.
//!
//! rmcp's own lines name an HTTP MCP server's URL as resolved, which may
//! hold a token (the errors we show say what failed, with secrets
//! redacted), so rmcp is off unless the person's `ATELIER_LOG` names it:
//! `ATELIER_LOG=debug` alone must not bring a token into the log.
//!
//! The app started from a desktop menu has no terminal, so it also writes
//! `<data dir>/logs/atelier.log` ([`LogFile`]): the one thing a person can
//! send when something breaks. It is owner-only (0600 in a 0700 folder) and
//! bounded: over [`MAX_BYTES`] it is moved to `atelier.log.1` (the one
//! previous file kept), at start and while running. A read-only data dir
//! gets no log file: nothing at start writes there.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use crate::{DataDir, Error, Result};

/// The filter directives: `from_env` (`ATELIER_LOG`) when set, else
/// `default`; with `rmcp=off` added unless they name rmcp.
pub fn filter_directives(from_env: Option<&str>, default: &str) -> String {
    let chosen = from_env.map(str::trim).filter(|s| !s.is_empty()).unwrap_or(default);
    if chosen.contains("rmcp") {
        chosen.to_owned()
    } else {
        format!("{chosen},rmcp=off")
    }
}

/// How big the log grows before it is moved to `atelier.log.1`: with the
/// previous file, at most about twice this on disk.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The most of each text of a UI error the log keeps (message, stack).
pub const UI_TEXT_MAX: usize = 4 * 1024;

/// The log file, as Settings shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LogLocation {
    /// The file (`<data dir>/logs/atelier.log`).
    pub file: String,
    /// Its folder, where the previous file (`atelier.log.1`) is too.
    pub folder: String,
    /// Whether the app writes it: not in a read-only data dir.
    pub written: bool,
}

/// Where the desktop app's log of this data dir is.
pub fn location(data: &DataDir) -> LogLocation {
    LogLocation {
        file: data.log_path().display().to_string(),
        folder: data.logs_dir().display().to_string(),
        written: !data.is_read_only(),
    }
}

/// The log file, rotated when it grows past its limit. `&LogFile` is a
/// writer (shared by the threads that log); each write is one event's
/// line(s), so a rotation never splits one.
#[derive(Debug)]
pub struct LogFile {
    path: PathBuf,
    max: u64,
    open: Mutex<Open>,
}

#[derive(Debug)]
struct Open {
    file: File,
    /// Bytes in the file: its size when opened plus what was written since.
    size: u64,
}

impl LogFile {
    /// The data dir's log (`logs/atelier.log`), made with its folders if
    /// missing; none in a data dir this process cannot write (nothing at
    /// start writes there, and the app logs to stderr only).
    pub fn open(data: &DataDir) -> Result<Option<Self>> {
        if data.probe_read_only() {
            return Ok(None);
        }
        data.create_root()?;
        let dir = data.logs_dir();
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(Error::io("create", &dir)(e)),
            _ => {}
        }
        let path = data.log_path();
        Self::open_at(&path, MAX_BYTES)
            .map(Some)
            .map_err(Error::io("open", &path))
    }

    /// `path`, moved to `<path>.1` first when it is over `max` bytes, then
    /// opened for appending (0600).
    pub fn open_at(path: &Path, max: u64) -> io::Result<Self> {
        if fs::metadata(path).is_ok_and(|m| m.len() > max) {
            fs::rename(path, previous(path))?;
        }
        let file = open_private(path)?;
        let size = file.metadata()?.len();
        Ok(Self {
            path: path.to_path_buf(),
            max,
            open: Mutex::new(Open { file, size }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a new file before a write that would take this one past its
    /// limit (never an empty one: a line longer than the limit is written
    /// whole). Should the move fail, the file is emptied instead: it must
    /// not grow without bound.
    fn rotate_for(&self, open: &mut Open, len: usize) {
        if open.size == 0 || open.size.saturating_add(len as u64) <= self.max {
            return;
        }
        let _ = open.file.flush();
        let fresh = fs::rename(&self.path, previous(&self.path)).and_then(|()| open_private(&self.path));
        match fresh {
            Ok(file) => open.file = file,
            Err(_) => {
                let _ = open.file.set_len(0);
            }
        }
        open.size = 0;
    }
}

impl Write for &LogFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A thread that panicked while logging leaves the file usable.
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        self.rotate_for(&mut open, buf.len());
        let n = open.file.write(buf)?;
        open.size += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).file.flush()
    }
}

/// `atelier.log.1`: the one previous file kept.
fn previous(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

/// Opens `path` for appending, owner-only: made 0600, and an existing one
/// (an older version's, a copy) narrowed to 0600.
fn open_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if file.metadata()?.permissions().mode() & 0o777 != 0o600 {
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(file)
}

/// Logs an error the UI met (a view that crashed, an uncaught error) at
/// `error` under the target `ui`: `context` says where. Each text is cut
/// to [`UI_TEXT_MAX`] and kept on one line, so a page cannot flood the log
/// or write lines that look like the app's own.
pub fn ui_error(message: &str, context: &str, stack: Option<&str>) {
    let message = one_line(clip(message, UI_TEXT_MAX));
    let context = one_line(clip(context, 200));
    match stack.map(str::trim).filter(|s| !s.is_empty()) {
        Some(stack) => {
            let stack = one_line(clip(stack, UI_TEXT_MAX));
            tracing::error!(target: "ui", context = %context, stack = %stack, "{message}");
        }
        None => tracing::error!(target: "ui", context = %context, "{message}"),
    }
}

/// `text` cut to at most `max` bytes (at a character's boundary), saying
/// how much was left out.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// Control characters (line breaks among them) written as escapes.
fn one_line(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
