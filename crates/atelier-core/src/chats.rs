//! Chats and their message trees.
//!
//! A chat starts with a root `system` message whose manifest is the empty
//! workspace. Messages are immutable; each records the workspace state after
//! it. Appending under any earlier message makes a branch; the chat's active
//! leaf says which branch the workspace folder shows. Everything here that
//! moves the workspace goes through [`crate::workspace`], which first
//! records pending edits so nothing a person changed by hand is lost.

use std::collections::{HashMap, HashSet};

use sqlx::Row;

use crate::messages::{NewMessage, insert_message, message_from_row, select_messages, set_active};
use crate::model::{Chat, ManifestSource, Message, MessageNode, Role};
use crate::{Error, Result, db, ids};

/// Chats and their message trees: `app.chats()`. A view of the [`crate::Atelier`] handle (cheap, `Copy`);
/// every operation of this area is a method here.
#[derive(Debug, Clone, Copy)]
pub struct Chats<'a> {
    pub(crate) app: &'a crate::Atelier,
}

/// An id prefix that matches several rows (at most six are read): the
/// error lists them.
pub(crate) fn ambiguous(what: &'static str, prefix: &str, rows: &[sqlx::sqlite::SqliteRow]) -> Error {
    let mut candidates: Vec<String> = rows.iter().filter_map(|r| r.try_get::<String, _>("id").ok()).collect();
    let more = candidates.len() > 5;
    candidates.truncate(5);
    if more {
        candidates.push("…".to_owned());
    }
    Error::AmbiguousId {
        what,
        prefix: prefix.to_owned(),
        candidates,
    }
}

/// Where a chat's folder waits while the chat is deleted.
fn trash_of(chats_dir: &std::path::Path, chat_id: &str) -> std::path::PathBuf {
    chats_dir.join(format!(".trash-{chat_id}"))
}

mod recover;
pub(crate) use recover::{ForkStaging, recover_deleted};

/// The title of a chat created without one.
pub const DEFAULT_TITLE: &str = "New chat";

