//! Confirmations: whether a `requires_confirmation` call may run, and the
//! wait for a person's answer. While it waits the call is recorded as
//! `awaiting_approval` and holds its own lock ([`waiting_lock_path`]), not
//! the chat's; no answer (a dropped request, a cancel) is a denial.

use std::path::PathBuf;

use serde_json::Value;

use super::RunRequest;
use super::call::RunEvent;
use super::status::CallStatus;
use crate::lock::FileLock;
use crate::tools::Tools;
use crate::workspace::lock_chat;
use crate::{Atelier, Error, Result, blocking};

/// Whether a `requires_confirmation` tool may run.
#[derive(Debug, Clone, Default)]
pub enum Approval {
    /// Approved in advance (the CLI's `--yes`).
    Approved,
    /// Not approved: a confirmation tool is recorded as denied.
    #[default]
    NotGiven,
    /// Ask: the call waits as `awaiting_approval` until the receiver of
    /// these requests answers (the desktop app asks the person). A dropped
    /// request or a cancelled call counts as a denial.
    Ask(tokio::sync::mpsc::Sender<ApprovalRequest>),
    /// Wait: the call waits as `awaiting_approval` until
    /// [`crate::tools::Tools::answer_approval`] is called with its id (by any task of
    /// this process: the desktop app's Approve and Deny buttons). The caller
    /// hears of the wait through `RunEvent::AwaitingApproval`. Cancelling the
    /// call while it waits counts as a denial.
    Wait,
}

/// A call waiting for a person's decision.
#[derive(Debug)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub chat_id: String,
    pub tool_id: String,
    pub args: Value,
    /// Send `true` to run the call, `false` to deny it.
    pub respond: tokio::sync::oneshot::Sender<bool>,
}

/// `chats/<chat>/waiting/<call>`: the lock a call holds while it waits for
/// a person's answer. The wait does not hold the chat lock (the person may
/// go on using the chat meanwhile), so start-up recovery tells a live wait
/// from a crashed one by this lock instead.
pub(crate) fn waiting_lock_path(app: &Atelier, chat_id: &str, call_id: &str) -> PathBuf {
    app.data_dir().chat_dir(chat_id).join("waiting").join(call_id)
}

impl Atelier {
    /// Waits for the answer to `call_id`, recorded as `awaiting_approval`
    /// by the caller: true runs the call. No answer (a dropped request, a
    /// cancel) is a denial.
    pub(super) async fn wait_for_answer(&self, req: &RunRequest, call_id: &str, chat_id: &str) -> bool {
        let (respond, answer) = tokio::sync::oneshot::channel();
        let asked = match &req.approval {
            Approval::Ask(asker) => {
                let request = ApprovalRequest {
                    call_id: call_id.to_owned(),
                    chat_id: chat_id.to_owned(),
                    tool_id: req.tool_id.clone(),
                    args: req.args.clone(),
                    respond,
                };
                asker.send(request).await.is_ok()
            }
            Approval::Wait => {
                self.pending_approvals().insert(call_id.to_owned(), respond);
                req.control.emit(RunEvent::AwaitingApproval {
                    call_id: call_id.to_owned(),
                });
                true
            }
            // Decided without a question (the run flow does not wait then).
            Approval::Approved => return true,
            Approval::NotGiven => return false,
        };
        let yes = asked
            && tokio::select! {
                answer = answer => answer.unwrap_or(false),
                _ = req.control.cancel.cancelled() => false,
            };
        self.pending_approvals().remove(call_id);
        yes
    }

    /// A confirmation call: recorded as `awaiting_approval` under its own
    /// lock, not the chat's, so while the person decides the chat stays
    /// usable (files dropped, branches switched, other calls run); then
    /// the chat lock, and `running`. The call then runs on the workspace
    /// as it is when the answer comes. Returns the chat lock and the
    /// answer (true: run).
    pub(super) async fn ask_then_lock(
        &self,
        req: &RunRequest,
        tool_id: &str,
        chat_id: &str,
        call_id: &str,
    ) -> Result<(FileLock, bool)> {
        let path = waiting_lock_path(self, chat_id, call_id);
        let waiting = blocking(move || FileLock::acquire(&path)).await?;
        let release = |waiting: FileLock| {
            // Removed while still held: a recovery that opened the old file
            // finds the call no longer waiting (see `recover`).
            let _ = std::fs::remove_file(waiting.path());
        };
        if let Err(e) = self
            .record_call(req, tool_id, chat_id, call_id, CallStatus::AwaitingApproval)
            .await
        {
            release(waiting);
            return Err(e);
        }
        let yes = self.wait_for_answer(req, call_id, chat_id).await;
        let locked = async {
            let lock = lock_chat(self, chat_id).await?;
            sqlx::query("UPDATE tool_calls SET status = 'running' WHERE id = ? AND status = 'awaiting_approval'")
                .bind(call_id)
                .execute(self.db())
                .await?;
            Ok::<_, Error>(lock)
        }
        .await;
        release(waiting);
        match locked {
            Ok(lock) => Ok((lock, yes)),
            Err(e) => {
                self.end_failed(call_id, &e).await?;
                Err(e)
            }
        }
    }
}

impl Tools<'_> {
    /// Answers a call waiting for approval ([`Approval::Wait`]): `true` runs
    /// it, `false` records it as denied. Whether such a call was waiting
    /// (false: it was answered, cancelled or finished already).
    pub fn answer_approval(&self, call_id: &str, approve: bool) -> bool {
        match self.app.pending_approvals().remove(call_id) {
            Some(respond) => respond.send(approve).is_ok(),
            None => false,
        }
    }
}
