//! Fork to a new chat: a chat whose history is the path root → one message
//! of another chat, and whose workspace starts at that message's state.
//!
//! Everything the path needs is copied with new ids — its messages, the
//! manifests they and their calls name (with the manifests those are
//! deltas of), the trees of those manifests, and the `tool_calls` rows —
//! so the source can be deleted later without breaking the fork. Blobs are
//! hard-linked into the new chat's store where the file system allows
//! (else copied); nothing is hashed again: a blob's name is its hash.
//! A sibling branch of the source leaves nothing in the fork. The
//! sub-agent threads its `spawn_agents` calls started come along (their
//! messages, calls and states, and the threads those started), and a
//! spawn's result names the fork's copies.
//!
//! A fork is all or nothing: its chat row is written in the transaction
//! that copies its rows, and its folder is made as `chats/.fork-<id>` (its
//! lock `.fork-<id>.lock` held the whole time, `chats::ForkStaging`) and
//! moved into place after the commit. A start in another process leaves a
//! folder whose lock is held. A crash before the commit leaves a staging
//! folder without a chat, which the next start removes; one after it, a
//! chat whose folder is still staged, which the next start puts in place
//! (`chats::recover_deleted`) — never an empty "… (fork)" chat.

use std::collections::{HashMap, HashSet};

use sqlx::SqliteConnection;

use super::Conversation;
use crate::messages::set_active;
use crate::model::{Chat, ContentPart, Role};
use crate::store::tree::{self, EntryKind};
use crate::store::{BlobStore, Hash};
use crate::{Error, Result, blocking, db, ids};

/// In a fork, after its rows are copied and before they are committed.
pub(crate) const FORK_BEFORE_COMMIT: &str = "fork-before-commit";
/// In a fork, after its commit and before its folder is put in place.
pub(crate) const FORK_AFTER_COMMIT: &str = "fork-after-commit";

fn json_ids<'a>(ids: impl IntoIterator<Item = &'a String>) -> Result<String> {
    serde_json::to_string(&ids.into_iter().collect::<Vec<_>>()).map_err(|e| Error::Internal(e.to_string()))
}

