//! A model turn while it streams. Messages are immutable, so a turn lives
//! in memory until it ends and is then written as one `assistant` message;
//! so that a crash or a kill does not lose it, what has arrived is also
//! written to `streaming_turns` about once a second (by a task of its own,
//! started by the turn's first text or reasoning: the stream's callback
//! only appends to memory), from the first second on: a turn that ends
//! sooner, or only calls tools, costs no write. The run holds
//! `chats/<chat>/turns/<id>` locked while the row lives; start-up recovery
//! takes a row whose lock is free as a dead turn and writes it as its
//! message, marked `interrupted` (text and reasoning only: its calls never
//! ran). A second process's live turn is left alone.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;
use sqlx::Row;
use tokio_util::sync::CancellationToken;

use crate::lock::FileLock;
use crate::messages::{NewMessage, insert_message, set_active};
use crate::model::{ContentPart, Role};
use crate::{Atelier, Result, blocking, db, ids};

/// How often a streaming turn is written down.
const EVERY: Duration = Duration::from_millis(1000);

/// What a turn has said so far.
#[derive(Debug, Default)]
pub(super) struct Partial {
    pub text: String,
    pub reasoning: String,
    dirty: bool,
}

impl Partial {
    pub(super) fn text(&mut self, t: &str) {
        self.text.push_str(t);
        self.dirty = true;
    }

    pub(super) fn reasoning(&mut self, t: &str) {
        self.reasoning.push_str(t);
        self.dirty = true;
    }

    fn parts(&self) -> Vec<ContentPart> {
        let mut parts = Vec::new();
        if !self.reasoning.is_empty() {
            parts.push(ContentPart::Reasoning {
                text: self.reasoning.clone(),
                signature: None,
            });
        }
        if !self.text.is_empty() {
            parts.push(ContentPart::Text {
                text: self.text.clone(),
            });
        }
        parts
    }
}

/// Where the writer is: it has not written yet ([`IDLE`]), it owns the
/// row ([`WRITING`]), or the turn ended before it ever wrote ([`ENDED`]).
/// Swapped atomically, so a turn that ends within the first second need not
/// wait for the writer task to be scheduled (a thread wake that cost a
/// millisecond a turn on a busy machine): the writer sees [`ENDED`] and
/// never writes.
const IDLE: u8 = 0;
const WRITING: u8 = 1;
const ENDED: u8 = 2;

/// A turn being journaled: its message id, and the writer task — started
/// by the first text or reasoning, as a turn that only calls tools has
/// nothing to recover, and a task spawned per turn is one more thread woken.
pub(super) struct Journal {
    pub id: String,
    partial: Arc<Mutex<Partial>>,
    phase: Arc<AtomicU8>,
    stop: CancellationToken,
    writer: Mutex<Started>,
    lock_path: PathBuf,
}

/// The writer, until something is said; then its task, which ends with
/// the lock it holds once it wrote the row (none: it never did).
enum Started {
    Not(Box<Writer>),
    Task(tokio::task::JoinHandle<Option<FileLock>>),
    Taken,
}

fn lock_path(app: &Atelier, chat_id: &str, turn_id: &str) -> PathBuf {
    app.data_dir().chat_dir(chat_id).join("turns").join(turn_id)
}

/// What the writer task needs.
struct Writer {
    db: sqlx::SqlitePool,
    partial: Arc<Mutex<Partial>>,
    phase: Arc<AtomicU8>,
    chat_dir: PathBuf,
    lock_path: PathBuf,
    id: String,
    chat_id: String,
    parent_id: String,
    meta: String,
}

