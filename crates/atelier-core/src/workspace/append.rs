//! Appending messages to a chat's tree. A message that starts from its
//! parent's workspace is written under the chat's lock after pending edits
//! are recorded and the folder is put at the parent's state
//! ([`Workspace::append_under`]); a model's turn, which changes no file,
//! has a path of its own that never waits ([`Workspace::append_answer`]).

use crate::lock::{FileLock, Probe};
use crate::messages::{NewMessage, insert_at_state, insert_message};
use crate::model::{ContentPart, Message, Role};
use crate::store::Observer;
use crate::{Error, Result, db, ids};

use super::{Workspace, lock_chat};

/// A message under `parent`, at its workspace state and in its thread.
fn under<'a>(
    parent: &'a Message,
    id: &str,
    chat_id: &'a str,
    role: Role,
    content: &'a [ContentPart],
    meta: Option<&'a serde_json::Value>,
) -> NewMessage<'a> {
    NewMessage {
        id: id.to_owned(),
        chat_id,
        parent_id: Some(&parent.id),
        role,
        content,
        manifest_id: &parent.manifest_id,
        meta,
        // A message answers within its parent's thread.
        thread_id: parent.thread_id.as_deref(),
    }
}

impl Workspace<'_> {
    /// Appends a message that starts from `parent`'s workspace when the
    /// edit watcher's fence, passed just before (while the caller gathered
    /// what else the message needs), found the folder at its recorded
    /// state (`fenced`): then, with the chat's lock if it is free and no
    /// event reported since, in one request that writes only while the chat
    /// is still at the parent's state (and at its leaf, when `at_leaf`: the
    /// parent is where the chat was when read, not a branch the caller
    /// named). Otherwise [`Self::append_under`], which waits for the lock,
    /// records pending edits first and puts the folder back.
    pub(crate) async fn append_fenced(
        &self,
        fenced: bool,
        parent: Message,
        at_leaf: bool,
        role: Role,
        content: Vec<ContentPart>,
    ) -> Result<Message> {
        let chat_id = parent.chat_id.clone();
        if fenced && role != Role::System {
            let leaf = at_leaf.then_some(parent.id.as_str());
            let still_clean = || self.app.edit_watch().still_clean(&chat_id);
            let id = ids::new_id();
            let m = under(&parent, &id, &chat_id, role, &content, None);
            if let Some(message) = self.write_if_free(m, leaf, still_clean).await? {
                return Ok(message);
            }
        }
        let parent = (!at_leaf).then_some(parent);
        self.append_under(&chat_id, parent, role, content, None, None).await
    }

    /// Appends a message under the active leaf, or under `parent_id` (a
    /// branch). Pending edits are first recorded under the leaf they were
    /// made on; the new message starts from its parent's workspace and
    /// becomes the active leaf.
    pub async fn append_message(
        &self,
        chat_id: &str,
        parent_id: Option<&str>,
        role: Role,
        content: Vec<ContentPart>,
    ) -> Result<Message> {
        self.append_message_with(chat_id, parent_id, role, content, None, None)
            .await
    }

    /// [`Self::append_message`] with an assistant turn's `meta`, and the id
    /// the message must have (a journaled turn's), if any.
    pub(crate) async fn append_message_with(
        &self,
        chat_id: &str,
        parent_id: Option<&str>,
        role: Role,
        content: Vec<ContentPart>,
        meta: Option<serde_json::Value>,
        id: Option<String>,
    ) -> Result<Message> {
        let chat = self.app.chats().get(chat_id).await?;
        let explicit_parent = match parent_id {
            Some(p) => Some(self.app.chats().message(&chat.id, p).await?),
            None => None,
        };
        self.append_under(&chat.id, explicit_parent, role, content, meta, id)
            .await
    }

    /// [`Self::append_message_with`] for a chat id as stored and a parent
    /// already read (a model run knows both: one turn fewer of reads).
    pub(crate) async fn append_under(
        &self,
        chat_id: &str,
        explicit_parent: Option<Message>,
        role: Role,
        content: Vec<ContentPart>,
        meta: Option<serde_json::Value>,
        id: Option<String>,
    ) -> Result<Message> {
        if role == Role::System {
            return Err(Error::InvalidData {
                what: "message role",
                reason: "only a chat's root is a system message".into(),
            });
        }
        let _lock = lock_chat(self.app, chat_id).await?;
        let chat = self.app.chats().get(chat_id).await?; // fresh, under the lock
        let stays = explicit_parent
            .as_ref()
            .is_none_or(|p| p.manifest_id == chat.active_manifest_id);
        let id = id.unwrap_or_else(ids::new_id);
        let (parent, moving) = if stays && self.app.edit_watch().is_clean(&chat.id).await {
            // The folder is at the parent's state and the watcher saw
            // nothing since the last recorded walk: no edits made outside
            // to record first, nothing to put back (the run flow's own
            // shortcut), so the write is one request.
            let parent = match explicit_parent {
                Some(p) => p,
                None => self.app.chats().message(&chat.id, &chat.active_leaf_message_id).await?,
            };
            if let Some(message) = insert_at_state(
                self.app.db(),
                under(&parent, &id, &chat.id, role, &content, meta.as_ref()),
                None,
            )
            .await?
            {
                return Ok(message);
            }
            (parent, None)
        } else {
            let (mut current, _) = self.app.capture_pending(&chat, &Observer::default()).await?;
            let parent = match explicit_parent {
                Some(p) => p,
                None => self.app.chats().message(&chat.id, &current.leaf).await?,
            };
            if parent.manifest_id != current.manifest_id {
                let moving = self
                    .app
                    .move_folder(
                        &mut current,
                        &parent.id,
                        &parent.manifest_id,
                        None,
                        &Observer::default(),
                    )
                    .await?;
                (parent, Some(moving))
            } else {
                (parent, None)
            }
        };
        let mut tx = db::begin_write(self.app.db()).await?;
        let message = insert_message(&mut tx, under(&parent, &id, &chat.id, role, &content, meta.as_ref())).await?;
        crate::messages::advance(&mut tx, &message).await?;
        tx.commit().await?;
        if let Some(moving) = moving {
            moving.done();
        }
        Ok(message)
    }

    /// Appends a message that records no change to the workspace (a
    /// model's turn) under a parent already read: the chat lock only if it
    /// is free right now (no wait, no trip through the blocking pool), and
    /// no edit-watcher fence or fresh read of the chat — a model run writes
    /// one per turn, and those were most of what a turn cost of its own.
    ///
    /// Under the lock nobody is between changing the folder and recording
    /// it, so the chat's recorded state is the folder's; one request writes
    /// the message and moves the chat to it only while that state is still
    /// the parent's. Otherwise (the lock is busy: someone is moving the
    /// folder; another branch was checked out; the chat is gone) it takes
    /// [`Self::append_under`]'s way, which waits for the lock, puts the
    /// folder back or names the error. Edits made in the folder while the
    /// model answered stay pending: the run's next call records them, after
    /// this turn — the turn was answered from the state before them.
    pub(crate) async fn append_answer(
        &self,
        chat_id: &str,
        parent: Message,
        content: Vec<ContentPart>,
        meta: Option<serde_json::Value>,
        id: Option<String>,
    ) -> Result<Message> {
        let id = id.unwrap_or_else(ids::new_id);
        let m = under(&parent, &id, chat_id, Role::Assistant, &content, meta.as_ref());
        if let Some(message) = self.write_if_free(m, None, || true).await? {
            return Ok(message);
        }
        self.append_under(chat_id, Some(parent), Role::Assistant, content, meta, Some(id))
            .await
    }

    /// The one-request write of a message at its parent's state (see
    /// [`insert_at_state`]), made only when the chat's lock is free right
    /// now and `also` holds under it; `None` when either is not so or the
    /// chat has moved on, and the caller takes [`Self::append_under`]'s
    /// way. The lock is taken here with a few system calls: the blocking
    /// pool would cost more.
    async fn write_if_free(
        &self,
        m: NewMessage<'_>,
        leaf: Option<&str>,
        also: impl FnOnce() -> bool,
    ) -> Result<Option<Message>> {
        let lock = self.app.data_dir().chat_dir(m.chat_id).join("lock");
        match FileLock::try_take_present(&lock) {
            Ok(Probe::Taken(_lock)) if also() => insert_at_state(self.app.db(), m, leaf).await,
            _ => Ok(None),
        }
    }
}
