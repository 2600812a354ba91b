//! Who holds a lock, written into the lock file by its holder.
//!
//! A flock says nothing about its owner, so a process that waited for one
//! could only wait in silence. Each holder writes one JSON line into the
//! lock file as it takes the lock (its pid, its program, what it does) and
//! empties the file before letting go; a waiter reads the line back to say
//! what it waits for. A holder that died (a crash: the kernel released its
//! lock) leaves its line behind until the next holder overwrites it, so a
//! line is believed only while its pid is alive. Writing is best effort: a
//! lock works the same whether or not its description could be written.

use std::fs::File;
use std::path::Path;

use super::context::LockContext;

/// A lock's holder, as it described itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// Its program's file name (`atelier`, `atelier-app`).
    pub program: String,
    /// What it does while it holds the lock, when it said
    /// (`a tool call (csv.hello)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doing: Option<String>,
}

impl Holder {
    /// This process, doing what `context` says.
    pub(super) fn this_process(context: &LockContext) -> Self {
        Self {
            pid: std::process::id(),
            program: program().to_owned(),
            doing: context.doing.clone(),
        }
    }

    /// Writes this description into the held lock file `file`. Written
    /// first and cut to length after, so a reader never sees an empty file
    /// in between: it sees the new line first (then perhaps the tail of a
    /// longer old one, which it ignores).
    pub(super) fn write_into(&self, file: &File) {
        let Ok(mut line) = serde_json::to_string(self) else {
            return;
        };
        line.push('\n');
        if std::os::unix::fs::FileExt::write_all_at(file, line.as_bytes(), 0).is_ok() {
            let _ = file.set_len(line.len() as u64);
        }
    }

    /// The live holder a lock file names: `None` when it names none, names
    /// one half-written, or names a process that is gone (a stale line a
    /// crash left: whoever holds the lock now has not written yet, or is an
    /// older version that writes nothing).
    pub fn read(path: &Path) -> Option<Self> {
        let text = std::fs::read(path).ok()?;
        let end = text.iter().position(|&b| b == b'\n')?;
        let holder: Self = serde_json::from_slice(&text[..end]).ok()?;
        holder.is_alive().then_some(holder)
    }

    /// Whether the process is still there (a pid reused since is taken
    /// for it: the description may then be wrong, never about a lock no
    /// one holds, as the waiter only reads it while the lock is held).
    fn is_alive(&self) -> bool {
        if self.pid == std::process::id() {
            return true;
        }
        let Some(pid) = i32::try_from(self.pid).ok().and_then(rustix::process::Pid::from_raw) else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            // Someone else's process: it exists.
            Err(rustix::io::Errno::PERM) => true,
            Err(_) => false,
        }
    }
}

/// Empties a lock file before its lock is released: the next waiter must
/// not take this process for the holder once it has let go.
pub(super) fn clear(file: &File) {
    let _ = file.set_len(0);
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let process = if self.pid == std::process::id() {
            "this process".to_owned()
        } else {
            format!("process {} ({})", self.pid, self.program)
        };
        match &self.doing {
            Some(doing) => write!(f, "{doing} runs in {process}"),
            None => write!(f, "{process} holds it"),
        }
    }
}

/// This program's file name.
fn program() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "atelier".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_of_a_dead_process_is_not_believed() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("lock");
        let mut child = std::process::Command::new("true").spawn()?;
        let dead = child.id();
        child.wait()?;
        let stale = Holder {
            pid: dead,
            program: "atelier".into(),
            doing: Some("a tool call (csv.hello)".into()),
        };
        stale.write_into(&File::create(&path)?);
        assert!(Holder::read(&path).is_none(), "process {dead} is gone");

        let live = Holder {
            pid: std::process::id(),
            ..stale
        };
        live.write_into(&std::fs::OpenOptions::new().write(true).open(&path)?);
        assert_eq!(Holder::read(&path), Some(live));
        Ok(())
    }

    #[test]
    fn a_shorter_description_over_a_longer_one_reads_whole() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("lock");
        let file = File::create(&path)?;
        let mut h = Holder::this_process(&LockContext::default());
        h.doing = Some("a long description of what this process does".into());
        h.write_into(&file);
        h.doing = Some("short".into());
        h.write_into(&file);
        assert_eq!(Holder::read(&path), Some(h));
        clear(&file);
        assert!(Holder::read(&path).is_none(), "an emptied file names no one");
        Ok(())
    }
}
