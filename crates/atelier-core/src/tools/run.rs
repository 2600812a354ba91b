//! The run flow: one code path for every caller and every backend.
//!
//! resolve the tool → validate arguments → (a confirmation tool: record the
//! call `awaiting_approval` and wait for the answer, holding only the call's
//! own lock) → take the chat lock, record the call `running`, record pending
//! edits → call → snapshot (also after an error) → render plan → a `tool`
//! message under the active leaf (or a given parent: a branch) whose
//! manifest is the post-manifest. A model's call under the active leaf
//! with edits pending (the person saved a file while the model answered)
//! runs on from the edit node those edits became, not from the folder put
//! back. A call refused before it runs (invalid
//! arguments, denied) is still a recorded call with status `error` and an
//! `error_kind`.

use serde_json::Value;

use super::approval::Approval;
pub use super::arg_problems::validate_args;
use super::call::{Backend, Outcome};
use super::plan;
use super::record::Finish;
use super::status::{CallStatus, ErrorKind};
use super::target::{Known, Target};
use crate::lock::FileLock;
use crate::messages::{NewMessage, insert_message, set_active};
use crate::model::{ContentPart, ManifestSource, Message, Role};
use crate::tools::Tools;
use crate::toolsets::interp::Context;
use crate::toolsets::records::{ToolRecord, ToolsetRecord};
use crate::workspace::lock_chat;
use crate::{Atelier, Result, db, ids};

pub(crate) use super::request::NO_ONE_ASKED;
pub use super::request::{RunRequest, ToolCallRecord};

/// What happens at the call's turn, decided before it takes the chat lock.
#[derive(Debug)]
enum Decision {
    /// Refused before it runs (invalid arguments, a name the run does not
    /// have): recorded with this kind, nothing runs.
    Refuse(ErrorKind, String),
    /// Not approved: recorded as `denied`.
    Deny,
    Run,
}

/// Where a call goes, decided under the chat lock before it runs.
pub(super) struct Prepared {
    chat: crate::model::Chat,
    parent_id: String,
    thread_id: Option<String>,
    pre_manifest_id: String,
    leaf: String,
    walks: crate::store::Observer,
}

/// A recorded call about to take its turn: where it goes in the tree and
/// what it may do.
struct Turn<'a> {
    call_id: &'a str,
    /// Run under this message instead of the active leaf.
    parent: Option<crate::model::Message>,
    decision: Decision,
}

impl Atelier {
    /// A call that waits for no one: the chat lock first, then the row, so
    /// a `running` row always has a live holder of the chat lock (which is
    /// how start-up recovery tells a crashed call).
    async fn lock_then_record(
        &self,
        req: &RunRequest,
        tool_id: &str,
        chat_id: &str,
        call_id: &str,
    ) -> Result<FileLock> {
        let lock = lock_chat(self, chat_id).await?;
        self.record_call(req, tool_id, chat_id, call_id, CallStatus::Running)
            .await?;
        Ok(lock)
    }