/// `INSERT INTO table SELECT …` of the rows of `chat` whose ids are in
/// `ids`, for the new chat, with `mapped` columns put through `fork_map`
/// (every other column copied as it is, whatever later migrations add).
async fn copy_rows(
    conn: &mut SqliteConnection,
    table: &'static str,
    mapped: &[&str],
    from_chat: &str,
    to_chat: &str,
    ids: &str,
) -> Result<()> {
    let columns: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_table_info(?)")
        .bind(table)
        .fetch_all(&mut *conn)
        .await?;
    let exprs: Vec<String> = columns
        .iter()
        .map(|c| {
            if c == "chat_id" {
                "?3".to_owned()
            } else if mapped.contains(&c.as_str()) {
                format!("(SELECT new FROM fork_map WHERE old = {table}.{c})")
            } else {
                c.clone()
            }
        })
        .collect();
    let sql = format!(
        "INSERT INTO {table} ({}) SELECT {} FROM {table} WHERE chat_id = ?1 AND id IN (SELECT value FROM json_each(?2))",
        columns.join(", "),
        exprs.join(", ")
    );
    // Safe: the table is one of ours (a literal), the columns the schema's.
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(from_chat)
        .bind(ids)
        .bind(to_chat)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The chat a fork makes: its id, title and the folder it is staged in.
struct Fork {
    id: String,
    title: String,
    staged: std::path::PathBuf,
}

/// Drops a fork's staging (removing what is left of its folder) off the
/// async workers.
async fn end_staging(staging: crate::chats::ForkStaging) {
    let _ = blocking(move || {
        drop(staging);
        Ok(())
    })
    .await;
}

impl Conversation<'_> {
    /// Forks `chat_id` at `message_id` into a new chat (see the module
    /// docs), titled `title` or "<source> (fork)", with the source's agent,
    /// provider, model and model settings; the new chat is at that message.
    pub async fn fork(&self, chat_id: &str, message_id: &str, title: Option<&str>) -> Result<Chat> {
        let source = self.app.chats().get(chat_id).await?;
        let at = self.app.chats().message(&source.id, message_id).await?;
        if at.thread_id.is_some() {
            return Err(Error::InvalidData {
                what: "message to fork at",
                reason: format!(
                    "{} belongs to a sub-agent's thread: fork at the spawn's message in the chat instead",
                    at.id
                ),
            });
        }
        let path = self.path_to(&source.id, &at.id).await?;
        let title = title
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map_or_else(|| format!("{} (fork)", source.title), str::to_owned);
        let id = ids::new_id();
        let chats_dir = self.app.data_dir().chats_dir();
        let staging = {
            let id = id.clone();
            blocking(move || crate::chats::ForkStaging::begin(&chats_dir, &id)).await?
        };
        let fork = Fork {
            staged: staging.path().to_path_buf(),
            id,
            title,
        };
        // Nothing half-made stays behind: no row was committed.
        let leaf = match self.fill(&source, &fork, &path).await {
            Ok(leaf) => leaf,
            Err(e) => {
                end_staging(staging).await;
                return Err(e);
            }
        };
        let dir = self.app.data_dir().chat_dir(&fork.id);
        let moved = match crate::store::failpoint::hit(FORK_AFTER_COMMIT) {
            Ok(()) => tokio::fs::rename(&fork.staged, &dir)
                .await
                .map_err(Error::io("create", &dir)),
            Err(e) => Err(e),
        };
        if let Err(e) = moved {
            let _ = self.app.chats().delete(&fork.id).await;
            end_staging(staging).await;
            return Err(e);
        }
        end_staging(staging).await;
        tracing::info!(chat = %fork.id, source = %source.id, "forked a chat");
        self.app.workspace().checkout(&fork.id, &leaf).await?;
        self.app.chats().get(&fork.id).await
    }

    /// Writes the fork's chat with the path copied into it, its folder in
    /// `fork.staged`; the new id of its last message.
    async fn fill(&self, source: &Chat, fork: &Fork, path: &[crate::model::Message]) -> Result<String> {
        let db = self.app.db();
        let (root, rest) = path
            .split_first()
            .ok_or_else(|| Error::Internal("an empty path".into()))?;
        // The rows the path names.
        let mut call_ids: Vec<String> = super::branch::call_ids(rest).into_iter().cloned().collect();
        // The root's empty state too: a fork at the root names no other.
        let mut named: Vec<String> = path.iter().map(|m| m.manifest_id.clone()).collect();
        // The threads its spawns started, and theirs in turn: their
        // messages and calls come too.
        let (mut thread_ids, mut thread_messages) = (Vec::<String>::new(), Vec::<(String, String)>::new());
        let mut frontier = call_ids.clone();
        while !frontier.is_empty() {
            let threads: Vec<String> = sqlx::query_scalar(
                "SELECT id FROM threads WHERE chat_id = ? AND parent_call_id IN (SELECT value FROM json_each(?))",
            )
            .bind(&source.id)
            .bind(json_ids(&frontier)?)
            .fetch_all(db)
            .await?;
            if threads.is_empty() {
                break;
            }
            let messages: Vec<(String, String)> = sqlx::query_as(
                "SELECT id, manifest_id FROM messages WHERE chat_id = ? AND thread_id IN (SELECT value FROM json_each(?))",
            )
            .bind(&source.id)
            .bind(json_ids(&threads)?)
            .fetch_all(db)
            .await?;
            frontier = sqlx::query_scalar(
                "SELECT id FROM tool_calls WHERE chat_id = ? AND message_id IN (SELECT value FROM json_each(?))",
            )
            .bind(&source.id)
            .bind(json_ids(messages.iter().map(|(id, _)| id))?)
            .fetch_all(db)
            .await?;
            named.extend(messages.iter().map(|(_, manifest)| manifest.clone()));
            call_ids.extend(frontier.iter().cloned());
            thread_ids.extend(threads);
            thread_messages.extend(messages);
        }
        let calls_json = json_ids(&call_ids)?;
        let call_manifests: Vec<(Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT pre_manifest_id, post_manifest_id FROM tool_calls WHERE chat_id = ? AND id IN (SELECT value FROM json_each(?))",
        )
        .bind(&source.id)
        .bind(&calls_json)
        .fetch_all(db)
        .await?;
        named.extend(call_manifests.into_iter().flat_map(|(a, b)| [a, b]).flatten());
        // With every manifest they are deltas of, down to the empty one.
        let manifests: Vec<(String, Option<String>, String)> = sqlx::query_as(
            "WITH RECURSIVE up(id) AS (SELECT value FROM json_each(?2) UNION \
             SELECT m.parent_id FROM workspace_manifests m JOIN up ON m.id = up.id WHERE m.parent_id IS NOT NULL) \
             SELECT id, parent_id, root_tree FROM workspace_manifests WHERE chat_id = ?1 AND id IN (SELECT id FROM up)",
        )
        .bind(&source.id)
        .bind(json_ids(&named)?)
        .fetch_all(db)
        .await?;
        let (trees, blobs) = self
            .reachable(&source.id, manifests.iter().map(|(_, _, r)| r.as_str()))
            .await?;

        // Blobs first (as a snapshot writes them before its manifest), in
        // the staged folder with the empty workspace.
        let (from, to) = (
            BlobStore::new(self.app.data_dir().blobs_dir(&source.id)),
            BlobStore::new(fork.staged.join("blobs")),
        );
        let workspace = fork.staged.join("workspace");
        blocking(move || {
            std::fs::create_dir_all(&workspace).map_err(Error::io("create", &workspace))?;
            link_blobs(&from, &to, &blobs)
        })
        .await?;

        let mut tx = db::begin_write(db).await?;
        // Threads name their spawn's call, which names a message, and a
        // thread's messages name their thread: the references are checked
        // when everything is in place.
        sqlx::query("PRAGMA defer_foreign_keys = ON").execute(&mut *tx).await?;
        sqlx::query("CREATE TEMP TABLE IF NOT EXISTS fork_map (old TEXT PRIMARY KEY, new TEXT NOT NULL)")
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM fork_map").execute(&mut *tx).await?;
        // The chat, with the source's agent, provider, model and settings.
        let now = ids::now();
        sqlx::query(
            "INSERT INTO chats (id, title, created_at, updated_at, agent_id, provider_id, model, model_settings) \
             SELECT ?, ?, ?, ?, agent_id, provider_id, model, model_settings FROM chats WHERE id = ?",
        )
        .bind(&fork.id)
        .bind(&fork.title)
        .bind(&now)
        .bind(&now)
        .bind(&source.id)
        .execute(&mut *tx)
        .await?;
        let mut map: HashMap<String, String> = HashMap::new();
        for id in path
            .iter()
            .map(|m| &m.id)
            .chain(&call_ids)
            .chain(&thread_ids)
            .chain(thread_messages.iter().map(|(id, _)| id))
            .chain(manifests.iter().map(|(id, _, _)| id))
        {
            map.entry(id.clone()).or_insert_with(ids::new_id);
        }
        for (old, new) in &map {
            sqlx::query("INSERT INTO fork_map (old, new) VALUES (?, ?)")
                .bind(old)
                .bind(new)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT OR IGNORE INTO workspace_trees (chat_id, hash, data) SELECT ?3, hash, data FROM workspace_trees \
             WHERE chat_id = ?1 AND hash IN (SELECT value FROM json_each(?2))",
        )
        .bind(&source.id)
        .bind(serde_json::to_string(&trees).map_err(|e| Error::Internal(e.to_string()))?)
        .bind(&fork.id)
        .execute(&mut *tx)
        .await?;
        let copied: Vec<&String> = manifests.iter().map(|(id, _, _)| id).collect();
        copy_rows(
            &mut tx,
            "workspace_manifests",
            &["id", "parent_id"],
            &source.id,
            &fork.id,
            &json_ids(copied)?,
        )
        .await?;
        // A manifest's source_ref names the call or message that made it.
        sqlx::query(
            "UPDATE workspace_manifests SET source_ref = (SELECT new FROM fork_map WHERE old = source_ref) \
             WHERE chat_id = ? AND source_ref IN (SELECT old FROM fork_map)",
        )
        .bind(&fork.id)
        .execute(&mut *tx)
        .await?;
        copy_rows(
            &mut tx,
            "threads",
            &["id", "parent_call_id"],
            &source.id,
            &fork.id,
            &json_ids(&thread_ids)?,
        )
        .await?;
        copy_rows(
            &mut tx,
            "messages",
            &["id", "parent_id", "manifest_id", "thread_id"],
            &source.id,
            &fork.id,
            &json_ids(
                path.iter()
                    .map(|m| &m.id)
                    .chain(thread_messages.iter().map(|(id, _)| id)),
            )?,
        )
        .await?;
        copy_rows(
            &mut tx,
            "tool_calls",
            &["id", "message_id", "pre_manifest_id", "post_manifest_id"],
            &source.id,
            &fork.id,
            &calls_json,
        )
        .await?;
        // A render plan names the workspace state its files are read from.
        sqlx::query(
            "UPDATE tool_calls SET render_plan = json_set(render_plan, '$.manifest_id', \
             (SELECT new FROM fork_map WHERE old = json_extract(render_plan, '$.manifest_id'))) \
             WHERE chat_id = ? AND render_plan IS NOT NULL \
             AND json_extract(render_plan, '$.manifest_id') IN (SELECT old FROM fork_map)",
        )
        .bind(&fork.id)
        .execute(&mut *tx)
        .await?;
        // A thread's tool messages name their calls, and a spawn's result
        // its threads: ids are unique words, replaced where they stand.
        let thread_tool_messages: Vec<&String> = thread_messages.iter().map(|(id, _)| &map[id]).collect();
        for old in &call_ids {
            sqlx::query(
                "UPDATE messages SET content = replace(content, ?1, ?2) \
                 WHERE chat_id = ?3 AND role = 'tool' AND id IN (SELECT value FROM json_each(?4))",
            )
            .bind(old)
            .bind(&map[old])
            .bind(&fork.id)
            .bind(json_ids(thread_tool_messages.iter().copied())?)
            .execute(&mut *tx)
            .await?;
        }
        for old in &thread_ids {
            // Only the rows that name it (a result may be megabytes); a
            // stopped spawn names its threads in its error.
            sqlx::query(
                "UPDATE tool_calls SET result = replace(result, ?1, ?2), error = replace(error, ?1, ?2) \
                 WHERE chat_id = ?3 AND (instr(result, ?1) > 0 OR instr(error, ?1) > 0)",
            )
            .bind(old)
            .bind(&map[old])
            .bind(&fork.id)
            .execute(&mut *tx)
            .await?;
        }
        // A tool message names its call.
        for m in rest.iter().filter(|m| m.role == Role::Tool) {
            let content: Vec<ContentPart> = m
                .content
                .iter()
                .map(|p| match p {
                    ContentPart::ToolCall { tool_call_id } => ContentPart::ToolCall {
                        tool_call_id: map.get(tool_call_id).cloned().unwrap_or_else(|| tool_call_id.clone()),
                    },
                    other => other.clone(),
                })
                .collect();
            sqlx::query("UPDATE messages SET content = ? WHERE id = ?")
                .bind(serde_json::to_string(&content).map_err(|e| Error::Internal(e.to_string()))?)
                .bind(&map[&m.id])
                .execute(&mut *tx)
                .await?;
        }
        // At its root, as a new chat is: the checkout moves it to the leaf.
        set_active(&mut tx, &fork.id, &map[&root.id], &map[&root.manifest_id]).await?;
        sqlx::query("DELETE FROM fork_map").execute(&mut *tx).await?;
        crate::store::failpoint::hit(FORK_BEFORE_COMMIT)?;
        tx.commit().await?;
        let last = path.last().map_or(&root.id, |m| &m.id);
        Ok(map[last].clone())
    }

    /// The trees reachable from `roots` and the blobs they name (hex).
    async fn reachable(&self, chat_id: &str, roots: impl Iterator<Item = &str>) -> Result<(Vec<String>, Vec<Hash>)> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut blobs: HashSet<Hash> = HashSet::new();
        let mut next: Vec<String> = roots.map(str::to_owned).collect();
        while !next.is_empty() {
            next.retain(|h| seen.insert(h.clone()));
            if next.is_empty() {
                break;
            }
            let rows: Vec<(String, Vec<u8>)> = sqlx::query_as(
                "SELECT hash, data FROM workspace_trees WHERE chat_id = ? AND hash IN (SELECT value FROM json_each(?))",
            )
            .bind(chat_id)
            .bind(json_ids(&next)?)
            .fetch_all(self.app.db())
            .await?;
            next.clear();
            for (hex, data) in rows {
                let corrupt = |reason: String| Error::CorruptTree {
                    chat_id: chat_id.to_owned(),
                    hash: hex.clone(),
                    reason,
                };
                let h = Hash::from_hex(&hex).ok_or_else(|| corrupt("not a hash".into()))?;
                for e in tree::decode(&h, &data).map_err(corrupt)? {
                    match e.kind {
                        EntryKind::Dir => next.push(e.hash.to_hex()),
                        EntryKind::File | EntryKind::Executable => {
                            blobs.insert(e.hash);
                        }
                    }
                }
            }
        }
        Ok((seen.into_iter().collect(), blobs.into_iter().collect()))
    }
}

/// Hard-links (else copies) each blob of `from` into `to`, durably before
/// any row names them (as a snapshot writes its blobs before its manifest).
fn link_blobs(from: &BlobStore, to: &BlobStore, blobs: &[Hash]) -> Result<()> {
    to.ensure_layout()?;
    let mut added = false;
    for h in blobs {
        let (src, dst) = (from.path_of(h), to.path_of(h));
        if dst.exists() {
            continue;
        }
        if let Some(dir) = dst.parent() {
            std::fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
        }
        if std::fs::hard_link(&src, &dst).is_err() {
            // Another file system, or links not allowed: a copy (through a
            // temp name, so a crash never leaves a short blob).
            let tmp = to.root().join("tmp").join(h.to_hex());
            std::fs::copy(&src, &tmp).map_err(Error::io("copy", &src))?;
            std::fs::rename(&tmp, &dst).map_err(Error::io("rename", &tmp))?;
        }
        added = true;
    }
    if added {
        to.sync_everything()?;
    }
    Ok(())
}
