//! The data directory: one folder shared by the CLI and the desktop app.
//!
//! Layout: `atelier.db`, `toolsets/<toolset_id>/`,
//! `chats/<chat_id>/{workspace,blobs}`, `logs/atelier.log`. Only this module knows the layout;
//! everything else asks it for paths. Paths stored in the database are
//! relative to the root, so the folder can be moved.
//!
//! A data dir this process cannot write (a folder mode, a read-only mount,
//! an immutable flag: [`DataDir::probe_read_only`]) is opened read-only:
//! what only reads works, anything that would change it is refused with
//! [`crate::Error::ReadOnly`].

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The environment variable that overrides the default location.
pub const ENV_VAR: &str = "ATELIER_DATA_DIR";

/// A data directory root.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
    /// Opened read-only ([`crate::Atelier::open`] decides).
    read_only: bool,
}

impl DataDir {
    /// Uses `root` as the data directory (created on [`crate::Atelier::open`]).
    /// A relative path is made absolute against the current folder now:
    /// workers and servers start in other folders, and must find the same
    /// files (`--data-dir ./data`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        Self {
            root: std::path::absolute(&root).unwrap_or(root),
            read_only: false,
        }
    }

    /// `explicit` if given, else `$ATELIER_DATA_DIR`, else `<OS data dir>/atelier`
    /// (`~/.local/share/atelier` on Linux). The desktop app resolves it the
    /// same way, so both see the same data.
    pub fn resolve(explicit: Option<PathBuf>) -> Result<Self> {
        if let Some(root) = explicit {
            return Ok(Self::new(root));
        }
        if let Some(root) = std::env::var_os(ENV_VAR).filter(|v| !v.is_empty()) {
            return Ok(Self::new(PathBuf::from(root)));
        }
        dirs::data_dir()
            .map(|d| Self::new(d.join("atelier")))
            .ok_or(Error::NoDataDir)
    }

    /// Whether this process can write the data dir, asked of the kernel
    /// (`access(2)`, which knows modes, read-only mounts and immutable
    /// files, and that root may write where modes say no): the folder, and
    /// the database file if there is one. A folder that does not exist yet
    /// is not read-only: making it says whether it can be.
    pub fn probe_read_only(&self) -> bool {
        use rustix::fs::{Access, access};
        let refused = |path: &Path| match access(path, Access::WRITE_OK) {
            Ok(()) => false,
            Err(rustix::io::Errno::NOENT) => false,
            Err(_) => true,
        };
        self.root.is_dir() && (refused(&self.root) || refused(&self.db_path()))
    }

    /// Whether the data dir was opened read-only (see the module docs).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    pub(crate) fn set_read_only(&mut self, read_only: bool) {
        self.read_only = read_only;
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Makes the root if it is missing (blocking): owner-only, since chats'
    /// files, blobs, the database and the log are the person's, not every
    /// local user's. A folder that exists is left as it is, and folders made
    /// on the way to it get the usual mode (a shared
    /// `/srv/team/atelier/<name>` stays open to the team).
    pub fn create_root(&self) -> Result<()> {
        let root = &self.root;
        if let Some(parent) = root.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("create", parent))?;
        }
        let mut dir = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
        match dir.create(root) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io("create", root)(e)),
            _ => Ok(()),
        }
    }

    pub fn db_path(&self) -> PathBuf {
        self.root.join("atelier.db")
    }

    pub fn toolsets_dir(&self) -> PathBuf {
        self.root.join("toolsets")
    }

    pub fn chats_dir(&self) -> PathBuf {
        self.root.join("chats")
    }

    /// `chats/<chat_id>`: everything a chat owns on disk.
    pub fn chat_dir(&self, chat_id: &str) -> PathBuf {
        self.chats_dir().join(chat_id)
    }

    /// `chats/<chat_id>/workspace`: the folder tools read and write.
    pub fn workspace_dir(&self, chat_id: &str) -> PathBuf {
        self.chat_dir(chat_id).join("workspace")
    }

    /// `chats/<chat_id>/blobs`: the content-addressed store.
    pub fn blobs_dir(&self, chat_id: &str) -> PathBuf {
        self.chat_dir(chat_id).join("blobs")
    }

    /// `pasted/`: images a person pasted, kept as files until a message
    /// attaches them (they are copied into its workspace then).
    pub fn pasted_dir(&self) -> PathBuf {
        self.root.join("pasted")
    }

    /// `mcp/<server_id>`: an MCP server's own folder (where a shared one
    /// works, with its private `tmp/`).
    pub fn mcp_server_dir(&self, server_id: &str) -> PathBuf {
        self.root.join("mcp").join(server_id)
    }

    /// `logs/`: the desktop app's log, owner-only like the root.
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// `logs/atelier.log`: the desktop app's log ([`crate::logging`]).
    pub fn log_path(&self) -> PathBuf {
        self.logs_dir().join("atelier.log")
    }

    /// Makes `path` relative to the root for storage in the database.
    pub fn relative(&self, path: &Path) -> Option<PathBuf> {
        path.strip_prefix(&self.root).ok().map(Path::to_path_buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_data_dir_is_made_absolute_once() {
        // Workers start in a chat's workspace: a relative root would point
        // elsewhere from there.
        let d = DataDir::new("data");
        assert!(d.root().is_absolute(), "{}", d.root().display());
        assert!(d.root().ends_with("data"));
    }

    #[test]
    fn explicit_root_wins_and_layout_matches_the_spec() {
        let d = DataDir::resolve(Some(PathBuf::from("/tmp/x"))).ok();
        let d = d.as_ref();
        assert_eq!(
            d.map(|d| d.workspace_dir("c1")),
            Some(PathBuf::from("/tmp/x/chats/c1/workspace"))
        );
        assert_eq!(
            d.map(|d| d.blobs_dir("c1")),
            Some(PathBuf::from("/tmp/x/chats/c1/blobs"))
        );
        assert_eq!(d.map(|d| d.db_path()), Some(PathBuf::from("/tmp/x/atelier.db")));
        assert_eq!(
            d.and_then(|d| d.relative(Path::new("/tmp/x/toolsets/a/b.py"))),
            Some(PathBuf::from("toolsets/a/b.py"))
        );
    }
}