    /// Everything after the call is recorded as `running`; the caller holds
    /// the chat lock. The call's `tool` message.
    async fn run_recorded(
        &self,
        req: &RunRequest,
        target: Option<(&ToolRecord, Backend<'_>)>,
        toolset: Option<&ToolsetRecord>,
        chat_id: &str,
        turn: Turn<'_>,
    ) -> Result<Message> {
        let Turn {
            call_id,
            parent,
            decision,
        } = turn;
        let at = self.prepare_call(req, chat_id, call_id, parent).await?;
        let outcome = match (decision, &target) {
            (Decision::Refuse(kind, message), _) => Outcome::failed(kind, message),
            (Decision::Deny, _) => Outcome::failed(ErrorKind::Denied, "denied by user"),
            (Decision::Run, Some((tool, backend))) => {
                backend.call(self, tool, &at.chat.id, &req.args, &req.control).await
            }
            (Decision::Run, None) => Outcome::failed(ErrorKind::Internal, "no tool to run"),
        };
        let tool = target.as_ref().map(|(t, _)| *t);
        self.finish_call(req, tool, toolset, call_id, at, &outcome).await
    }

    /// Where the recorded call `call_id` goes, under the chat lock: edits
    /// made outside are recorded first, the folder is put at the parent's
    /// state, and that place is written on the call's row before anything
    /// runs — here, so that no way of starting a call can leave it out (a
    /// call that dies unplaced is ended wherever the chat is by then).
    pub(super) async fn prepare_call(
        &self,
        req: &RunRequest,
        chat_id: &str,
        call_id: &str,
        parent: Option<crate::model::Message>,
    ) -> Result<Prepared> {
        let chat = self.chats().get(chat_id).await?; // fresh, under the lock
        let walks = req.control.walk_observer();
        // A call answers within its parent's sub-agent thread, if any.
        let thread_id = parent.as_ref().and_then(|p| p.thread_id.clone());
        let stays = parent.as_ref().is_none_or(|p| p.manifest_id == chat.active_manifest_id);
        let (parent_id, pre_manifest_id, leaf) = if stays && self.edit_watch().is_clean(&chat.id).await {
            // The watcher saw nothing since the last recorded walk: there
            // are no edits made outside to record first.
            let leaf = chat.active_leaf_message_id.clone();
            (
                parent.map_or_else(|| leaf.clone(), |p| p.id),
                chat.active_manifest_id.clone(),
                leaf,
            )
        } else {
            let (mut current, _) = self.capture_pending(&chat, &walks).await?;
            let parent_id = match parent {
                // A model's next call at the chat's own place: it goes on
                // from what the person changed meanwhile, now recorded as
                // an edit node there, instead of putting the folder back
                // under them. (A person naming a parent gets that parent.)
                Some(p)
                    if req.model_call_id.is_some()
                        && p.id == chat.active_leaf_message_id
                        && p.manifest_id == chat.active_manifest_id
                        && p.thread_id.is_none() =>
                {
                    current.leaf.clone()
                }
                Some(p) => {
                    if p.manifest_id != current.manifest_id {
                        // Marked while the folder moves; done once moved (the
                        // call's own changes are the call's, not the move's).
                        let moving = self.move_folder(&mut current, &p.id, &p.manifest_id, None, &walks);
                        moving.await?.done();
                    }
                    p.id
                }
                None => current.leaf.clone(),
            };
            (parent_id, current.manifest_id, current.leaf)
        };
        // Before it runs: where its node goes, should it die.
        self.place_call(call_id, &parent_id, thread_id.as_deref(), &pre_manifest_id)
            .await?;
        Ok(Prepared {
            chat,
            parent_id,
            thread_id,
            pre_manifest_id,
            leaf,
            walks,
        })
    }

    /// After the call, under the chat lock: the snapshot (also after a
    /// failure: partial changes are kept), the render plan, the `tool`
    /// message and the call's row, in one transaction. The message.
    pub(super) async fn finish_call(
        &self,
        req: &RunRequest,
        tool: Option<&ToolRecord>,
        toolset: Option<&ToolsetRecord>,
        call_id: &str,
        at: Prepared,
        outcome: &Outcome,
    ) -> Result<Message> {
        let Prepared {
            chat,
            parent_id,
            thread_id,
            pre_manifest_id,
            leaf,
            walks,
        } = at;
        // Snapshot, also after a failure: partial changes are kept.
        let watch_at = self
            .edit_watch()
            .before_walk(&chat.id, &self.data_dir().chat_dir(&chat.id))
            .await;
        let scanned = self.scan_against(&chat.id, &leaf, &pre_manifest_id, &walks).await?;
        let delta = self.scan_delta(&scanned).await?;
        let message_id = ids::new_id();
        let mut tx = db::begin_write(self.db()).await?;
        let post_manifest_id = self
            .record_scan(&mut tx, &scanned, &delta, ManifestSource::ToolRun, call_id)
            .await?;
        let (status, result, error_kind, error, mut render_plan) = match &outcome.result {
            Ok(ret) => {
                let ctx = Context {
                    args: &req.args,
                    ret,
                    chat_id: &chat.id,
                    workspace: &self.workspace_dir(&chat.id).display().to_string(),
                    toolset: &toolset
                        .map(|t| self.toolset_root(t).display().to_string())
                        .unwrap_or_default(),
                };
                let artifact = match tool {
                    Some(t) => self.artifact_hash(t).await?,
                    None => None,
                };
                let render = tool.and_then(|t| t.render_config.as_ref());
                let p = match (&outcome.content, render) {
                    (Some(content), None) => plan::mcp_plan(content, &post_manifest_id),
                    _ => plan::plan(render, &ctx, &post_manifest_id, artifact),
                };
                (CallStatus::Success, Some(ret.clone()), None, None, p)
            }
            Err(f) => {
                let status = if f.kind == ErrorKind::Cancelled {
                    CallStatus::Cancelled
                } else {
                    CallStatus::Error
                };
                let details = plan::ErrorDetails {
                    traceback: f.traceback.clone(),
                    stdout: outcome.stdout.clone(),
                    stderr: outcome.stderr.clone(),
                    changed: delta.changes.iter().map(|(path, _)| path.clone()).collect(),
                };
                let message = match &f.traceback {
                    Some(tb) => format!("{}\n\n{tb}", f.message),
                    None => f.message.clone(),
                };
                (
                    status,
                    None,
                    Some(f.kind),
                    Some(message),
                    plan::error_plan_with(f.kind.as_str(), &f.message, &details, Some(&post_manifest_id)),
                )
            }
        };
        // What the snapshot left out (a symlink, a name not UTF-8) is said.
        render_plan.warnings.extend(scanned.warnings.iter().cloned());
        let message = insert_message(
            &mut tx,
            NewMessage {
                id: message_id.clone(),
                chat_id: &chat.id,
                parent_id: Some(&parent_id),
                role: Role::Tool,
                content: &[ContentPart::ToolCall {
                    tool_call_id: call_id.to_owned(),
                }],
                manifest_id: &post_manifest_id,
                meta: None,
                thread_id: thread_id.as_deref(),
            },
        )
        .await?;
        Finish {
            message_id: &message_id,
            status,
            result: result.as_ref(),
            render_plan: &render_plan,
            error_kind,
            error: error.as_deref(),
            stdout: outcome.stdout.as_deref(),
            stderr: outcome.stderr.as_deref(),
            pre_manifest_id: &pre_manifest_id,
            post_manifest_id: &post_manifest_id,
        }
        .write(&mut tx, call_id)
        .await?;
        if thread_id.is_some() {
            // A sub-agent's call: the folder moved, the chat stays put.
            sqlx::query("UPDATE chats SET active_manifest_id = ? WHERE id = ?")
                .bind(&post_manifest_id)
                .bind(&chat.id)
                .execute(&mut *tx)
                .await?;
        } else {
            set_active(&mut tx, &chat.id, &message_id, &post_manifest_id).await?;
        }
        tx.commit().await?;
        let mut current = scanned.current;
        current.manifest_id = post_manifest_id;
        self.save_cache(&current);
        if let Some(at) = watch_at {
            self.edit_watch().mark_clean(&chat.id, at);
        }
        Ok(message)
    }

    /// The hash of an html renderer's artifact (toolset file), if any.
    async fn artifact_hash(&self, tool: &ToolRecord) -> Result<Option<String>> {
        let (Some(ts), Some(r)) = (&tool.toolset_id, &tool.render_config) else {
            return Ok(None);
        };
        let Some(artifact) = r.config.get("artifact").and_then(Value::as_str) else {
            return Ok(None);
        };
        Ok(
            sqlx::query_scalar("SELECT sha256 FROM toolset_files WHERE toolset_id = ? AND path = ?")
                .bind(ts)
                .bind(artifact.trim_start_matches("./"))
                .fetch_optional(self.db())
                .await?,
        )
    }
}

impl Tools<'_> {
    /// Runs a tool in a chat (see the module docs). Returns the recorded
    /// call, whatever its status; an `Err` means nothing could be recorded.
    pub async fn run(&self, req: RunRequest) -> Result<ToolCallRecord> {
        Ok(self.run_full(req, Known::default()).await?.0)
    }