/// Whether `title` is a placeholder a first exchange replaces: the default,
/// or the numbered ones the app makes so new chats can be told apart
/// ("New chat 3").
pub fn is_placeholder_title(title: &str) -> bool {
    title.strip_prefix(DEFAULT_TITLE).is_some_and(|rest| {
        rest.is_empty()
            || rest
                .strip_prefix(' ')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// `SELECT <chat columns> FROM chats c <tail>`, as a literal (sqlx only
/// takes literal SQL; values are always bound).
macro_rules! select_chats {
    ($tail:literal) => {
        concat!(
            "SELECT c.id, c.title, c.created_at, c.updated_at, c.active_leaf_message_id, ",
            "c.active_manifest_id, c.agent_id, c.provider_id, c.model, c.model_settings, ",
            "(SELECT m.id FROM messages m WHERE m.chat_id = c.id AND m.parent_id IS NULL AND m.thread_id IS NULL) AS root_message_id ",
            "FROM chats c ",
            $tail
        )
    };
}

fn chat_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Chat> {
    Ok(Chat {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        root_message_id: row.try_get::<Option<String>, _>("root_message_id")?.unwrap_or_default(),
        active_leaf_message_id: row
            .try_get::<Option<String>, _>("active_leaf_message_id")?
            .unwrap_or_default(),
        active_manifest_id: row
            .try_get::<Option<String>, _>("active_manifest_id")?
            .unwrap_or_default(),
        agent_id: row.try_get("agent_id")?,
        provider_id: row.try_get("provider_id")?,
        model: row.try_get("model")?,
        model_settings: serde_json::from_str(&row.try_get::<String, _>("model_settings")?).map_err(|e| {
            crate::Error::InvalidData {
                what: "chat model_settings",
                reason: e.to_string(),
            }
        })?,
    })
}

impl Chats<'_> {
    /// Creates a chat: a root `system` message and an empty workspace.
    pub async fn create(&self, title: Option<&str>) -> Result<Chat> {
        let title = title.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(DEFAULT_TITLE);
        let chat_id = ids::new_id();
        let now = ids::now();
        let ws = self.app.workspace_dir(&chat_id);
        tokio::fs::create_dir_all(&ws).await.map_err(Error::io("create", &ws))?;
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query("INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)")
            .bind(&chat_id)
            .bind(title)
            .bind(&now)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        let root_id = ids::new_id();
        let manifest_id = crate::workspace::manifests::insert_empty(&mut tx, &chat_id, &root_id).await?;
        insert_message(
            &mut tx,
            NewMessage {
                id: root_id.clone(),
                chat_id: &chat_id,
                parent_id: None,
                role: Role::System,
                content: &[],
                manifest_id: &manifest_id,
                meta: None,
                thread_id: None,
            },
        )
        .await?;
        set_active(&mut tx, &chat_id, &root_id, &manifest_id).await?;
        tx.commit().await?;
        tracing::info!(chat = %chat_id, "created chat");
        self.get(&chat_id).await
    }

    /// All chats, most recently updated first.
    pub async fn list(&self) -> Result<Vec<Chat>> {
        let rows = sqlx::query(select_chats!("ORDER BY c.updated_at DESC, c.id DESC"))
            .fetch_all(self.app.db())
            .await?;
        rows.iter().map(chat_from_row).collect()
    }

    /// A chat by id, or by a unique prefix of its id.
    pub async fn get(&self, id: &str) -> Result<Chat> {
        let row = sqlx::query(select_chats!("WHERE c.id = ?"))
            .bind(id)
            .fetch_optional(self.app.db())
            .await?;
        if let Some(row) = row {
            return chat_from_row(&row);
        }
        let rows = sqlx::query(select_chats!(
            "WHERE length(?1) >= 4 AND substr(c.id, 1, length(?1)) = ?1 ORDER BY c.id LIMIT 6"
        ))
        .bind(id)
        .fetch_all(self.app.db())
        .await?;
        match rows.as_slice() {
            [] => Err(Error::ChatNotFound(id.to_owned())),
            [one] => chat_from_row(one),
            many => Err(ambiguous("chat", id, many)),
        }
    }

    /// Renames a chat.
    pub async fn rename(&self, id: &str, title: &str) -> Result<Chat> {
        let chat = self.get(id).await?;
        let title = title.trim();
        let title = if title.is_empty() { DEFAULT_TITLE } else { title };
        sqlx::query("UPDATE chats SET title = ?, updated_at = ? WHERE id = ?")
            .bind(title)
            .bind(ids::now())
            .bind(&chat.id)
            .execute(self.app.db())
            .await?;
        self.get(&chat.id).await
    }

    /// Sets the chat's overrides of its agent's model settings (the whole
    /// set: an unset field falls through to the agent's).
    pub async fn set_model_settings(&self, id: &str, settings: &crate::model::ModelSettings) -> Result<Chat> {
        let chat = self.get(id).await?;
        settings.check().map_err(|reason| crate::Error::InvalidData {
            what: "chat model settings",
            reason,
        })?;
        let text = serde_json::to_string(settings).map_err(|e| crate::Error::Internal(e.to_string()))?;
        sqlx::query("UPDATE chats SET model_settings = ?, updated_at = ? WHERE id = ?")
            .bind(text)
            .bind(ids::now())
            .bind(&chat.id)
            .execute(self.app.db())
            .await?;
        self.get(&chat.id).await
    }

    /// Deletes a chat: its rows (messages, manifests, tool calls) and its
    /// folder (workspace and blobs).
    pub async fn delete(&self, id: &str) -> Result<()> {
        let chat = self.get(id).await?;
        let _lock = crate::workspace::lock_chat(self.app, &chat.id).await?;
        self.app.python().stop_chat(&chat.id);
        self.app.mcp().stop_chat(&chat.id).await;
        self.app.edit_watch().forget(&chat.id);
        // The folder goes to the trash first (one rename), then the row: a
        // crash between the two is put right on the next start (see
        // `recover_deleted`), and a crash after them leaves only the trash.
        let dir = self.app.data_dir().chat_dir(&chat.id);
        let trash = trash_of(&self.app.data_dir().chats_dir(), &chat.id);
        match tokio::fs::rename(&dir, &trash).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("remove", &dir)(e)),
        }
        crate::store::failpoint::hit(crate::store::failpoint::DELETE_BEFORE_COMMIT)?;
        let mut tx = db::begin_write(self.app.db()).await?;
        sqlx::query("DELETE FROM chats WHERE id = ?")
            .bind(&chat.id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        crate::store::failpoint::hit(crate::store::failpoint::DELETE_AFTER_COMMIT)?;
        tokio::fs::remove_dir_all(&trash).await.or_else(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(Error::io("remove", &trash)(e))
            }
        })?;
        tracing::info!(chat = %chat.id, "deleted chat");
        Ok(())
    }

    /// A message of a chat, by id or unique prefix.
    pub async fn message(&self, chat_id: &str, id: &str) -> Result<Message> {
        let row = sqlx::query(select_messages!("WHERE chat_id = ? AND id = ?"))
            .bind(chat_id)
            .bind(id)
            .fetch_optional(self.app.db())
            .await?;
        if let Some(row) = row {
            return message_from_row(&row);
        }
        let rows = sqlx::query(select_messages!(
            "WHERE chat_id = ?1 AND length(?2) >= 4 AND substr(id, 1, length(?2)) = ?2 ORDER BY id LIMIT 6"
        ))
        .bind(chat_id)
        .bind(id)
        .fetch_all(self.app.db())
        .await?;
        match rows.as_slice() {
            [] => Err(Error::MessageNotFound {
                chat_id: chat_id.to_owned(),
                message_id: id.to_owned(),
            }),
            [one] => message_from_row(one),
            many => Err(ambiguous("message", id, many)),
        }
    }

    /// Every message of the chat, parents before children, siblings in
    /// creation order, each with its children and whether it is on the
    /// active branch.
    pub async fn tree(&self, chat_id: &str) -> Result<Vec<MessageNode>> {
        let chat = self.get(chat_id).await?;
        let rows = sqlx::query(select_messages!(
            "WHERE chat_id = ? AND thread_id IS NULL ORDER BY rowid"
        ))
        .bind(&chat.id)
        .fetch_all(self.app.db())
        .await?;
        let messages = rows.iter().map(message_from_row).collect::<Result<Vec<_>>>()?;
        let sources: HashMap<String, String> =
            sqlx::query_as("SELECT id, source FROM workspace_manifests WHERE chat_id = ?")
                .bind(&chat.id)
                .fetch_all(self.app.db())
                .await?
                .into_iter()
                .collect();
        let mut children: HashMap<&str, Vec<String>> = HashMap::new();
        let mut parent_of: HashMap<&str, &str> = HashMap::new();
        for m in &messages {
            if let Some(p) = &m.parent_id {
                children.entry(p.as_str()).or_default().push(m.id.clone());
                parent_of.insert(&m.id, p);
            }
        }
        let mut active: HashSet<&str> = HashSet::new();
        let mut cur = Some(chat.active_leaf_message_id.as_str());
        while let Some(id) = cur {
            active.insert(id);
            cur = parent_of.get(id).copied();
        }
        // Depth-first, children in creation order: the order a tree view shows.
        let by_id: HashMap<&str, &Message> = messages.iter().map(|m| (m.id.as_str(), m)).collect();
        let mut out = Vec::with_capacity(messages.len());
        let mut stack: Vec<&str> = messages
            .iter()
            .filter(|m| m.parent_id.is_none())
            .map(|m| m.id.as_str())
            .collect();
        while let Some(id) = stack.pop() {
            let Some(m) = by_id.get(id) else { continue };
            let kids = children.remove(id).unwrap_or_default();
            for k in kids.iter().rev() {
                if let Some((key, _)) = by_id.get_key_value(k.as_str()) {
                    stack.push(key);
                }
            }
            let source = sources
                .get(&m.manifest_id)
                .and_then(|s| ManifestSource::parse(s))
                .ok_or_else(|| Error::Internal(format!("message {id} has no known manifest source")))?;
            out.push(MessageNode {
                message: (*m).clone(),
                children: kids,
                on_active_branch: active.contains(id),
                latest_leaf: String::new(),
                source,
            });
        }
        // Children come after their parent: fill leaves from the end.
        let mut leaf_of: HashMap<String, String> = HashMap::with_capacity(out.len());
        for node in out.iter_mut().rev() {
            node.latest_leaf = match node.children.last() {
                Some(newest) => leaf_of.get(newest).cloned().unwrap_or_else(|| newest.clone()),
                None => node.message.id.clone(),
            };
            leaf_of.insert(node.message.id.clone(), node.latest_leaf.clone());
        }
        Ok(out)
    }

    /// Where a switch to `message_id`'s branch lands: from it, the newest
    /// child, repeatedly, down to a leaf (the message itself if it has no
    /// children).
    pub async fn latest_leaf(&self, chat_id: &str, message_id: &str) -> Result<String> {
        let id = self.message(chat_id, message_id).await?.id;
        // One query walking down, not one per level: a switch at the top of
        // a 200-message branch took 200 round trips to the pool (~20 ms).
        let leaf = sqlx::query_scalar::<_, String>(
            "WITH RECURSIVE down(id, depth) AS ( \
               SELECT ?, 0 \
               UNION ALL \
               SELECT (SELECT m.id FROM messages m WHERE m.parent_id = down.id ORDER BY m.rowid DESC LIMIT 1), \
                      down.depth + 1 \
               FROM down WHERE down.id IS NOT NULL \
             ) \
             SELECT id FROM down WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1",
        )
        .bind(&id)
        .fetch_one(self.app.db())
        .await?;
        Ok(leaf)
    }

    /// The messages from the root to the active leaf.
    pub async fn active_branch(&self, chat_id: &str) -> Result<Vec<Message>> {
        Ok(self
            .app
            .chats()
            .tree(chat_id)
            .await?
            .into_iter()
            .filter(|n| n.on_active_branch)
            .map(|n| n.message)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::is_placeholder_title;

    #[test]
    fn the_default_and_numbered_titles_are_placeholders_and_nothing_else() {
        for t in ["New chat", "New chat 2", "New chat 31"] {
            assert!(is_placeholder_title(t), "{t}");
        }
        for t in [
            "New chat about cats",
            "New chat 2b",
            "New chat ",
            "New chats",
            "new chat",
            "Trip",
        ] {
            assert!(!is_placeholder_title(t), "{t}");
        }
    }
}
