//! The chat engine: the `Conversation` facet (`app.conversation()`). A
//! person's message starts a run of the chat's agent: its tools resolved
//! once (fixed for the run), the branch being answered sent to the model
//! ([`context`]), each model turn written as one `assistant` message when
//! it ends, and each call it made run through the one run flow (routing,
//! validation, confirmation, workspace capture) as a chain of `tool`
//! messages — exactly as a hand run. The loop ends at an answer, at the
//! agent's `max_steps`, on Stop (what streamed and what ran are kept), or
//! on an error (kept on the message).

mod branch;
pub mod budget;
mod calls;
pub mod context;
mod events;
mod fork;
pub mod images;
mod journal;
mod persist;
mod results;
mod run;
mod spawn;
mod title;

pub use events::{ChatEvent, RunOutcome, RunStatus, SendOptions};
pub(crate) use journal::recover_turns;

use crate::model::Role;
use crate::{Atelier, Error, Result};

/// The agent a chat without one talks to.
pub const DEFAULT_AGENT: &str = "assistant";

/// The chat engine: `app.conversation()`.
#[derive(Debug, Clone, Copy)]
pub struct Conversation<'a> {
    app: &'a Atelier,
}

impl Atelier {
    /// The chat engine: send a message, have the chat's agent answer.
    pub fn conversation(&self) -> Conversation<'_> {
        Conversation { app: self }
    }
}

/// Where a run starts: a new message of the person, or (a retry) after an
/// existing message.
enum Start<'t> {
    Message {
        text: &'t str,
        parent: Option<String>,
        /// Workspace paths of attached images.
        images: Vec<String>,
    },
    From(String),
    /// A sub-agent's run in its thread: from its first message (the task),
    /// at this depth, with this provider and model.
    Thread {
        first: String,
        depth: u32,
        choice: Box<branch::Choice>,
    },
}

impl Conversation<'_> {
    /// Sends `text` as the person's message in `chat_id` and runs the
    /// chat's agent until it answers (see the module docs). `on` hears
    /// every step as it happens.
    pub async fn send(
        &self,
        chat_id: &str,
        text: &str,
        opts: SendOptions,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<RunOutcome> {
        // Stop finds the run from the moment it is asked for, before the
        // attachments are added and the chat is read (a busy chat refuses
        // the message here, with nothing uploaded for it).
        let registered = Registered::new(self.app, chat_id, &opts.cancel)?;
        let mut parent = opts.parent_id.clone();
        let images = self.attach(chat_id, &mut parent, &opts.images).await?;
        self.run(
            chat_id,
            Start::Message { text, parent, images },
            opts,
            Some(registered),
            on,
        )
        .await
    }

    /// Edits a message of the person: the new text becomes a sibling of
    /// `message_id` (the original stays, a branch away) and is answered.
    pub async fn edit(
        &self,
        chat_id: &str,
        message_id: &str,
        text: &str,
        opts: SendOptions,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<RunOutcome> {
        let registered = Registered::new(self.app, chat_id, &opts.cancel)?;
        let m = self.app.chats().message(chat_id, message_id).await?;
        if m.role != Role::User {
            return Err(Error::InvalidData {
                what: "message to edit",
                reason: format!(
                    "{} is a {} message: only the person's messages are edited",
                    m.id,
                    m.role.as_str()
                ),
            });
        }
        self.run(
            chat_id,
            Start::Message {
                text,
                parent: m.parent_id,
                images: Vec::new(),
            },
            opts,
            Some(registered),
            on,
        )
        .await
    }

    /// Answers again: a new run from the parent of assistant message
    /// `message_id`, a sibling of it (the old answer stays, a branch away).
    pub async fn retry(
        &self,
        chat_id: &str,
        message_id: &str,
        opts: SendOptions,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<RunOutcome> {
        let registered = Registered::new(self.app, chat_id, &opts.cancel)?;
        let m = self.app.chats().message(chat_id, message_id).await?;
        let parent = match (m.role, m.parent_id) {
            (Role::Assistant, Some(p)) => p,
            (role, _) => {
                return Err(Error::InvalidData {
                    what: "message to retry",
                    reason: format!(
                        "{} is a {} message: only a model's answers are retried",
                        m.id,
                        role.as_str()
                    ),
                });
            }
        };
        self.run(chat_id, Start::From(parent), opts, Some(registered), on).await
    }

    /// Adds image files to the workspace (as a drop does: a `user_upload`
    /// node, at `parent` when one is given) so a message can attach them;
    /// their workspace paths. The new message goes under the upload.
    async fn attach(
        &self,
        chat_id: &str,
        parent: &mut Option<String>,
        files: &[std::path::PathBuf],
    ) -> Result<Vec<String>> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        for f in files {
            images::check_attachment(f)?;
        }
        if let Some(p) = parent.take() {
            self.app.workspace().checkout(chat_id, &p).await?;
        }
        self.app
            .workspace()
            .upload_files(chat_id, files.to_vec(), "", &crate::store::Observer::default())
            .await?;
        Ok(files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    /// Stops the model run going on in a chat (its stream and its running
    /// tool end; what streamed and what ran are kept). Whether one was.
    pub fn stop(&self, chat_id: &str) -> bool {
        match self.app.chat_runs().get(chat_id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether this process is running a model run in the chat.
    pub fn is_running(&self, chat_id: &str) -> bool {
        self.app.chat_runs().contains_key(chat_id)
    }
}

fn busy(chat_id: &str) -> Error {
    Error::Conflict(format!("chat {chat_id} is already answering: stop that run first"))
}

/// A person's run, registered for [`Conversation::stop`] (and as the
/// chat's one run) from the moment `send`, `edit` or `retry` is called
/// until it ends: Stop pressed while the run is still starting stops it.
pub(super) struct Registered<'a> {
    app: &'a Atelier,
    chat_id: String,
}

impl<'a> Registered<'a> {
    /// Registers a run of `chat_id`; a chat runs one at a time.
    pub(super) fn new(app: &'a Atelier, chat_id: &str, cancel: &tokio_util::sync::CancellationToken) -> Result<Self> {
        let mut runs = app.chat_runs();
        if runs.contains_key(chat_id) {
            return Err(busy(chat_id));
        }
        runs.insert(chat_id.to_owned(), cancel.clone());
        Ok(Self {
            app,
            chat_id: chat_id.to_owned(),
        })
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.app.chat_runs().remove(&self.chat_id);
    }
}
