//! What a caller asks of the run flow ([`RunRequest`]) and what it gets
//! back ([`ToolCallRecord`]: a `tool_calls` row with the node it added),
//! apart from the flow itself (`run`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approval::Approval;
use super::call::CallControl;
use super::plan;
use super::status::{CallStatus, ErrorKind};

/// A call that asks first, refused because no one could be asked (a
/// script, no terminal): not the person's "no", and a model is told so.
pub(crate) const NO_ONE_ASKED: &str =
    "not run: it asks first, and no one could be asked (with the CLI: --yes allows it)";

/// A call to make.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    pub chat_id: String,
    pub tool_id: String,
    pub args: Value,
    /// Run under this message instead of the active leaf (a branch).
    pub parent_id: Option<String>,
    pub approval: Approval,
    /// Timeout override, cancellation, and where the call's events go.
    pub control: CallControl,
    /// The provider's id of the model's call this answers (`call_…`,
    /// `toolu_…`); none for a call a person runs by hand.
    pub model_call_id: Option<String>,
}

/// A `tool_calls` row, plus the tool message it added (`node_id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolCallRecord {
    pub id: String,
    pub chat_id: String,
    pub message_id: Option<String>,
    /// The `tool` message this call added to the tree (= `message_id`).
    pub node_id: Option<String>,
    pub tool_id: String,
    pub args: Value,
    pub result: Option<Value>,
    pub render_plan: Option<plan::RenderPlan>,
    pub status: CallStatus,
    pub error_kind: Option<ErrorKind>,
    pub error: Option<String>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub pre_manifest_id: Option<String>,
    pub post_manifest_id: Option<String>,
}
