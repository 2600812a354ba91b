//! What a call runs, found before it takes the chat lock: the tool (an MCP
//! server's listing or a toolset's or builtin row), its toolset, whether
//! it asks first. A model run reads this while it writes the turn the call
//! answers, and hands it over with what else it knows ([`Known`]): each
//! read is a hand-off to a database thread, and the run flow would
//! otherwise make them one after another.

use super::Tools;
use crate::model::Message;
use crate::toolsets::records::{ToolRecord, ToolsetRecord};
use crate::{Error, Result};

/// What a caller already read about a call, so the run flow does not read
/// it again.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// The message named by `parent_id`, as read or written by the caller;
    /// used only when it is that message of that chat.
    pub parent: Option<Message>,
    /// Whether the router found an MCP server's tool (none: no router
    /// said): a toolset's or builtin tool asks no server's listing.
    pub mcp: Option<bool>,
    /// The call's tool as [`Tools::target`] found it; used only when it is
    /// the tool the request names.
    pub target: Option<Target>,
}

/// The tool a call runs, enabled, and whether it asks first.
#[derive(Debug)]
pub(crate) struct Target {
    pub tool: ToolRecord,
    /// An MCP server's tool.
    pub mcp: bool,
    pub toolset: Option<ToolsetRecord>,
    /// Its confirmation policy asks in this chat (no allowance given).
    pub asks: bool,
}

impl Tools<'_> {
    /// Finds the tool `tool_id` names for a call in chat `chat_id` (a
    /// stored id), refusing a disabled one. `mcp`, when the router
    /// knows it, spares a toolset's tool the MCP lookup.
    pub(crate) async fn target(&self, tool_id: &str, chat_id: &str, mcp: Option<bool>) -> Result<Target> {
        let mcp_record = match mcp {
            Some(false) => None,
            Some(true) | None => self.app.mcp().tool_record(tool_id).await?,
        };
        let (tool, mcp) = match mcp_record {
            Some(t) => (t, true),
            None => (self.app.toolsets().tool(tool_id).await?, false),
        };
        let toolset = match &tool.toolset_id {
            Some(ts) => Some(self.app.toolset_record(ts).await?),
            None => None,
        };
        let toolset_enabled = toolset.as_ref().is_none_or(|t| t.enabled);
        if !tool.enabled
            && !mcp
            && let Some(ts) = &tool.toolset_id
        {
            return Err(Error::Conflict(format!(
                "tool {} is disabled in the manifest of toolset {ts:?} (`enabled: false` in its toolset.yaml): \
                 it is installed but not offered; a version that enables it must be imported",
                tool.tool_id
            )));
        }
        if !tool.enabled || !toolset_enabled {
            return Err(Error::Conflict(format!(
                "tool {} is disabled (enable its {} first)",
                tool.tool_id,
                if mcp { "MCP server" } else { "toolset" }
            )));
        }
        let asks = self.needs_confirmation(&tool, chat_id).await?;
        Ok(Target {
            tool,
            mcp,
            toolset,
            asks,
        })
    }
}