    /// [`Self::run`], with the `tool` message it wrote (a model run goes on
    /// under it without reading it back), and what the caller already knew.
    pub(crate) async fn run_full(&self, req: RunRequest, known: Known) -> Result<(ToolCallRecord, Message)> {
        // The parent as read already (same chat, same id): its `chat_id` is
        // the chat's id as stored, which is all the flow needs of the chat
        // before it takes the lock and reads it fresh. Else the chat, the
        // tool and the parent are read, and their errors come in that order.
        let known_parent = known
            .parent
            .filter(|p| req.parent_id.as_ref() == Some(&p.id) && p.chat_id == req.chat_id);
        let chat_id = match &known_parent {
            Some(p) => p.chat_id.clone(),
            None => self.app.chats().get(&req.chat_id).await?.id,
        };
        let Target {
            tool,
            mcp,
            toolset,
            asks,
        } = match known.target {
            Some(t) if t.tool.tool_id == req.tool_id => t,
            _ => self.target(&req.tool_id, &chat_id, known.mcp).await?,
        };
        let parent = match (known_parent, &req.parent_id) {
            (Some(p), _) => Some(p),
            (None, Some(id)) => Some(self.app.chats().message(&chat_id, id).await?),
            (None, None) => None,
        };
        let call_id = ids::new_id();
        // Arguments are checked before anyone is asked: a call with bad
        // arguments is refused (and recorded) without a question.
        let decided = match validate_args(&tool.input_schema, &req.args) {
            Err(violations) => Some(Decision::Refuse(
                ErrorKind::InvalidArgs,
                format!("invalid arguments for {}:\n  {}", tool.tool_id, violations.join("\n  ")),
            )),
            Ok(()) if !asks => Some(Decision::Run),
            Ok(()) => match req.approval {
                Approval::Approved => Some(Decision::Run),
                // Nobody could be asked (a script, no terminal): said so.
                Approval::NotGiven => Some(Decision::Refuse(ErrorKind::Denied, NO_ONE_ASKED.into())),
                // Someone must answer first.
                Approval::Ask(_) | Approval::Wait => None,
            },
        };
        let backend = Backend::of(&tool, toolset.as_ref(), mcp)?;
        let (_lock, decision) = match decided {
            Some(d) => (
                self.app
                    .lock_then_record(&req, &tool.tool_id, &chat_id, &call_id)
                    .await?,
                d,
            ),
            None => {
                let (lock, yes) = self.app.ask_then_lock(&req, &tool.tool_id, &chat_id, &call_id).await?;
                let decision = match (yes, req.control.cancel.is_cancelled()) {
                    (true, _) => Decision::Run,
                    // Stop while it waited: nobody said no.
                    (false, true) => Decision::Refuse(ErrorKind::Cancelled, "cancelled by the user".into()),
                    (false, false) => Decision::Deny,
                };
                (lock, decision)
            }
        };

        // From here on the call is recorded: a failure of ours (not the
        // tool's) still ends it, with the reason, instead of leaving it
        // `running`.
        let done = self
            .app
            .run_recorded(
                &req,
                Some((&tool, backend)),
                toolset.as_ref(),
                &chat_id,
                Turn {
                    call_id: &call_id,
                    parent,
                    decision,
                },
            )
            .await;
        self.app.running_calls().remove(&call_id);
        let message = match done {
            Ok(m) => m,
            Err(e) => {
                self.app.end_failed(&call_id, &e).await?;
                return Err(e);
            }
        };
        Ok((self.call(&call_id).await?, message))
    }