impl Writer {
    /// Writes what is new about once a second until stopped. The row (and
    /// its lock) comes with the first write: most turns end within a
    /// second, and one that has said nothing has nothing to recover.
    async fn run(self, stop: CancellationToken) -> Option<FileLock> {
        let mut lock: Option<FileLock> = None;
        let mut tick = tokio::time::interval(EVERY);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = stop.cancelled() => return lock,
            }
            let parts = {
                let mut p = self.partial.lock().unwrap_or_else(PoisonError::into_inner);
                if !p.dirty {
                    continue;
                }
                p.dirty = false;
                p.parts()
            };
            let Ok(content) = serde_json::to_string(&parts) else {
                continue;
            };
            // The turn ended before this first write: nothing to keep.
            if lock.is_none()
                && self
                    .phase
                    .compare_exchange(IDLE, WRITING, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err_and(|p| p == ENDED)
            {
                return None;
            }
            // A failed write only makes the journal older; the turn goes on.
            if lock.is_none() {
                lock = self.first_write(&content).await;
            } else {
                let _ = sqlx::query("UPDATE streaming_turns SET content = ?, updated_at = ? WHERE id = ?")
                    .bind(content)
                    .bind(ids::now())
                    .bind(&self.id)
                    .execute(&self.db)
                    .await;
            }
        }
    }

    /// Takes the lock, then writes the row: recovery in another process
    /// never sees a row without its live lock. `None` when the chat is
    /// gone or the write failed (tried again at the next tick).
    async fn first_write(&self, content: &str) -> Option<FileLock> {
        let (root, path) = (self.chat_dir.clone(), self.lock_path.clone());
        let lock = blocking(move || FileLock::acquire_within(&root, &path)).await.ok()??;
        let now = ids::now();
        let written = sqlx::query(
            "INSERT INTO streaming_turns (id, chat_id, parent_id, content, meta, started_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&self.id)
        .bind(&self.chat_id)
        .bind(&self.parent_id)
        .bind(content)
        .bind(&self.meta)
        .bind(&now)
        .bind(&now)
        .execute(&self.db)
        .await;
        if written.is_err() {
            let _ = std::fs::remove_file(&self.lock_path);
            return None;
        }
        Some(lock)
    }
}

impl Journal {
    /// Starts journaling a turn that will answer under `parent_id`.
    pub(super) fn start(app: &Atelier, chat_id: &str, parent_id: &str, meta: &serde_json::Value) -> Self {
        let id = ids::new_id();
        let lock_path = lock_path(app, chat_id, &id);
        let partial = Arc::new(Mutex::new(Partial::default()));
        let phase = Arc::new(AtomicU8::new(IDLE));
        let stop = CancellationToken::new();
        let writer = Writer {
            db: app.db().clone(),
            partial: Arc::clone(&partial),
            phase: Arc::clone(&phase),
            chat_dir: app.data_dir().chat_dir(chat_id),
            lock_path: lock_path.clone(),
            id: id.clone(),
            chat_id: chat_id.to_owned(),
            parent_id: parent_id.to_owned(),
            meta: meta.to_string(),
        };
        Self {
            id,
            partial,
            phase,
            stop,
            writer: Mutex::new(Started::Not(Box::new(writer))),
            lock_path,
        }
    }

    /// Text the turn streamed.
    pub(super) fn text(&self, t: &str) {
        self.partial.lock().unwrap_or_else(PoisonError::into_inner).text(t);
        self.start_writing();
    }

    /// Reasoning the turn streamed.
    pub(super) fn reasoning(&self, t: &str) {
        self.partial.lock().unwrap_or_else(PoisonError::into_inner).reasoning(t);
        self.start_writing();
    }

    fn start_writing(&self) {
        let mut started = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*started, Started::Not(_))
            && let Started::Not(writer) = std::mem::replace(&mut *started, Started::Taken)
        {
            *started = Started::Task(tokio::spawn(writer.run(self.stop.clone())));
        }
    }

    /// Ends the journal once the turn's message is written (or the turn
    /// wrote nothing): the row and the lock go.
    pub(super) async fn end(self, app: &Atelier) -> Result<()> {
        self.stop.cancel();
        if self
            .phase
            .compare_exchange(IDLE, ENDED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            // It never wrote and now never will: no row, no lock to wait for.
            return Ok(());
        }
        let started = std::mem::replace(
            &mut *self.writer.lock().unwrap_or_else(PoisonError::into_inner),
            Started::Taken,
        );
        let lock = match started {
            Started::Task(w) => w.await.ok().flatten(),
            Started::Not(_) | Started::Taken => None,
        };
        if let Some(lock) = lock {
            sqlx::query("DELETE FROM streaming_turns WHERE id = ?")
                .bind(&self.id)
                .execute(app.db())
                .await?;
            let _ = std::fs::remove_file(&self.lock_path);
            drop(lock);
        }
        Ok(())
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // An error ended the run early: a row written stays, and start-up
        // recovery (or the next one) writes what it holds once the lock is
        // free.
        self.stop.cancel();
    }
}

