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

/// `INSERT INTO messages (<message columns>) <tail>`.
macro_rules! insert_messages {
    ($tail:literal) => {
        concat!(
            "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at, meta, thread_id) ",
            $tail
        )
    };
}

/// The values of a message as written, in `insert_messages!`'s column order.
fn written(m: NewMessage<'_>, now: String) -> Result<(Message, String)> {
    let content = serde_json::to_string(m.content).map_err(|e| Error::Internal(e.to_string()))?;
    let message = Message {
        id: m.id,
        chat_id: m.chat_id.to_owned(),
        parent_id: m.parent_id.map(str::to_owned),
        role: m.role,
        content: m.content.to_vec(),
        manifest_id: m.manifest_id.to_owned(),
        created_at: now,
        meta: m.meta.and_then(|v| serde_json::from_value(v.clone()).ok()),
        thread_id: m.thread_id.map(str::to_owned),
    };
    Ok((message, content))
}

/// `sql` with a message's values bound as `?1`…`?9`, in
/// `insert_messages!`'s column order.
fn bound(
    sql: &'static str,
    m: &Message,
    content: String,
    meta: Option<String>,
) -> sqlx::query::Query<'static, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    sqlx::query(sql)
        .bind(m.id.clone())
        .bind(m.chat_id.clone())
        .bind(m.parent_id.clone())
        .bind(m.role.as_str())
        .bind(content)
        .bind(m.manifest_id.clone())
        .bind(m.created_at.clone())
        .bind(meta)
        .bind(m.thread_id.clone())
}