    /// Records a call that is refused before anything runs — `req.tool_id`
    /// names no tool the caller may use (a router's `Toolset not found: x`)
    /// — as a call with status `error` and this `kind`, with its `tool`
    /// message, so history shows what was tried.
    pub async fn refuse(&self, req: RunRequest, kind: ErrorKind, message: String) -> Result<ToolCallRecord> {
        let chat = self.app.chats().get(&req.chat_id).await?;
        let parent = match &req.parent_id {
            Some(p) => Some(self.app.chats().message(&chat.id, p).await?),
            None => None,
        };
        let call_id = ids::new_id();
        let _lock = self
            .app
            .lock_then_record(&req, &req.tool_id, &chat.id, &call_id)
            .await?;
        let turn = Turn {
            call_id: &call_id,
            parent,
            decision: Decision::Refuse(kind, message),
        };
        let done = self.app.run_recorded(&req, None, None, &chat.id, turn).await;
        self.app.running_calls().remove(&call_id);
        if let Err(e) = done {
            self.app.end_failed(&call_id, &e).await?;
            return Err(e);
        }
        self.call(&call_id).await
    }

    /// Cancels a call this process is running: its worker is killed and the
    /// call ends as `cancelled` (what it changed in the workspace is kept).
    /// Whether such a call was running.
    pub fn cancel(&self, call_id: &str) -> bool {
        match self.app.running_calls().get(call_id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}
