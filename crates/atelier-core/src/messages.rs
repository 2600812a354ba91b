//! The rows of the message tree: how a message is read from and written to
//! `messages`, and how a chat is pointed at its active leaf.
//!
//! This is the one place that writes those rows. Everything above it —
//! chats, workspace moves, the run flow — builds on these few functions, so
//! the tree's shape rules (immutable messages, siblings in insertion order,
//! the active leaf and manifest moved together) live here once.

use sqlx::{Row, SqliteConnection};

use crate::model::{ContentPart, Message, Role};
use crate::{Error, Result, ids};

/// `SELECT <message columns> FROM messages <tail>`.
macro_rules! select_messages {
    ($tail:literal) => {
        concat!(
            "SELECT id, chat_id, parent_id, role, content, manifest_id, created_at, meta, thread_id FROM messages ",
            $tail
        )
    };
}
pub(crate) use select_messages;

pub(crate) fn message_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Message> {
    let role: String = row.try_get("role")?;
    let content: String = row.try_get("content")?;
    Ok(Message {
        id: row.try_get("id")?,
        chat_id: row.try_get("chat_id")?,
        parent_id: row.try_get("parent_id")?,
        role: Role::parse(&role).ok_or_else(|| Error::InvalidData {
            what: "message role",
            reason: role.clone(),
        })?,
        content: serde_json::from_str(&content).map_err(|e| Error::InvalidData {
            what: "message content",
            reason: e.to_string(),
        })?,
        manifest_id: row.try_get("manifest_id")?,
        created_at: row.try_get("created_at")?,
        // A meta this version cannot read is shown as none, never an error.
        meta: row
            .try_get::<Option<String>, _>("meta")?
            .and_then(|m| serde_json::from_str(&m).ok()),
        thread_id: row.try_get("thread_id")?,
    })
}

/// A message to insert.
pub(crate) struct NewMessage<'a> {
    pub id: String,
    pub chat_id: &'a str,
    pub parent_id: Option<&'a str>,
    pub role: Role,
    pub content: &'a [ContentPart],
    pub manifest_id: &'a str,
    /// An assistant turn's model, usage and status (JSON).
    pub meta: Option<&'a serde_json::Value>,
    /// A sub-agent thread's message (none: the main tree).
    pub thread_id: Option<&'a str>,
}

pub(crate) async fn insert_message(conn: &mut SqliteConnection, m: NewMessage<'_>) -> Result<Message> {
    let now = ids::now();
    let content = serde_json::to_string(m.content).map_err(|e| Error::Internal(e.to_string()))?;
    sqlx::query(
        "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at, meta, thread_id) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&m.id)
    .bind(m.chat_id)
    .bind(m.parent_id)
    .bind(m.role.as_str())
    .bind(&content)
    .bind(m.manifest_id)
    .bind(&now)
    .bind(m.meta.map(ToString::to_string))
    .bind(m.thread_id)
    .execute(&mut *conn)
    .await?;
    Ok(Message {
        id: m.id,
        chat_id: m.chat_id.to_owned(),
        parent_id: m.parent_id.map(str::to_owned),
        role: m.role,
        content: m.content.to_vec(),
        manifest_id: m.manifest_id.to_owned(),
        created_at: now,
        meta: m.meta.and_then(|v| serde_json::from_value(v.clone()).ok()),
        thread_id: m.thread_id.map(str::to_owned),
    })
}

/// After a message is written: the chat moves to it — or, for a message
/// of a sub-agent thread, only its workspace state does (the chat stays at
/// its place in the main tree while the thread's calls change the folder).
pub(crate) async fn advance(conn: &mut SqliteConnection, message: &Message) -> Result<()> {
    if message.thread_id.is_some() {
        sqlx::query("UPDATE chats SET active_manifest_id = ?, updated_at = ? WHERE id = ?")
            .bind(&message.manifest_id)
            .bind(ids::now())
            .bind(&message.chat_id)
            .execute(&mut *conn)
            .await?;
        return Ok(());
    }
    set_active(conn, &message.chat_id, &message.id, &message.manifest_id).await
}

/// Points the chat at a new active leaf and manifest.
pub(crate) async fn set_active(conn: &mut SqliteConnection, chat_id: &str, leaf: &str, manifest: &str) -> Result<()> {
    sqlx::query("UPDATE chats SET active_leaf_message_id = ?, active_manifest_id = ?, updated_at = ? WHERE id = ?")
        .bind(leaf)
        .bind(manifest)
        .bind(ids::now())
        .bind(chat_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
