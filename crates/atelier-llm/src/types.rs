//! What a request says and what a stream gives back, the same for every
//! provider: the conversation engine speaks only these types.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    /// An image the user attached or a tool produced (base64 data).
    Image {
        media_type: String,
        data: String,
    },
    /// A model's reasoning; `signature` is what Anthropic needs to accept
    /// a thinking block back.
    Reasoning {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Reasoning the provider encrypted (Anthropic `redacted_thinking`):
    /// never shown, sent back to its provider as it came.
    RedactedReasoning {
        data: String,
    },
    /// A call the model made (assistant messages). `arguments`: an object,
    /// or a JSON string holding the text of arguments that did not parse
    /// (sent back as the model wrote them).
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// The answer to a call (user-side messages).
    ToolResult {
        call_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
}

/// A message of the conversation sent to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            parts: vec![Part::Text { text: text.into() }],
        }
    }
}

/// A tool as a model sees it: its wire name, description and JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// Which tool the model must call, if any.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    #[default]
    Auto,
    None,
    /// This tool, now (the real-model lane forces a first call).
    Tool(String),
}

/// One request: a model, a system prompt, the conversation and the tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub tool_choice: ToolChoice,
    pub temperature: Option<f64>,
    /// Anthropic requires one; [`DEFAULT_MAX_TOKENS`] when none is set.
    pub max_tokens: Option<u32>,
    /// `low`, `medium`, `high`, where the provider takes it.
    pub reasoning_effort: Option<String>,
    /// What the provider put on a call of the history besides its id,
    /// name and arguments, by call id ([`ToolCall::extra`]): sent back on
    /// that call, as the provider requires (Gemini 3 refuses a call without
    /// its `thought_signature`). Beside the messages rather than in
    /// [`Part::ToolCall`]: only OpenAI-compatible servers send such fields.
    pub call_extras: BTreeMap<String, Value>,
    /// Call ids the conversation already holds beyond [`Self::messages`]
    /// (messages left out to fit the window): a call of the new turn takes
    /// none of them ([`Self::ids_in_use`]).
    pub call_ids_taken: BTreeSet<String>,
}

impl Request {
    /// Every call id a call of the new turn must not repeat: those of the
    /// messages' calls and results, and [`Self::call_ids_taken`]. A repeat
    /// would make a front door that follows calls by id show the new call's
    /// events on an earlier one, and Anthropic refuses a history with one.
    pub fn ids_in_use(&self) -> BTreeSet<String> {
        let mut ids = self.call_ids_taken.clone();
        for p in self.messages.iter().flat_map(|m| &m.parts) {
            match p {
                Part::ToolCall { id, .. } | Part::ToolResult { call_id: id, .. } => {
                    ids.insert(id.clone());
                }
                _ => {}
            }
        }
        ids
    }
}

/// The output limit sent when neither the agent nor the chat sets one.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Token counts, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A final answer.
    EndTurn,
    /// The model called tools (also when a server said `stop` but sent calls).
    ToolUse,
    /// The output limit cut the answer.
    MaxTokens,
    /// The model declined to go on (Anthropic `refusal`), or the
    /// provider's content filter stopped it (OpenAI `content_filter`).
    Refused,
    /// Anything else the provider said (`pause_turn`, …).
    Other,
}

/// A tool call as it ends: its arguments parsed, or why they are not JSON
/// (sent back to the model as a tool error, never a crash).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Result<Value, String>,
    /// The arguments as streamed.
    pub raw_arguments: String,
    /// The fields the provider put on the call besides `index`, `id`,
    /// `type` and `function` (Gemini 3's `extra_content` with its
    /// `thought_signature`), as one JSON object: opaque here, kept with the
    /// turn and sent back on this call ([`Request::call_extras`]).
    pub extra: Option<Value>,
}

impl ToolCall {
    /// Whether its arguments stop mid-JSON (a limit cut them), not merely
    /// malformed.
    pub fn cut_short(&self) -> bool {
        self.arguments.is_err()
            && serde_json::from_str::<serde_json::Value>(&self.raw_arguments).is_err_and(|e| e.is_eof())
    }
}

/// What a stream gives, in order, the same for every provider.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    TextDelta(String),
    ReasoningDelta(String),
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    ToolCallEnd {
        index: usize,
        call: ToolCall,
    },
    Usage(Usage),
    /// A provider asked for a pause (Anthropic `ping`): nothing to show.
    Keepalive,
}

/// One block of a turn's reasoning as Anthropic sends it. A turn can
/// hold several (interleaved thinking); each is signed on its own, and the
/// API refuses a block whose text or signature changed, or a sequence
/// that lost one.
#[derive(Debug, Clone, PartialEq)]
pub enum ThinkingBlock {
    /// `thinking`: its text and the `signature_delta` that closed it (none
    /// when the stream stopped first).
    Thinking { text: String, signature: Option<String> },
    /// `redacted_thinking`: encrypted reasoning, kept as it came.
    Redacted { data: String },
}

/// A whole turn: what the events added up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub text: String,
    pub reasoning: String,
    /// The reasoning as the provider must get it back (Anthropic): its
    /// thinking blocks in order, each with its own signature, and the
    /// encrypted ones. Empty for providers that send reasoning as text.
    pub thinking: Vec<ThinkingBlock>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub stop: StopReason,
}
