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

    /// Any database failure but a full disk ([`Error::DiskFull`]): made by
    /// `From<sqlx::Error>`, which tells them apart.
    #[error("database error: {0}")]
    Db(#[source] sqlx::Error),

    /// The disk refused a write (SQLite's SQLITE_FULL, an OS's ENOSPC):
    /// `dir` is the data dir (or, for a file outside it, that file), so a
    /// person knows which disk to free.
    #[error("the disk holding {} is full: free space and retry", dir.display())]
    DiskFull { dir: PathBuf },

    /// The data dir cannot be written by this process (a folder mode, a
    /// read-only mount, an immutable flag): reading works; `reason` says
    /// what could not be done.
    #[error("the data dir {} is read-only: {reason}", dir.display())]
    ReadOnly { dir: PathBuf, reason: String },

    #[error("could not migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

    /// The database was migrated by a later version than this binary: its
    /// migrations would be refused as "previously applied but missing".
    #[error(
        "{}: this data dir was used by a newer Atelier (schema {schema}; this one knows up to {known}): use that version, or another data dir",
        dir.display()
    )]
    SchemaTooNew { dir: PathBuf, schema: i64, known: i64 },

    #[error("no data directory: set --data-dir or ATELIER_DATA_DIR (the OS reports no user data folder)")]
    NoDataDir,

    /// A path given from outside (a dialog, a drop, a CLI argument) that
    /// cannot be used for what was asked.
    #[error("{}: {reason}", path.display())]
    UnusablePath { path: PathBuf, reason: &'static str },

    #[error("chat not found: {0}")]
    ChatNotFound(String),

    /// An id prefix that names more than one thing.
    #[error("{what} id {prefix:?} is ambiguous: it starts {}; type more of the id", .candidates.join(", "))]
    AmbiguousId {
        what: &'static str,
        prefix: String,
        candidates: Vec<String>,
    },

    #[error("message {message_id} not found in chat {chat_id}")]
    MessageNotFound { chat_id: String, message_id: String },

    #[error("workspace manifest {manifest_id} not found in chat {chat_id}")]
    ManifestNotFound { chat_id: String, manifest_id: String },

    #[error("{path}: no such file in the workspace at manifest {manifest_id}")]
    FileNotFound { path: String, manifest_id: String },

    /// A tool asked for a workspace file that is not there (said by its
    /// workspace path: the data dir's location is nobody's business).
    #[error("{path} is not in the workspace")]
    NotInWorkspace { path: String },

    /// A workspace-relative path that could escape the workspace or cannot be
    /// stored (absolute, `..`, empty segment, NUL…).
    #[error("invalid workspace path {path:?}: {reason}")]
    InvalidPath { path: String, reason: &'static str },

    /// A blob named by a manifest is not in the store.
    #[error("{path}: blob {hash} is missing from {}; the workspace was left as it was", store.display())]
    MissingBlob { path: String, hash: String, store: PathBuf },

    /// A blob's content no longer hashes to its name.
    #[error(
        "{path}: blob {hash} is corrupt (its content hashes to {actual}); the workspace was left as it was. \
         The bad copy is kept in the chat's blobs/corrupt/; a snapshot of a good copy of the file repairs it"
    )]
    CorruptBlob { path: String, hash: String, actual: String },

    /// A stored directory tree is missing or cannot be decoded.
    #[error("workspace tree {hash} of chat {chat_id} is {reason}")]
    CorruptTree {
        chat_id: String,
        hash: String,
        reason: String,
    },

    /// Data that does not have the expected shape: read back from the
    /// database, given by a person (a URL, a pasted image), or a choice
    /// still to make (no provider set up). Said without guessing where it
    /// came from: "in the database" misled for every case but the first.
    #[error("invalid {what}: {reason}")]
    InvalidData { what: &'static str, reason: String },

    /// A bundle (ZIP or folder) broke a safety rule; `entry` names the file.
    #[error("{bundle}: {}{message}", entry.as_deref().map(|e| format!("entry {e:?}: ")).unwrap_or_default())]
    Bundle {
        bundle: String,
        entry: Option<String>,
        message: String,
    },

    /// A manifest with errors; every problem is listed.
    #[error("{bundle}: the toolset has {} error(s):\n{}", .problems.iter().filter(|p| p.severity == crate::diagnostics::Severity::Error).count(), .problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    InvalidManifest {
        bundle: String,
        problems: Vec<crate::diagnostics::Problem>,
    },

    #[error("toolset not found: {0}")]
    ToolsetNotFound(String),

    #[error("agent not found: {0}")]
    AgentNotFound(String),

    #[error("MCP server not found: {0}")]
    McpServerNotFound(String),

    /// An MCP server could not be started, reached or used; the message
    /// names the server and, for a process, its last stderr lines.
    #[error("{0}")]
    Mcp(#[from] atelier_mcp::McpError),

    /// Tools or sources that cannot be told apart by name (a routing
    /// error's message: which names, which sources).
    #[error("{0}")]
    RoutingConflict(String),

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

    /// No place to keep a secret: no keychain answers and the person has not
    /// allowed the file fallback (or the keychain failed).
    #[error("{0}")]
    SecretsUnavailable(String),

    /// A secret a reference needs has no value for its owner.
    #[error("{reference} has no value for {owner}: set it with `atelier secrets set {owner} {key}`{hint}")]
    SecretNotSet {
        reference: String,
        owner: String,
        key: String,
        hint: String,
    },

    /// An LLM provider failed (`kind`: auth, network, model_not_found…).
    #[error("{message}")]
    Provider { kind: &'static str, message: String },

    /// A toolset setting (`user_config`) is given a value it cannot take.
    #[error("setting {key:?} of toolset {toolset:?}: {reason}")]
    ConfigInvalid {
        toolset: String,
        key: String,
        reason: String,
    },

    /// Required toolset settings have no value.
    #[error("toolset {toolset:?} needs {}: {hint}", keys.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", "))]
    ConfigMissing {
        toolset: String,
        keys: Vec<String>,
        hint: String,
    },
}

impl Error {
    /// Wraps an I/O error with the operation and the path it concerned.
    pub fn io(op: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| {
            if source.kind() == std::io::ErrorKind::StorageFull {
                // A file inside the data dir names the data dir (the place a
                // person frees); one outside it, itself.
                let dir = opened_data_dir().filter(|d| path.starts_with(d)).unwrap_or(path);
                return Error::DiskFull { dir };
            }
            if matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) && let Some(dir) = read_only_data_dir().filter(|d| path.starts_with(d))
            {
                return Error::read_only(dir);
            }
            Error::Io { op, path, source }
        }
    }

    /// A change refused because the data dir `dir` is read-only.
    pub(crate) fn read_only(dir: PathBuf) -> Error {
        Error::ReadOnly {
            dir,
            reason: "Atelier can show what it holds but not change it; make it writable (or use another data dir) to do that".into(),
        }
    }

    /// A stable, machine-readable name for the error's kind: the `kind` of
    /// the `{kind, message}` errors the desktop app receives.
    pub fn kind(&self) -> &'static str {
        self.code().as_str()
    }

    /// The error's stable code (what [`Error::kind`] spells).
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Io { .. } => ErrorCode::Io,
            Error::Db(_) => ErrorCode::Database,
            Error::DiskFull { .. } => ErrorCode::DiskFull,
            // A refusal by the file system, as for any other file; a code
            // of its own would change the IPC's union (and the UI with it).
            Error::ReadOnly { .. } => ErrorCode::Io,
            Error::Migrate(_) | Error::SchemaTooNew { .. } => ErrorCode::Migration,
            Error::NoDataDir => ErrorCode::NoDataDir,
            Error::ChatNotFound(_) => ErrorCode::ChatNotFound,
            Error::AmbiguousId { .. } => ErrorCode::AmbiguousId,
            Error::MessageNotFound { .. } => ErrorCode::MessageNotFound,
            Error::ManifestNotFound { .. } => ErrorCode::ManifestNotFound,
            Error::FileNotFound { .. } | Error::NotInWorkspace { .. } => ErrorCode::FileNotFound,
            Error::InvalidPath { .. } | Error::UnusablePath { .. } => ErrorCode::InvalidPath,
            Error::MissingBlob { .. } => ErrorCode::MissingBlob,
            Error::CorruptBlob { .. } => ErrorCode::CorruptBlob,
            Error::CorruptTree { .. } => ErrorCode::CorruptTree,
            Error::InvalidData { .. } => ErrorCode::InvalidData,
            Error::Bundle { .. } => ErrorCode::InvalidBundle,
            Error::InvalidManifest { .. } => ErrorCode::InvalidManifest,
            Error::ToolsetNotFound(_) => ErrorCode::ToolsetNotFound,
            Error::AgentNotFound(_) => ErrorCode::AgentNotFound,
            Error::McpServerNotFound(_) => ErrorCode::McpServerNotFound,
            Error::Mcp(_) => ErrorCode::Mcp,
            Error::RoutingConflict(_) => ErrorCode::RoutingConflict,
            Error::ToolNotFound(_) => ErrorCode::ToolNotFound,
            Error::ToolCallNotFound(_) => ErrorCode::ToolCallNotFound,
            Error::AlreadyInstalled { .. } => ErrorCode::AlreadyInstalled,
            Error::ToolsetBusy { .. } => ErrorCode::ToolsetBusy,
            Error::Conflict(_) => ErrorCode::Conflict,
            Error::InvalidSetting { .. } => ErrorCode::InvalidSetting,
            Error::Cancelled => ErrorCode::Cancelled,
            Error::Python(_) => ErrorCode::PythonUnavailable,
            Error::Requirements { .. } => ErrorCode::RequirementsFailed,
            Error::Internal(_) => ErrorCode::Internal,
            Error::Injected(_) => ErrorCode::Injected,
            Error::SecretsUnavailable(_) => ErrorCode::SecretsUnavailable,
            Error::SecretNotSet { .. } => ErrorCode::SecretNotSet,
            Error::ConfigInvalid { .. } => ErrorCode::ConfigInvalid,
            Error::Provider { .. } => ErrorCode::Provider,
            Error::ConfigMissing { .. } => ErrorCode::ConfigMissing,
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
                | Error::AgentNotFound(_)
                | Error::McpServerNotFound(_)
                | Error::ToolNotFound(_)
                | Error::ToolCallNotFound(_)
        )
    }
}

