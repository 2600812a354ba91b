//! Atelier's core: everything the desktop app and the CLI do, without a
//! webview and without Python.
//!
//! Start at [`Atelier`], the handle on one data directory ([`DataDir`]): a
//! SQLite database ([`db`], schema in `migrations/`) and, per chat, a
//! versioned workspace folder ([`store`]) that follows the conversation's
//! branches ([`chats`], [`workspace`]).
//!
//! The handle's operations are grouped in facets, one per area:
//! [`Atelier::chats`], [`Atelier::workspace`], [`Atelier::toolsets`],
//! [`Atelier::tools`] and [`Atelier::settings`] (cheap views of the handle;
//! crate-internal helpers stay on the handle itself). The front doors — the
//! `atelier` CLI and the Tauri shell — are thin: each command parses its
//! arguments, calls one facet method, and maps [`Error`].
//!
//! ```no_run
//! # async fn demo() -> atelier_core::Result<()> {
//! use atelier_core::{Atelier, DataDir};
//! let app = Atelier::open(DataDir::new("/tmp/atelier-demo")).await?;
//! let chat = app.chats().create(Some("Demo")).await?;
//! std::fs::write(app.workspace_dir(&chat.id).join("a.txt"), "hello")
//!     .map_err(atelier_core::Error::io("write", "a.txt"))?;
//! let ws = app.workspace();
//! let snap = ws.snapshot(&chat.id, &Default::default()).await?; // an `edit` node
//! ws.checkout(&chat.id, &chat.root_message_id).await?;          // a.txt is gone
//! ws.checkout(&chat.id, snap.message_id.as_deref().unwrap_or_default()).await?; // back
//! # Ok(()) }
//! ```