/// Writes every dead turn as its message, marked interrupted; how many.
pub(crate) async fn recover_turns(app: &Atelier) -> Result<usize> {
    let rows = sqlx::query("SELECT id, chat_id, parent_id, content, meta FROM streaming_turns")
        .fetch_all(app.db())
        .await?;
    let mut recovered = 0;
    for r in rows {
        let (id, chat_id): (String, String) = (r.try_get("id")?, r.try_get("chat_id")?);
        match recover_one(app, &r).await {
            Ok(true) => recovered += 1,
            Ok(false) => {}
            // Recovery never keeps the app from starting: tried again next time.
            Err(e) => tracing::warn!(turn = %id, chat = %chat_id, error = %e, "could not recover a streaming turn"),
        }
    }
    Ok(recovered)
}

async fn recover_one(app: &Atelier, r: &sqlx::sqlite::SqliteRow) -> Result<bool> {
    let (id, chat_id, parent_id): (String, String, String) =
        (r.try_get("id")?, r.try_get("chat_id")?, r.try_get("parent_id")?);
    let path = lock_path(app, &chat_id, &id);
    let held = {
        let p = path.clone();
        blocking(move || {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(crate::Error::io("create", dir))?;
            }
            FileLock::try_acquire(&p)
        })
        .await?
    };
    let Some(lock) = held else { return Ok(false) };
    let content: Vec<ContentPart> = serde_json::from_str(&r.try_get::<String, _>("content")?).unwrap_or_default();
    let mut meta: serde_json::Value = serde_json::from_str(&r.try_get::<String, _>("meta")?).unwrap_or(json!({}));
    meta["status"] = json!("interrupted");
    // The journal cannot tell a stop from a final write that failed (a
    // full disk): the words are true of both.
    meta["error"] = json!(
        "this answer was not saved whole (Atelier stopped, or could not write it, while it streamed); \
         what had arrived is kept"
    );
    meta["error_kind"] = json!("interrupted");
    let mut tx = db::begin_write(app.db()).await?;
    let written: Option<String> = sqlx::query_scalar("SELECT id FROM messages WHERE id = ?")
        .bind(&id)
        .fetch_optional(&mut *tx)
        .await?;
    let parent: Option<(String, String, Option<String>)> =
        sqlx::query_as("SELECT manifest_id, (SELECT active_leaf_message_id FROM chats WHERE id = ?1), thread_id FROM messages WHERE id = ?2 AND chat_id = ?1")
            .bind(&chat_id)
            .bind(&parent_id)
            .fetch_optional(&mut *tx)
            .await?;
    if written.is_none()
        && let Some((manifest, active, thread)) = parent
    {
        insert_message(
            &mut tx,
            NewMessage {
                id: id.clone(),
                chat_id: &chat_id,
                parent_id: Some(&parent_id),
                role: Role::Assistant,
                content: &content,
                manifest_id: &manifest,
                meta: Some(&meta),
                thread_id: thread.as_deref(),
            },
        )
        .await?;
        // The chat was at the question: it moves to the (partial) answer.
        if active == parent_id {
            set_active(&mut tx, &chat_id, &id, &manifest).await?;
        }
        tracing::warn!(turn = %id, chat = %chat_id, "kept a model turn that was streaming when Atelier stopped");
    }
    sqlx::query("DELETE FROM streaming_turns WHERE id = ?")
        .bind(&id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let _ = std::fs::remove_file(&path);
    drop(lock);
    Ok(written.is_none())
}