/// The stable, machine-readable part of an [`Error`]: the `kind` of the
/// desktop app's `{kind, message}` errors, a string union in TypeScript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Io,
    Database,
    DiskFull,
    Migration,
    NoDataDir,
    ChatNotFound,
    AmbiguousId,
    MessageNotFound,
    ManifestNotFound,
    FileNotFound,
    InvalidPath,
    MissingBlob,
    CorruptBlob,
    CorruptTree,
    InvalidData,
    InvalidBundle,
    InvalidManifest,
    ToolsetNotFound,
    AgentNotFound,
    McpServerNotFound,
    Mcp,
    RoutingConflict,
    ToolNotFound,
    ToolCallNotFound,
    AlreadyInstalled,
    ToolsetBusy,
    Conflict,
    InvalidSetting,
    Cancelled,
    PythonUnavailable,
    RequirementsFailed,
    Internal,
    Injected,
    SecretsUnavailable,
    SecretNotSet,
    ConfigInvalid,
    ConfigMissing,
    Provider,
}

text_enum!(ErrorCode {
    Io = "io",
    Database = "database",
    DiskFull = "disk_full",
    Migration = "migration",
    NoDataDir = "no_data_dir",
    ChatNotFound = "chat_not_found",
    AmbiguousId = "ambiguous_id",
    MessageNotFound = "message_not_found",
    ManifestNotFound = "manifest_not_found",
    FileNotFound = "file_not_found",
    InvalidPath = "invalid_path",
    MissingBlob = "missing_blob",
    CorruptBlob = "corrupt_blob",
    CorruptTree = "corrupt_tree",
    InvalidData = "invalid_data",
    InvalidBundle = "invalid_bundle",
    InvalidManifest = "invalid_manifest",
    ToolsetNotFound = "toolset_not_found",
    AgentNotFound = "agent_not_found",
    McpServerNotFound = "mcp_server_not_found",
    Mcp = "mcp",
    RoutingConflict = "routing_conflict",
    ToolNotFound = "tool_not_found",
    ToolCallNotFound = "tool_call_not_found",
    AlreadyInstalled = "already_installed",
    ToolsetBusy = "toolset_busy",
    Conflict = "conflict",
    InvalidSetting = "invalid_setting",
    Cancelled = "cancelled",
    PythonUnavailable = "python_unavailable",
    RequirementsFailed = "requirements_failed",
    Internal = "internal",
    Injected = "injected",
    SecretsUnavailable = "secrets_unavailable",
    SecretNotSet = "secret_not_set",
    ConfigInvalid = "config_invalid",
    Provider = "provider",
    ConfigMissing = "config_missing",
});

mod dirs;
pub(crate) use dirs::{note_opened, note_read_only};
use dirs::{opened_data_dir, read_only_data_dir};

#[cfg(test)]
mod tests;
