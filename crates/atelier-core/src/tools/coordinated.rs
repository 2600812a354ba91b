//! Calls whose work the chat engine does itself — the coordination tools
//! (`spawn_agents`, `list_available_agents`) — recorded exactly as any call:
//! a `tool_calls` row, a `tool` message after the model's turn, the
//! workspace snapshot around it. The difference is the lock: such a call
//! does not hold the chat lock while it works, because the sub-agents it
//! starts run calls of their own, and each takes the chat lock like any
//! call (two holders in one process exclude each other: holding it here
//! would deadlock). Its own lock (`chats/<chat>/waiting/<call>`) is held
//! instead for its whole life, which is how start-up recovery tells it is
//! alive while the chat lock is free.

use std::future::Future;

use serde_json::Value;

use super::Tools;
use super::approval::waiting_lock_path;
use super::call::Outcome;
use super::run::{RunRequest, ToolCallRecord, validate_args};
use super::status::{CallStatus, ErrorKind};
use crate::lock::FileLock;
use crate::workspace::lock_chat;
use crate::{Error, Result, blocking, ids};

impl Tools<'_> {
    /// Records and runs a call whose work is `work(call_id)` (see the
    /// module docs); `schema` checks its arguments first.
    pub(crate) async fn run_coordinated<F, Fut>(
        &self,
        req: RunRequest,
        schema: &Value,
        work: F,
    ) -> Result<ToolCallRecord>
    where
        F: FnOnce(String) -> Fut,
        Fut: Future<Output = Outcome>,
    {
        if let Err(violations) = validate_args(schema, &req.args) {
            let message = format!("invalid arguments for {}:\n  {}", req.tool_id, violations.join("\n  "));
            return self.refuse(req, ErrorKind::InvalidArgs, message).await;
        }
        let chat = self.app.chats().get(&req.chat_id).await?;
        let parent = match &req.parent_id {
            Some(p) => Some(self.app.chats().message(&chat.id, p).await?),
            None => None,
        };
        let call_id = ids::new_id();
        let own = waiting_lock_path(self.app, &chat.id, &call_id);
        let own_lock = {
            let (root, p) = (self.app.data_dir().chat_dir(&chat.id), own.clone());
            blocking(move || FileLock::acquire_within(&root, &p)).await?
        }
        .ok_or_else(|| Error::ChatNotFound(chat.id.clone()))?;
        // Whatever way this ends (an error, the future dropped), the call
        // stops being cancellable and its own lock goes.
        let _alive = Alive {
            app: self.app,
            call_id: &call_id,
            path: own,
            lock: Some(own_lock),
        };
        let prepared = {
            let _lock = lock_chat(self.app, &chat.id).await?;
            self.app
                .record_call(&req, &req.tool_id, &chat.id, &call_id, CallStatus::Running)
                .await?;
            self.app.prepare_call(&req, &chat.id, &call_id, parent).await
        };
        let done = match prepared {
            Ok(at) => {
                let outcome = work(call_id.clone()).await;
                async {
                    let _lock = lock_chat(self.app, &chat.id).await?;
                    self.app.finish_call(&req, None, None, &call_id, at, &outcome).await
                }
                .await
            }
            Err(e) => Err(e),
        };
        if let Err(e) = done {
            // Ended before the own lock goes: a process starting meanwhile
            // must not take the call for a dead one.
            self.app.end_failed(&call_id, &e).await?;
            return Err(e);
        }
        self.call(&call_id).await
    }
}

/// A coordinated call alive in this process: on drop it leaves the
/// running calls and removes its own lock file, then releases the lock
/// (in that order, so recovery never takes the file for a dead call's).
struct Alive<'a> {
    app: &'a crate::Atelier,
    call_id: &'a str,
    path: std::path::PathBuf,
    lock: Option<FileLock>,
}

impl Drop for Alive<'_> {
    fn drop(&mut self) {
        self.app.running_calls().remove(self.call_id);
        let _ = std::fs::remove_file(&self.path);
        self.lock.take();
    }
}
