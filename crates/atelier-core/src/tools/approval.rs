//! Confirmations: whether a `requires_confirmation` call may run, and the
//! wait for a person's answer. While it waits the call is recorded as
//! `awaiting_approval`; no answer (a dropped request, a cancel) is a denial.

use serde_json::Value;

use super::RunRequest;
use crate::{Atelier, Result};

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
    /// [`Atelier::answer_approval`] is called with its id (by any task of
    /// this process: the desktop app's Approve and Deny buttons). The caller
    /// hears of the wait through `CallControl::on_awaiting`. Cancelling the
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

impl Atelier {
    /// Asks for approval as the request says; `awaiting_approval` while
    /// the answer is pending.
    pub(super) async fn approved(&self, req: &RunRequest, call_id: &str, chat_id: &str) -> Result<bool> {
        let (respond, answer) = tokio::sync::oneshot::channel();
        match &req.approval {
            Approval::Approved => return Ok(true),
            Approval::NotGiven => return Ok(false),
            Approval::Ask(_) | Approval::Wait => {}
        }
        let set_status = |status: &'static str| {
            sqlx::query("UPDATE tool_calls SET status = ? WHERE id = ?")
                .bind(status)
                .bind(call_id)
                .execute(self.db())
        };
        set_status("awaiting_approval").await?;
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
            _ => {
                self.pending_approvals().insert(call_id.to_owned(), respond);
                if let Some(awaiting) = &req.control.on_awaiting {
                    awaiting(call_id);
                }
                true
            }
        };
        let yes = asked
            && tokio::select! {
                answer = answer => answer.unwrap_or(false),
                _ = req.control.cancel.cancelled() => false,
            };
        self.pending_approvals().remove(call_id);
        set_status("running").await?;
        Ok(yes)
    }

    /// Answers a call waiting for approval ([`Approval::Wait`]): `true` runs
    /// it, `false` records it as denied. Whether such a call was waiting
    /// (false: it was answered, cancelled or finished already).
    pub fn answer_approval(&self, call_id: &str, approve: bool) -> bool {
        match self.pending_approvals().remove(call_id) {
            Some(respond) => respond.send(approve).is_ok(),
            None => false,
        }
    }
}
