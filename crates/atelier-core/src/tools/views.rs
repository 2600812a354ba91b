//! Read-side helpers for front ends: a workspace file as text, a chat's
//! calls, argument checks before a run, an HTML render's document and the
//! files it may load. Each is one call for the desktop app's commands.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arg_problems::{ArgProblem, arg_problems};
use super::plan;
use super::run::ToolCallRecord;
use crate::tools::Tools;
use crate::{Error, Result};

/// A workspace file as a manifest holds it, for a viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WorkspaceFile {
    pub path: String,
    pub size: u64,
    pub sha256: String,
    /// The content as UTF-8, or `None` when it is binary.
    pub text: Option<String>,
}

/// Where a workspace file version lives: a concrete manifest and a
/// normalized path, checked to exist. Viewers that load files by URL (the
/// desktop app's images) are handed this, so the URL keeps showing that
/// version whatever the chat does next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileRef {
    pub chat_id: String,
    pub manifest_id: String,
    pub path: String,
    pub sha256: String,
}

impl Tools<'_> {
    /// Pins a file of a chat's workspace at a manifest (or message), or at
    /// the active state, without reading it.
    pub async fn file_ref(&self, chat_id: &str, path: &str, manifest: Option<&str>) -> Result<FileRef> {
        let path = crate::store::path::normalize(path)?.to_string();
        let m = self.app.workspace().manifest(chat_id, manifest).await?;
        let sha256 = m.files.get(&path).cloned().ok_or_else(|| Error::FileNotFound {
            path: path.clone(),
            manifest_id: m.id.clone(),
        })?;
        Ok(FileRef {
            chat_id: m.chat_id,
            manifest_id: m.id,
            path,
            sha256,
        })
    }

    /// A file of a chat's workspace at a manifest (or message), or at the
    /// active state.
    pub async fn workspace_file(&self, chat_id: &str, path: &str, manifest: Option<&str>) -> Result<WorkspaceFile> {
        let bytes = self.app.workspace().read_file(chat_id, path, manifest).await?;
        let sha256 = crate::store::Hash::of(&bytes).to_hex();
        let size = bytes.len() as u64;
        let text = String::from_utf8(bytes).ok().filter(|t| !t.contains('\0'));
        Ok(WorkspaceFile {
            path: crate::store::path::normalize(path)?.to_string(),
            size,
            sha256,
            text,
        })
    }

    /// A chat's tool calls, oldest first.
    pub async fn calls(&self, chat_id: &str) -> Result<Vec<ToolCallRecord>> {
        let chat = self.app.chats().get(chat_id).await?;
        let ids: Vec<String> =
            sqlx::query_scalar("SELECT id FROM tool_calls WHERE chat_id = ? ORDER BY started_at, id")
                .bind(&chat.id)
                .fetch_all(self.app.db())
                .await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.push(self.call(&id).await?);
        }
        Ok(out)
    }

    /// Every violation of a tool's `input_schema` by `args`, each under
    /// its field and in words, for a form (empty: valid; the run flow
    /// checks the same schema).
    pub async fn validate_args(&self, tool_id: &str, args: &Value) -> Result<Vec<ArgProblem>> {
        let tool = self.tool(tool_id).await?;
        Ok(arg_problems(&tool.input_schema, args))
    }

    /// A file an html render may load next to its artifact (its scripts,
    /// styles, images): a file of the call's toolset, relative to the
    /// artifact's folder, never outside the toolset and only if the toolset
    /// lists it.
    pub async fn render_asset(&self, call_id: &str, relative: &str) -> Result<Vec<u8>> {
        let call = self.call(call_id).await?;
        let tool = self.app.toolsets().tool(&call.tool_id).await?;
        let artifact = call
            .render_plan
            .as_ref()
            .and_then(|p| p.config.get("artifact"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim_start_matches("./")
            .to_owned();
        let (Some(toolset_id), Some(_)) = (&tool.toolset_id, call.render_plan.as_ref()) else {
            return Err(Error::Conflict(format!("tool call {call_id} has no html render")));
        };
        let base = artifact.rsplit_once('/').map(|(dir, _)| dir).unwrap_or("");
        let joined = if base.is_empty() {
            relative.to_owned()
        } else {
            format!("{base}/{relative}")
        };
        let path = crate::store::path::normalize(&joined)?.to_string();
        let listed: Option<String> =
            sqlx::query_scalar("SELECT path FROM toolset_files WHERE toolset_id = ? AND path = ?")
                .bind(toolset_id)
                .bind(&path)
                .fetch_optional(self.app.db())
                .await?;
        if listed.is_none() {
            return Err(Error::FileNotFound {
                path,
                manifest_id: format!("toolset {toolset_id}"),
            });
        }
        let ts = self.app.toolset_record(toolset_id).await?;
        let file: PathBuf = self.app.toolset_root(&ts).join(&path);
        tokio::fs::read(&file).await.map_err(Error::io("read", &file))
    }

    /// A call's `html` render plan; a conflict error naming the call when
    /// it has none.
    pub async fn html_plan(&self, call_id: &str) -> Result<plan::RenderPlan> {
        Ok(self.html_call(call_id).await?.1)
    }

    /// A call with its `html` render plan (see [`Self::html_plan`]).
    async fn html_call(&self, call_id: &str) -> Result<(ToolCallRecord, plan::RenderPlan)> {
        let mut call = self.call(call_id).await?;
        let plan = call
            .render_plan
            .take()
            .filter(|p| p.renderer == "html")
            .ok_or_else(|| Error::Conflict(format!("tool call {call_id} has no html render plan")))?;
        Ok((call, plan))
    }

    /// The complete HTML document of a call's `html` plan, with all of its
    /// data: what the plan had to cut is resolved again against the call's
    /// whole result (see [`plan::RenderPlan::data_expr`]).
    pub async fn render_html(&self, call_id: &str) -> Result<String> {
        let (call, plan) = self.html_call(call_id).await?;
        let sha = plan.artifact_sha256.as_deref().ok_or_else(|| Error::InvalidData {
            what: "html plan",
            reason: "no artifact hash".into(),
        })?;
        let path = self
            .app
            .data_dir()
            .root()
            .join("artifacts")
            .join(&sha[..2.min(sha.len())])
            .join(sha);
        let html = tokio::fs::read_to_string(&path)
            .await
            .map_err(Error::io("read artifact", &path))?;
        let data = match (&plan.data_expr, &call.result) {
            (Some(expr), Some(ret)) => {
                // A toolset uninstalled since has no folder to name.
                let toolset = match self
                    .app
                    .toolsets()
                    .tool(&call.tool_id)
                    .await
                    .ok()
                    .and_then(|t| t.toolset_id)
                {
                    Some(id) => self
                        .app
                        .toolset_record(&id)
                        .await
                        .map(|t| self.app.toolset_root(&t))
                        .ok(),
                    None => None,
                }
                .unwrap_or_default();
                let ctx = crate::toolsets::interp::Context {
                    args: &call.args,
                    ret,
                    chat_id: &call.chat_id,
                    workspace: &self.app.workspace_dir(&call.chat_id).display().to_string(),
                    toolset: &toolset.display().to_string(),
                };
                // Its warnings were the plan's when it was made.
                crate::toolsets::interp::render(expr, &ctx, &mut Vec::new())
            }
            _ => plan.config.get("data").cloned().unwrap_or(Value::Null),
        };
        Ok(plan::html_document(&html, &data))
    }
}
