//! A server's tool list: every page, followed by hand within limits, and
//! each tool as the plain [`ToolInfo`] the core keeps.
//!
//! rmcp's `list_all_tools` follows `nextCursor` for as long as the server
//! hands one out and waits for each page without end: a server whose list
//! never ends grew our memory by gigabytes in seconds, and one that never
//! answers held the listing (the app lists servers in the background at
//! start) for good. Here a cursor seen before, more than [`MAX_PAGES`]
//! pages or more than [`MAX_TOOLS`] tools end the listing with an error
//! naming the server, and the whole listing has a time limit
//! (`ConnectOptions::list_timeout`; the spec's lifecycle asks for timeouts
//! on all requests). A name listed twice is kept once, the first time, and
//! the listing's [`Listing::warnings`] say so, naming the tool and the
//! server (the core keeps them with the server, where a person looks):
//! taken as it came, one part of the app would use one of the two and
//! another part the other.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use rmcp::model::{ListToolsResult, Tool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{McpError, secs};
use crate::words::cut;

/// More pages than this: the list is taken to never end.
pub(crate) const MAX_PAGES: usize = 100;
/// More tools than this from one server is more than a model can be
/// offered, and a bound on what one listing holds in memory.
pub(crate) const MAX_TOOLS: usize = 10_000;

/// One tool as the server lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    /// The server says the tool changes nothing (`readOnlyHint`).
    pub read_only: bool,
    /// The server says the tool may destroy data (`destructiveHint`).
    pub destructive: bool,
}

impl From<&Tool> for ToolInfo {
    fn from(t: &Tool) -> Self {
        let hints = t.annotations.as_ref();
        ToolInfo {
            name: t.name.to_string(),
            title: t.title.clone().or_else(|| hints.and_then(|a| a.title.clone())),
            description: t.description.as_deref().unwrap_or_default().to_owned(),
            input_schema: Value::Object((*t.input_schema).clone()),
            output_schema: t.output_schema.as_ref().map(|s| Value::Object((**s).clone())),
            read_only: hints.and_then(|a| a.read_only_hint).unwrap_or(false),
            destructive: hints.and_then(|a| a.destructive_hint).unwrap_or(false),
        }
    }
}

/// What one listing found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    /// Each name once, in the order listed.
    pub tools: Vec<ToolInfo>,
    /// What a person should know about the list (a name listed twice), in
    /// the order found.
    pub warnings: Vec<String>,
}

/// Every page of `server`'s tool list, `page(cursor)` fetching one, all
/// within `within`.
pub(crate) async fn list_pages<F, Fut>(server: &str, within: Duration, page: F) -> Result<Listing, McpError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<ListToolsResult, McpError>>,
{
    // Dropping the unfinished listing drops its request, which rmcp then
    // cancels (`notifications/cancelled`).
    match tokio::time::timeout(within, follow(server, page)).await {
        Ok(listed) => listed,
        Err(_) => Err(McpError::ToolList {
            server: server.to_owned(),
            message: format!("did not list its tools within {} s", secs(within)),
        }),
    }
}

async fn follow<F, Fut>(server: &str, mut page: F) -> Result<Listing, McpError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<ListToolsResult, McpError>>,
{
    let endless = |message: String| McpError::ToolList {
        server: server.to_owned(),
        message,
    };
    let mut tools: Vec<ToolInfo> = Vec::new();
    let mut warnings = Vec::new();
    // Counted as they came, duplicates too: it bounds what a listing holds.
    let mut received = 0;
    let mut names = HashSet::new();
    let mut twice = HashSet::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let listed = page(cursor.take()).await?;
        received += listed.tools.len();
        if received > MAX_TOOLS {
            return Err(endless(format!(
                "listed more than {MAX_TOOLS} tools, more than Atelier takes from one server"
            )));
        }
        for tool in &listed.tools {
            if names.insert(tool.name.clone()) {
                tools.push(ToolInfo::from(tool));
            } else if twice.insert(tool.name.clone()) {
                let warning = format!(
                    "MCP server {server} lists the tool {:?} more than once: the first one is kept, the others are left out",
                    cut(&tool.name, 100)
                );
                tracing::warn!(server = %server, tool = %tool.name, "{warning}");
                warnings.push(warning);
            }
        }
        let Some(next) = listed.next_cursor else {
            return Ok(Listing { tools, warnings });
        };
        if !seen.insert(next.clone()) {
            return Err(endless(format!(
                "repeats the page cursor {:?} of tools/list: its tool list never ends",
                cut(&next, 60)
            )));
        }
        cursor = Some(next);
    }
    Err(endless(format!(
        "listed more than {MAX_PAGES} pages of tools: its tool list never ends"
    )))
}
