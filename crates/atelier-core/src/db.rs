//! The SQLite database: opening, pragmas, migrations, write transactions.
//!
//! The schema lives in `migrations/` (the one source of truth), embedded
//! at build time. Every connection runs in WAL mode with foreign keys on and
//! a busy timeout, so the CLI and the desktop app can share one file. Write
//! transactions start with `BEGIN IMMEDIATE`: a deferred transaction that
//! reads first and writes later fails with SQLITE_BUSY (no waiting) when
//! another process wrote in between; taking the write lock up front makes it
//! wait on the busy timeout instead.

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::lock::FileLock;
use crate::{Error, Result};

/// The embedded migrations.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// How long a connection waits for another writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens (creating if needed) the database at `path` and brings its schema
/// up to date.
pub async fn open(path: &Path) -> Result<SqlitePool> {
    if let Some(dir) = path.parent() {
        crate::error::note_opened(dir);
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
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        // A ping before every acquire guards against connections a network
        // server dropped; a SQLite connection is a file handle in this
        // process that cannot go stale, and the ping is a round trip to its
        // worker thread that doubled the cost of every short query.
        .test_before_acquire(false)
        .connect_with(options)
        .await?;
    migrate(&pool, path).await?;
    Ok(pool)
}

/// Applies pending migrations. Two processes starting on a fresh data dir
/// at once would both try to apply them; a lock file next to the database
/// serializes that.
async fn migrate(pool: &SqlitePool, db_path: &Path) -> Result<()> {
    let lock_path = db_path.with_extension("db.migrate-lock");
    let _lock = tokio::task::spawn_blocking(move || FileLock::acquire(&lock_path))
        .await
        .map_err(|e| Error::Internal(format!("the migration lock task failed: {e}")))??;
    refuse_newer(pool, db_path).await?;
    MIGRATOR.run(pool).await?;
    Ok(())
}

/// Refuses a database a later version migrated: sqlx would only say that
/// "migration N was previously applied but is missing", which tells a
/// person neither what happened nor what to do.
async fn refuse_newer(pool: &SqlitePool, db_path: &Path) -> Result<()> {
    let known = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
    let has_table: Option<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'")
            .fetch_optional(pool)
            .await?;
    if has_table.is_none() {
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