pub(crate) async fn insert_message(conn: &mut SqliteConnection, m: NewMessage<'_>) -> Result<Message> {
    let meta = m.meta.map(ToString::to_string);
    let (message, content) = written(m, ids::now())?;
    bound(
        insert_messages!("VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        &message,
        content,
        meta,
    )
    .execute(&mut *conn)
    .await?;
    Ok(message)
}

/// Writes `m`, a message of the workspace state the chat is at
/// (`m.manifest_id`), and moves the chat to it as [`advance`] does — in one
/// transaction sent as one request to the connection's thread, as each
/// request there is a thread hand-off (~50 µs on a busy machine) and a
/// model run writes one per turn. Only while the chat is still at that
/// state — and, when `leaf` is given, still at that active leaf (a message
/// meant for "wherever the chat is", its parent read before the chat's lock
/// was held): `None` (nothing written) when it is not, or is gone.
pub(crate) async fn insert_at_state(
    pool: &sqlx::SqlitePool,
    m: NewMessage<'_>,
    leaf: Option<&str>,
) -> Result<Option<Message>> {
    let meta = m.meta.map(ToString::to_string);
    let (message, content) = written(m, ids::now())?;
    // Raw BEGIN/COMMIT: nothing rolls them back if this is dropped halfway
    // (cancelled, aborted) or fails, so the connection is closed then
    // (which rolls back) instead of going back to the pool mid-transaction.
    let mut guard = Closing {
        conn: pool.acquire().await?,
        done: false,
    };
    let rows = bound(
        concat!(
            "BEGIN IMMEDIATE; ",
            // A sub-agent thread's message leaves the chat's place alone.
            "UPDATE chats SET active_leaf_message_id = CASE WHEN ?9 IS NULL THEN ?1 ELSE active_leaf_message_id END, ",
            "updated_at = ?7 WHERE id = ?2 AND active_manifest_id = ?6 ",
            "AND (?10 IS NULL OR active_leaf_message_id = ?10); ",
            insert_messages!("SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE changes() = 1 RETURNING id; "),
            "COMMIT"
        ),
        &message,
        content,
        meta,
    )
    .bind(leaf.map(str::to_owned))
    // All of it: a stream dropped after the first row would skip COMMIT.
    .fetch_all(&mut *guard.conn)
    .await?;
    // Committed: the connection goes back to the pool.
    guard.done = true;
    Ok((!rows.is_empty()).then_some(message))
}

/// A pooled connection closed when dropped before its work is `done`.
struct Closing {
    conn: sqlx::pool::PoolConnection<sqlx::Sqlite>,
    done: bool,
}

impl Drop for Closing {
    fn drop(&mut self) {
        if !self.done {
            self.conn.close_on_drop();
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Atelier, DataDir};

    /// A chat, its root, and the new message to write under the root.
    async fn chat_with_root(app: &Atelier) -> (String, Message) {
        let chat = app.chats().create(Some("t")).await.expect("chat");
        let root = app
            .chats()
            .message(&chat.id, &chat.active_leaf_message_id)
            .await
            .expect("root");
        (chat.id, root)
    }

    fn answer<'a>(id: &str, chat: &'a str, parent: &'a Message, content: &'a [ContentPart]) -> NewMessage<'a> {
        NewMessage {
            id: id.to_owned(),
            chat_id: chat,
            parent_id: Some(&parent.id),
            role: Role::Assistant,
            content,
            manifest_id: &parent.manifest_id,
            meta: None,
            thread_id: parent.thread_id.as_deref(),
        }
    }

    #[tokio::test]
    async fn a_write_at_a_state_moves_the_chat_and_a_failed_one_leaves_no_open_transaction() {
        let dir = tempfile::tempdir().expect("tmp");
        let app = Atelier::open(DataDir::new(dir.path().join("data"))).await.expect("app");
        let (chat, root) = chat_with_root(&app).await;
        let text = [ContentPart::Text { text: "hi".into() }];
        let m = insert_at_state(app.db(), answer("m1", &chat, &root, &text), None)
            .await
            .expect("write")
            .expect("the chat is at the root's state");
        assert_eq!(app.chats().get(&chat).await.expect("chat").active_leaf_message_id, m.id);
        assert_eq!(app.chats().message(&chat, "m1").await.expect("read back").text(), "hi");

        // An id taken (the root's): the insert fails inside the
        // transaction after the chat was moved. The error comes back, the
        // move is undone, and every pooled connection can still write (none
        // was returned with the transaction open).
        let again = insert_at_state(app.db(), answer(&root.id, &chat, &root, &text), None).await;
        assert!(again.is_err(), "a taken id is refused");
        assert_eq!(
            app.chats().get(&chat).await.expect("chat").active_leaf_message_id,
            m.id,
            "the chat did not move"
        );
        for i in 0..8 {
            let id = format!("n{i}");
            insert_at_state(app.db(), answer(&id, &chat, &root, &text), None)
                .await
                .expect("later writes go through")
                .expect("written");
        }

        // A sub-agent thread's message is written, and the chat stays at
        // its place in the main tree.
        let now = ids::now();
        sqlx::query(
            "INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('call', ?1, 'spawn_agents', 'success', ?2); \
             INSERT INTO threads (id, chat_id, parent_call_id, agent_id, depth, task, created_at) \
             VALUES ('thread', ?1, 'call', 'assistant', 1, 'look', ?2); \
             INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at, thread_id) \
             VALUES ('thread-root', ?1, NULL, 'system', '[]', ?3, ?2, 'thread')",
        )
        .bind(&chat)
        .bind(&now)
        .bind(&root.manifest_id)
        .execute(app.db())
        .await
        .expect("a thread");
        let leaf = app.chats().get(&chat).await.expect("chat").active_leaf_message_id;
        let thread_root = app.chats().message(&chat, "thread-root").await.expect("thread root");
        let in_thread = insert_at_state(app.db(), answer("t1", &chat, &thread_root, &text), None)
            .await
            .expect("write")
            .expect("written");
        assert_eq!(in_thread.thread_id.as_deref(), Some("thread"));
        assert_eq!(
            app.chats().get(&chat).await.expect("chat").active_leaf_message_id,
            leaf,
            "the chat stays at its place"
        );

        // Meant for wherever the chat is, with its parent read earlier:
        // written only while the chat is still at that leaf.
        let stale = insert_at_state(app.db(), answer("stale", &chat, &root, &text), Some(&root.id))
            .await
            .expect("write");
        assert!(stale.is_none(), "the chat had moved on from the root: nothing written");
        let at_leaf = app.chats().message(&chat, &leaf).await.expect("leaf");
        let here = insert_at_state(app.db(), answer("here", &chat, &at_leaf, &text), Some(&leaf))
            .await
            .expect("write")
            .expect("written at the chat's leaf");
        assert_eq!(
            app.chats().get(&chat).await.expect("chat").active_leaf_message_id,
            here.id
        );

        // A chat at another state: nothing is written.
        sqlx::query("UPDATE chats SET active_manifest_id = NULL WHERE id = ?")
            .bind(&chat)
            .execute(app.db())
            .await
            .expect("move");
        let none = insert_at_state(app.db(), answer("m2", &chat, &root, &text), None)
            .await
            .expect("write");
        assert!(none.is_none());
        assert!(app.chats().message(&chat, "m2").await.is_err(), "not written");
        app.close().await;
    }
}