/// `as_str`, `parse` and `Display` for an enum stored or sent as one word
/// (the word is also its serde name: a test per enum checks they agree).
macro_rules! text_enum {
    ($t:ty { $($v:ident = $s:literal),* $(,)? }) => {
        impl $t {
            /// Every variant, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$v),*];

            /// The stored (and serialized) word.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$v => $s),* }
            }

            /// The variant stored as `s`.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$v),)* _ => None }
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub mod agents;
pub mod chats;
pub mod conversation;
pub mod data_dir;
pub mod db;
pub mod diagnostics;
mod environment;
mod error;
pub mod ids;
pub mod lock;
pub mod logging;
pub mod mcp;
mod messages;
pub mod model;
pub mod providers;
pub mod routing;
pub mod secrets;
pub mod settings;
pub mod store;
pub mod tools;
pub mod toolsets;
pub mod workspace;
pub mod zipfile;

use std::sync::Arc;

use sqlx::SqlitePool;

pub use data_dir::DataDir;
pub use error::{Error, ErrorCode, Result};
pub use store::{Observer, Progress};
pub use tools::python::PythonSettings;

/// An [`Atelier`] that may be gone.
#[derive(Debug, Clone)]
pub(crate) struct WeakAtelier(std::sync::Weak<Inner>);

impl WeakAtelier {
    pub(crate) fn upgrade(&self) -> Option<Atelier> {
        self.0.upgrade().map(|inner| Atelier { inner })
    }
}

/// A handle on one data directory. Cheap to clone; share it.
#[derive(Debug, Clone)]
pub struct Atelier {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    data: DataDir,
    db: SqlitePool,
    python: tools::python::Pool,
    edits: workspace::watch::EditWatch,
    /// The tool pool's current snapshot (see [`routing`]).
    pool: routing::PoolCache,
    /// The MCP server instances this process runs.
    mcp: mcp::running::Running,
    /// Cancellation handles of the calls this process is running.
    running: std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
    /// Stop handles of the model runs going on, by chat.
    chat_runs: std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
    /// Where the answer goes for each call waiting for approval
    /// ([`tools::Approval::Wait`]).
    approvals: std::sync::Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<bool>>>,
    /// The person agreed, for this process only, to the secrets file
    /// fallback (the CLI's `--allow-file-secrets`).
    allow_file_secrets: std::sync::atomic::AtomicBool,
}

impl Atelier {
    /// Opens the data directory, creating it and the database if needed and
    /// applying pending migrations; one this process cannot write is opened
    /// read-only (see [`data_dir`]). Python tools run with
    /// [`PythonSettings::from_env`].
    pub async fn open(data: DataDir) -> Result<Self> {
        Self::open_with(data, PythonSettings::from_env()).await
    }

    /// [`Atelier::open`] with explicit Python settings.
    pub async fn open_with(mut data: DataDir, python: PythonSettings) -> Result<Self> {
        // Owner-only when Atelier makes it (blobs are written 0644 inside).
        let made = data.clone();
        blocking(move || made.create_root()).await?;
        // One this process cannot write is only read: nothing below that
        // writes runs (what a crash left is put right by a writable start).
        let read_only = data.probe_read_only();
        data.set_read_only(read_only);
        let access = if read_only {
            db::Access::ReadOnly
        } else {
            db::Access::ReadWrite
        };
        let db = db::open_with(&data.db_path(), access).await?;
        if !read_only {
            tools::sync_builtins(&db).await?;
            // Imports a crash interrupted: the folders follow the database.
            toolsets::recover_imports(&data.toolsets_dir(), &db).await?;
        }
        let app = Self {
            inner: Arc::new(Inner {
                data,
                db,
                python: tools::python::Pool::new(python),
                edits: Default::default(),
                pool: Default::default(),
                mcp: Default::default(),
                running: Default::default(),
                chat_runs: Default::default(),
                approvals: Default::default(),
                allow_file_secrets: Default::default(),
            }),
        };
        if !read_only {
            chats::recover_deleted(&app).await?;
            // Uninstalls a crash cut short: undone, or finished (secrets).
            toolsets::recover_uninstalls(&app).await?;
            // Folder moves a crash cut short, staging folders it left.
            workspace::recover_moves(&app).await?;
            tools::recover::recover_interrupted(&app).await?;
            // Model turns that were streaming when the process died.
            conversation::recover_turns(&app).await?;
            // Plain-text secrets an older version left: into the secret store.
            toolsets::config::literals::migrate(&app).await?;
        }
        app.spawn_idle_reaper();
        Ok(app)
    }

    /// Allows the secrets file fallback for this process (the CLI's
    /// `--allow-file-secrets`), whatever the setting says.
    pub fn allow_file_secrets_for_this_process(&self) {
        self.inner
            .allow_file_secrets
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn file_secrets_allowed_now(&self) -> bool {
        self.inner.allow_file_secrets.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.inner.data
    }

    /// The connection pool, for modules of this crate and for tests.
    pub fn db(&self) -> &SqlitePool {
        &self.inner.db
    }

    /// The folder tools of this chat read and write.
    pub fn workspace_dir(&self, chat_id: &str) -> std::path::PathBuf {
        self.inner.data.workspace_dir(chat_id)
    }

    /// Stops idle Python workers now and then, for as long as this handle
    /// lives.
    fn spawn_idle_reaper(&self) {
        let weak = Arc::downgrade(&self.inner);
        let every = (self.inner.python.settings.idle_timeout / 4).max(std::time::Duration::from_secs(1));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(inner) = weak.upgrade() else { break };
                inner.python.reap_idle();
            }
        });
    }

    pub(crate) fn mcp_running(&self) -> &mcp::running::Running {
        &self.inner.mcp
    }

    /// A handle that does not keep the app alive (for background tasks
    /// the app owns).
    pub(crate) fn downgrade(&self) -> WeakAtelier {
        WeakAtelier(Arc::downgrade(&self.inner))
    }

    pub(crate) fn edit_watch(&self) -> &workspace::watch::EditWatch {
        &self.inner.edits
    }

    pub(crate) fn running_calls(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, tokio_util::sync::CancellationToken>> {
        // A panic while holding this lock leaves a valid map.
        self.inner.running.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn chat_runs(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, tokio_util::sync::CancellationToken>> {
        self.inner.chat_runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn pending_approvals(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, tokio::sync::oneshot::Sender<bool>>> {
        self.inner.approvals.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn python(&self) -> &tools::python::Pool {
        &self.inner.python
    }

    /// How many Python workers wait idle for their next call.
    pub fn idle_python_workers(&self) -> usize {
        self.inner.python.idle_count()
    }

    /// Chats and their message trees.
    pub fn chats(&self) -> chats::Chats<'_> {
        chats::Chats { app: self }
    }

    /// A chat's workspace: snapshots, checkouts, branches, edits, diffs.
    pub fn workspace(&self) -> workspace::Workspace<'_> {
        workspace::Workspace { app: self }
    }

    /// Installed toolsets and their tools.
    pub fn toolsets(&self) -> toolsets::Toolsets<'_> {
        toolsets::Toolsets { app: self }
    }

    /// Running tools, and the calls they left.
    pub fn tools(&self) -> tools::Tools<'_> {
        tools::Tools { app: self }
    }

    /// Agents and their tool allowlists.
    pub fn agents(&self) -> agents::Agents<'_> {
        agents::Agents { app: self }
    }

    /// The tool pool, resolution and routing.
    pub fn routing(&self) -> routing::Routing<'_> {
        routing::Routing { app: self }
    }

    pub(crate) fn pool_cache(&self) -> &routing::PoolCache {
        &self.inner.pool
    }

    /// App-wide settings.
    pub fn settings(&self) -> settings::SettingsStore<'_> {
        settings::SettingsStore { app: self }
    }

    /// Closes the database cleanly (checkpoints the WAL).
    pub async fn close(self) {
        self.inner.db.close().await;
    }
}

/// Runs blocking work (hashing, walking, copying) off the async runtime.
pub(crate) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::Internal(format!("a background task failed: {e}")))?
}
