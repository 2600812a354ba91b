//! The records the core hands out: the same types the CLI prints as JSON and
//! the desktop app sends over IPC.
//!
//! Field names are the column names of the schema (`migrations/`); JSON
//! stored in TEXT columns is nested JSON here, flags are booleans, absent
//! values are `null`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A chat: a conversation tree and the workspace that follows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Chat {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    /// The root message (role `system`), whose manifest is the empty workspace.
    pub root_message_id: String,
    pub active_leaf_message_id: String,
    pub active_manifest_id: String,
    pub agent_id: Option<String>,
    /// The provider and model this chat talks to (none: its agent's).
    pub provider_id: Option<String>,
    pub model: Option<String>,
    /// Overrides of its agent's model settings, field by field.
    pub model_settings: ModelSettings,
}

/// How a model generates: set on an agent, overridden per chat field by
/// field (an unset field falls through to the next level, then to the
/// provider's default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ModelSettings {
    /// 0 to 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens of one answer (Anthropic requires a limit: 4096
    /// when none is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens, when Atelier does not know it:
    /// the oldest turns of a longer branch are left out to fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
    /// `low`, `medium` or `high`, for models that take it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Whether the model takes images (unset: judged by its name); images
    /// go to one that does, a short note to one that does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<bool>,
}

/// How hard a reasoning model thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

impl ModelSettings {
    /// `self`, with each unset field taken from `below`.
    #[must_use]
    pub fn over(&self, below: &ModelSettings) -> ModelSettings {
        ModelSettings {
            temperature: self.temperature.or(below.temperature),
            max_tokens: self.max_tokens.or(below.max_tokens),
            context_window: self.context_window.or(below.context_window),
            reasoning_effort: self.reasoning_effort.or(below.reasoning_effort),
            images: self.images.or(below.images),
        }
    }

    /// Whether every value is in range; the reason names the field.
    pub fn check(&self) -> std::result::Result<(), String> {
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(format!("temperature must be between 0 and 2 (got {t})"));
        }
        if self.max_tokens == Some(0) {
            return Err("max_tokens must be at least 1".into());
        }
        if let Some(w) = self.context_window
            && w < 512
        {
            return Err(format!("context_window must be at least 512 tokens (got {w})"));
        }
        Ok(())
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    /// A change to the workspace made outside a tool call (a person's edit).
    Edit,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Edit => "edit",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            "edit" => Role::Edit,
            _ => return None,
        })
    }
}

/// One part of a message's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text {
        text: String,
    },
    /// A reference to a `tool_calls` row.
    ToolCall {
        tool_call_id: String,
    },
    /// A workspace change recorded from outside a tool call.
    WorkspaceEdit {
        added: u64,
        removed: u64,
        modified: u64,
    },
    /// A model's reasoning (shown folded); `signature` lets Anthropic take
    /// it back.
    Reasoning {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Reasoning the provider encrypted (Anthropic `redacted_thinking`):
    /// never shown, sent back to the provider that made it as it came.
    RedactedReasoning {
        data: String,
    },
    /// An image the person sent: a file of the workspace at this
    /// message's state (read when a request is made, never copied here).
    Image {
        path: String,
        media_type: String,
    },
    /// A call a model asked for in this turn, under its wire name; the
    /// `tool` message that ran it follows (its row's `model_call_id`).
    ModelCall {
        call_id: String,
        name: String,
        #[ts(type = "unknown")]
        arguments: serde_json::Value,
        /// What the provider put on the call besides its function (Gemini
        /// 3's `extra_content`), sent back with it: opaque, never shown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(skip)]
        extra: Option<serde_json::Value>,
    },
}

/// A node of the conversation tree. Immutable once written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Message {
    pub id: String,
    pub chat_id: String,
    pub parent_id: Option<String>,
    pub role: Role,
    pub content: Vec<ContentPart>,
    /// The workspace state after this message.
    pub manifest_id: String,
    pub created_at: String,
    /// A model turn's provider, model, usage and how it ended.
    pub meta: Option<TurnMeta>,
    /// The sub-agent thread it belongs to (none: the chat's main tree).
    pub thread_id: Option<String>,
}

