//! The core's one error type.
//!
//! Every variant carries what went wrong *and where* (chat, message, path,
//! hash), because its `Display` is what a person reads: the CLI prints it as
//! one line, the desktop app sends it as `{kind, message}` with
//! [`Error::kind`] as the stable machine-readable part.

use std::path::PathBuf;

/// Result alias used throughout the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the core can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A filesystem operation failed; `op` says what we were doing.
    #[error("could not {op} {}: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),

    #[error("could not migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

    #[error("no data directory: set --data-dir or ATELIER_DATA_DIR (the OS reports no user data folder)")]
    NoDataDir,

    #[error("chat not found: {0}")]
    ChatNotFound(String),

    #[error("message {message_id} not found in chat {chat_id}")]
    MessageNotFound { chat_id: String, message_id: String },

    #[error("workspace manifest {manifest_id} not found in chat {chat_id}")]
    ManifestNotFound { chat_id: String, manifest_id: String },

    #[error("{path}: no such file in the workspace at manifest {manifest_id}")]
    FileNotFound { path: String, manifest_id: String },

    /// A workspace-relative path that could escape the workspace or cannot be
    /// stored (absolute, `..`, empty segment, NUL…).
    #[error("invalid workspace path {path:?}: {reason}")]
    InvalidPath { path: String, reason: &'static str },

    /// A blob named by a manifest is not in the store.
    #[error("{path}: blob {hash} is missing from {}; the workspace was left as it was", store.display())]
    MissingBlob { path: String, hash: String, store: PathBuf },

    /// A blob's content no longer hashes to its name.
    #[error("{path}: blob {hash} is corrupt (its content hashes to {actual}); the workspace was left as it was")]
    CorruptBlob { path: String, hash: String, actual: String },

    /// A stored directory tree is missing or cannot be decoded.
    #[error("workspace tree {hash} of chat {chat_id} is {reason}")]
    CorruptTree {
        chat_id: String,
        hash: String,
        reason: String,
    },

    /// Data read back from the database does not have the expected shape.
    #[error("invalid {what} in the database: {reason}")]
    InvalidData { what: &'static str, reason: String },

    /// A bundle (ZIP or folder) broke a safety rule; `entry` names the file.
    #[error("{bundle}: {}{message}", entry.as_deref().map(|e| format!("entry {e:?}: ")).unwrap_or_default())]
    Bundle {
        bundle: String,
        entry: Option<String>,
        message: String,
    },

    /// A manifest with errors; every problem is listed.
    #[error("{bundle}: toolset.yaml has {} error(s):\n{}", .problems.iter().filter(|p| p.severity == crate::toolsets::validate::Severity::Error).count(), .problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    InvalidManifest {
        bundle: String,
        problems: Vec<crate::toolsets::validate::Problem>,
    },

    #[error("toolset not found: {0}")]
    ToolsetNotFound(String),

    #[error("tool not found: {0}")]
    ToolNotFound(String),

    #[error("tool call not found: {0}")]
    ToolCallNotFound(String),

    #[error("toolset {id} {version} is already installed (import with --force to reinstall it)")]
    AlreadyInstalled { id: String, version: String },

    /// Upgrade, disable and uninstall wait for running calls.
    #[error(
        "toolset {id} has a tool call running in chat {chat_id}: wait for it to finish or cancel it, then try again"
    )]
    ToolsetBusy { id: String, chat_id: String },

    /// Two things claim one id (toolsets and MCP servers share a namespace).
    #[error("{0}")]
    Conflict(String),

    /// The Python runtime (the `atelier-worker` process) cannot be used.
    #[error("Python runtime: {0}")]
    Python(String),

    /// A toolset's `python.requirements` could not be installed.
    #[error("toolset {toolset}: could not install python.requirements{}: {message}", requirement.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Requirements {
        toolset: String,
        /// The requirement that failed, when the installer named it.
        requirement: Option<String>,
        message: String,
    },

    /// A setting value that cannot be used; `key` names the setting.
    #[error("setting {key}: {value:?} cannot be used: {reason}")]
    InvalidSetting {
        key: &'static str,
        value: String,
        reason: String,
    },

    #[error("operation cancelled")]
    Cancelled,

    /// A bug: a background task panicked or an invariant broke.
    #[error("internal error: {0}")]
    Internal(String),

    /// A failure injected by a test (see `store::failpoint`).
    #[error("injected failure at {0}")]
    Injected(&'static str),
}

impl Error {
    /// Wraps an I/O error with the operation and the path it concerned.
    pub fn io(op: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { op, path, source }
    }

    /// A stable, machine-readable name for the error's kind: the `kind` of
    /// the `{kind, message}` errors the desktop app receives.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Io { .. } => "io",
            Error::Db(_) => "database",
            Error::Migrate(_) => "migration",
            Error::NoDataDir => "no_data_dir",
            Error::ChatNotFound(_) => "chat_not_found",
            Error::MessageNotFound { .. } => "message_not_found",
            Error::ManifestNotFound { .. } => "manifest_not_found",
            Error::FileNotFound { .. } => "file_not_found",
            Error::InvalidPath { .. } => "invalid_path",
            Error::MissingBlob { .. } => "missing_blob",
            Error::CorruptBlob { .. } => "corrupt_blob",
            Error::CorruptTree { .. } => "corrupt_tree",
            Error::InvalidData { .. } => "invalid_data",
            Error::Bundle { .. } => "invalid_bundle",
            Error::InvalidManifest { .. } => "invalid_manifest",
            Error::ToolsetNotFound(_) => "toolset_not_found",
            Error::ToolNotFound(_) => "tool_not_found",
            Error::ToolCallNotFound(_) => "tool_call_not_found",
            Error::AlreadyInstalled { .. } => "already_installed",
            Error::ToolsetBusy { .. } => "toolset_busy",
            Error::Conflict(_) => "conflict",
            Error::InvalidSetting { .. } => "invalid_setting",
            Error::Cancelled => "cancelled",
            Error::Python(_) => "python_unavailable",
            Error::Requirements { .. } => "requirements_failed",
            Error::Internal(_) => "internal",
            Error::Injected(_) => "injected",
        }
    }

    /// Whether the error means "the thing you named does not exist".
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::ChatNotFound(_)
                | Error::MessageNotFound { .. }
                | Error::ManifestNotFound { .. }
                | Error::FileNotFound { .. }
                | Error::ToolsetNotFound(_)
                | Error::ToolNotFound(_)
                | Error::ToolCallNotFound(_)
        )
    }
}
