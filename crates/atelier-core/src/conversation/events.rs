//! What a run is given and what it tells: its options, the events a
//! front door hears while it goes on, and its outcome.

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::model::Message;
use crate::tools::{Approval, RunEvent, ToolCallRecord};

/// How one `send` runs.
#[derive(Debug, Default)]
pub struct SendOptions {
    /// Answer under this message instead of the active leaf (a branch).
    pub parent_id: Option<String>,
    pub agent_id: Option<String>,
    /// Also become the chat's provider and model.
    pub provider_id: Option<String>,
    pub model: Option<String>,
    /// Make the first model turn call this tool (model-facing name): a
    /// small local model will not choose one by itself.
    pub force_tool: Option<String>,
    /// Image files to send with the message: added to the workspace (as a
    /// drop does), then attached.
    pub images: Vec<std::path::PathBuf>,
    /// How calls that need a person's confirmation are answered.
    pub approval: Approval,
    /// Stop: the stream and the running tool end; what happened is kept.
    pub cancel: CancellationToken,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A final answer.
    Complete,
    /// The person stopped it.
    Stopped,
    /// The provider failed (the error is on the last message).
    Failed,
    /// The agent's `max_steps` was reached.
    StepLimit,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
            Self::StepLimit => "step_limit",
        }
    }
}

/// What a front door hears while a run goes on.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatEvent {
    RunStarted {
        agent_id: String,
        provider_id: String,
        model: String,
        /// The context window the run fits the branch into, when known.
        context_window: Option<u32>,
    },
    /// Something about what the model is sent (history converted for a
    /// new provider…), for the person.
    ContextNote {
        text: String,
    },
    /// The oldest exchanges were left out to fit the context window.
    ContextTrimmed {
        dropped_messages: usize,
        context_window: u32,
    },
    TextDelta {
        text: String,
    },
    ReasoningDelta {
        text: String,
    },
    /// A call the model asked for (before it runs).
    ToolCallProposed {
        call_id: String,
        /// The name the model used (its wire name).
        name: String,
        /// The tool's id, when the name is one of the run's tools (a model
        /// may make one up: that call is refused as not found).
        tool_id: Option<String>,
    },
    /// A message written to the tree (user, assistant or tool).
    MessageSaved {
        message: Box<Message>,
    },
    /// What a running call does: `started` (its call id, for Cancel),
    /// `awaiting_approval` (answer it with `answer_approval`), its output.
    ToolCallEvent {
        /// The model's id of the call (as in `tool_call_proposed`).
        model_call_id: String,
        event: RunEvent,
    },
    ToolCallFinished {
        call: Box<ToolCallRecord>,
    },
    /// Something a sub-agent's run did, in its thread (as a run's own
    /// events are told).
    SubAgent {
        thread_id: String,
        agent_id: String,
        depth: u32,
        event: Box<ChatEvent>,
    },
    RunFinished {
        status: RunStatus,
        error: Option<String>,
    },
}

/// A finished run.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<String>,
    /// The error's kind (`auth`, `network`…), when the provider failed.
    pub error_kind: Option<String>,
    /// Every message the run wrote, in order.
    pub messages: Vec<Message>,
    pub tool_calls: Vec<ToolCallRecord>,
}
