//! The SQLite database: opening, pragmas, migrations, write transactions.
//!
//! The schema lives in `migrations/` (the one source of truth), embedded
//! at build time. Every connection runs in WAL mode with foreign keys on and
//! a busy timeout, so the CLI and the desktop app can share one file. Write
//! transactions start with `BEGIN IMMEDIATE`: a deferred transaction that
//! reads first and writes later fails with SQLITE_BUSY (no waiting) when
//! another process wrote in between; taking the write lock up front makes it
//! wait on the busy timeout instead.
//!
//! A data dir this process cannot write is opened read-only ([`Access`]):
//! no migration (a schema that is not current is refused, naming the data
//! dir), no lock file, and SQLite told the file will not change unless a
//! writer elsewhere has it open.

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::lock::{FileLock, Place};
use crate::{Error, Result};

/// The embedded migrations.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// How long a connection waits for another writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// How a database is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Created if missing, migrated, written.
    ReadWrite,
    /// Only read: the data dir cannot be written (see [`crate::data_dir`]).
    ReadOnly,
}

/// Opens (creating if needed) the database at `path` and brings its schema
/// up to date.
pub async fn open(path: &Path) -> Result<SqlitePool> {
    open_with(path, Access::ReadWrite).await
}

/// [`open`], or with [`Access::ReadOnly`] the database as it is, refused
/// unless its schema is this version's.
pub async fn open_with(path: &Path, access: Access) -> Result<SqlitePool> {
    if let Some(dir) = path.parent() {
        crate::error::note_opened(dir);
    }
    if access == Access::ReadOnly {
        return open_read_only(path).await;
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        // Deleted and rewritten content is zeroed, not left in free pages:
        // a value an older version kept in a row (a plain-text secret, see
        // `toolsets::config::literals`) leaves no copy once it moves.
        .pragma("secure_delete", "on")
        .busy_timeout(BUSY_TIMEOUT);
    let pool = pool_options().connect_with(options).await?;
    migrate(&pool, path).await?;
    Ok(pool)
}

/// The pool both openings use.
fn pool_options() -> SqlitePoolOptions {
    SqlitePoolOptions::new()
        .max_connections(4)
        // A ping before every acquire guards against connections a network
        // server dropped; a SQLite connection is a file handle in this
        // process that cannot go stale, and the ping is a round trip to its
        // worker thread that doubled the cost of every short query.
        .test_before_acquire(false)
}

/// Opens a database this process cannot write, as it is.
///
/// SQLite reads a WAL database through its `-shm` file, which it cannot
/// make in a read-only folder: when no `-wal` file is there (no writer has
/// it open, and every write is in the main file) the file is opened
/// `immutable`, which needs neither; when one is, the writer's `-shm` is
/// read as it is (`mode=ro`).
async fn open_read_only(path: &Path) -> Result<SqlitePool> {
    let dir = path.parent().unwrap_or(path).to_owned();
    crate::error::note_read_only(&dir);
    if !path.is_file() {
        return Err(Error::ReadOnly {
            dir,
            reason: "it holds no database yet, and one cannot be made there".into(),
        });
    }
    let live_writer = path.with_extension("db-wal").exists();
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .immutable(!live_writer)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT);
    let pool = pool_options().connect_with(options).await?;
    refuse_newer(&pool, path).await?;
    let applied: Vec<i64> = if has_migrations_table(&pool).await? {
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(&pool)
            .await?
    } else {
        Vec::new()
    };
    let missing: Vec<i64> = MIGRATOR
        .iter()
        .map(|m| m.version)
        .filter(|v| !applied.contains(v))
        .collect();
    if let Some(first) = missing.first() {
        return Err(Error::ReadOnly {
            dir,
            reason: format!(
                "its database needs this version's upgrade (migration {first} and {} more), which writes it: open it once where it can be written",
                missing.len() - 1
            ),
        });
    }
    Ok(pool)
}

/// Applies pending migrations. Two processes starting on a fresh data dir
/// at once would both try to apply them; a lock file next to the database
/// serializes that (a wait for it is told, see [`crate::lock`]).
async fn migrate(pool: &SqlitePool, db_path: &Path) -> Result<()> {
    let lock_path = db_path.with_extension("db.migrate-lock");
    let what = async { crate::lock::describe(&lock_path) };
    let _lock = FileLock::acquire_async(&lock_path, Place::Create, what).await?;
    refuse_newer(pool, db_path).await?;
    MIGRATOR.run(pool).await?;
    Ok(())
}

async fn has_migrations_table(pool: &SqlitePool) -> Result<bool> {
    let name: Option<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'")
            .fetch_optional(pool)
            .await?;
    Ok(name.is_some())
}

/// Refuses a database a later version migrated: sqlx would only say that
/// "migration N was previously applied but is missing", which tells a
/// person neither what happened nor what to do.
async fn refuse_newer(pool: &SqlitePool, db_path: &Path) -> Result<()> {
    let known = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
    if !has_migrations_table(pool).await? {
        return Ok(());
    }
    let schema: Option<i64> = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success")
        .fetch_one(pool)
        .await?;
    match schema {
        Some(schema) if schema > known => Err(Error::SchemaTooNew {
            dir: db_path.parent().unwrap_or(db_path).to_owned(),
            schema,
            known,
        }),
        _ => Ok(()),
    }
}

/// Starts a write transaction that holds the write lock from its first
/// statement (see the module docs).
pub async fn begin_write(pool: &SqlitePool) -> Result<Transaction<'static, Sqlite>> {
    Ok(pool.begin_with("BEGIN IMMEDIATE").await?)
}