/// How a model turn (an `assistant` message) went.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct TurnMeta {
    pub provider_id: Option<String>,
    pub model: Option<String>,
    pub usage: Option<TokenUsage>,
    /// `complete`, `stopped`, `failed`, `interrupted` (the process died
    /// while it streamed) or `step_limit`.
    pub status: Option<String>,
    pub error: Option<String>,
    /// `auth`, `network`, `context_length`… (see `atelier_llm::ErrorKind`).
    pub error_kind: Option<String>,
}

/// Tokens a turn took, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Message {
    /// The text parts joined, for display.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.content {
            match p {
                ContentPart::Text { text } => out.push_str(text),
                ContentPart::ToolCall { tool_call_id } => out.push_str(&format!("[tool call {tool_call_id}]")),
                ContentPart::WorkspaceEdit {
                    added,
                    removed,
                    modified,
                } => {
                    out.push_str(&format!("[workspace edit: +{added} -{removed} ~{modified}]"));
                }
                // Reasoning is shown apart, folded.
                ContentPart::Reasoning { .. } | ContentPart::RedactedReasoning { .. } | ContentPart::Image { .. } => {}
                ContentPart::ModelCall { name, .. } => out.push_str(&format!("[calls {name}]")),
            }
        }
        out
    }
}

/// A message with its place in the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct MessageNode {
    #[serde(flatten)]
    pub message: Message,
    /// Child ids in creation order.
    pub children: Vec<String>,
    /// Whether the message is on the path from the root to the active leaf.
    pub on_active_branch: bool,
    /// Where a switch to this message's branch lands: from it, the newest
    /// child, repeatedly, down to a leaf (itself when it has no children).
    pub latest_leaf: String,
    /// Why its workspace state was recorded: tells an upload from an edit
    /// made by hand, which share the `edit` role.
    pub source: ManifestSource,
}

/// Why a manifest was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ManifestSource {
    UserUpload,
    ToolRun,
    Branch,
    Edit,
    /// The empty workspace of a new chat.
    Empty,
}

impl ManifestSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ManifestSource::UserUpload => "user_upload",
            ManifestSource::ToolRun => "tool_run",
            ManifestSource::Branch => "branch",
            ManifestSource::Edit => "edit",
            ManifestSource::Empty => "empty",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "user_upload" => ManifestSource::UserUpload,
            "tool_run" => ManifestSource::ToolRun,
            "branch" => ManifestSource::Branch,
            "edit" => ManifestSource::Edit,
            "empty" => ManifestSource::Empty,
            _ => return None,
        })
    }
}

/// A recorded workspace state (a `workspace_manifests` row, with the full
/// file map read from its trees).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WorkspaceManifest {
    pub id: String,
    pub chat_id: String,
    pub parent_id: Option<String>,
    /// The full state: every workspace path with its blob's SHA-256.
    pub files: BTreeMap<String, String>,
    /// Paths whose executable bit is set.
    pub executable: Vec<String>,
    /// What changed against `parent_id`: `{path: sha256 | null}` (null =
    /// removed). For a manifest without a parent, every file.
    pub changes: BTreeMap<String, Option<String>>,
    pub created_at: String,
    pub source: ManifestSource,
    pub source_ref: Option<String>,
    pub root_tree: String,
    pub file_count: u64,
    pub total_size: u64,
}

/// One file of a workspace listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileListing {
    pub path: String,
    pub sha256: String,
    pub size: u64,
    pub executable: bool,
}

/// The result of recording pending workspace edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SnapshotOutcome {
    /// The new `edit` message, if anything changed.
    pub message_id: Option<String>,
    /// The manifest now active (the new one, or the unchanged current one).
    pub manifest_id: String,
    pub changed: bool,
    pub added: u64,
    pub removed: u64,
    pub modified: u64,
    /// Things skipped (symlinks, special files, non-UTF-8 names).
    pub warnings: Vec<String>,
}

/// Differences between two workspace states.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WorkspaceDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub modified: Vec<ModifiedFile>,
}

/// A file present in both states with different content or mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModifiedFile {
    pub path: String,
    /// Unified diff, for text files.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub diff: Option<String>,
    /// Set for files that are not UTF-8 text.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub binary: bool,
    /// Set for text files too large to diff.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub too_large: bool,
    /// Set when only the mode changed (the executable bit, or whether the
    /// file is private: no group or other permission).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub mode_only: bool,
    /// The mode before and after (0644, 0755, 0600 or 0700), when it changed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mode_from: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mode_to: Option<u32>,
}
