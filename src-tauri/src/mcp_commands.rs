//! The commands of MCP servers in Settings: the list with how each runs,
//! add (stdio or URL, its env and header values to the secret store),
//! remove, enable/disable, restart (connect once and list the tools), and
//! the import of a Claude Desktop / Cursor `mcpServers` config with its
//! preview; sign-in to an HTTP server (OAuth: the browser opened, the page's
//! address sent as [`SIGN_IN_PAGE`] too); and, once at start, the listing of servers never listed
//! ([`list_unlisted_at_start`]). Like [`crate::commands`]: typed arguments, one core call,
//! `{kind, message}`. Values of env and headers arrive as plain strings and
//! become [`Secret`]s here, before anything else sees them; they are never
//! logged or sent back.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use atelier_core::agents::ASSISTANT;
use atelier_core::mcp::{CancellationToken, ImportCandidate, NewServer, ServerDetails, ServerRecord};
use atelier_core::secrets::Secret;
use serde::Deserialize;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};

use crate::AppState;
use crate::error::IpcResult;

/// The event that says servers' tools were listed (their ids): the tool
/// picker reads its catalog again.
pub const TOOLS_LISTED: &str = "mcp-tools-listed";

/// The event that carries a sign-in page's address (`{id, url}`) while
/// [`sign_in_mcp_server`] waits: shown in case no browser opened.
pub const SIGN_IN_PAGE: &str = "mcp-sign-in-page";

/// How long a sign-in waits for the browser to come back.
const SIGN_IN_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Lists, in the background, the servers never listed (a toolset imported
/// by the CLI), then tells the UI.
pub fn list_unlisted_at_start<R: Runtime>(handle: &AppHandle<R>) {
    let app = handle.state::<AppState>().app.clone();
    let events = handle.clone();
    tauri::async_runtime::spawn(async move {
        match app.mcp().list_unlisted().await {
            Ok(ids) if !ids.is_empty() => {
                let _ = events.emit(TOOLS_LISTED, ids);
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not list the MCP servers never listed"),
        }
    });
}

/// A server the person adds in Settings: a command (with its arguments and
/// environment) or a URL (with its headers).
#[derive(Debug, Default, Deserialize, ts_rs::TS)]
pub struct McpServerRequest {
    pub id: String,
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    pub url: Option<String>,
    /// Variable name → value; values go to the secret store.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Header name → value; values go to the secret store.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Seconds a call may go without news; absent: the app's default.
    #[serde(default)]
    #[ts(optional)]
    pub timeout_s: Option<f64>,
}

fn secrets(values: BTreeMap<String, String>) -> Vec<(String, Secret)> {
    values.into_iter().map(|(k, v)| (k, Secret::new(v))).collect()
}

/// Every server (the person's and those toolsets declare), each with its
/// status, instances and stderr tail.
#[tauri::command]
pub async fn list_mcp_servers(state: State<'_, AppState>) -> IpcResult<Vec<ServerDetails>> {
    let mcp = state.app.mcp();
    let mut out = Vec::new();
    for s in mcp.list().await? {
        out.push(mcp.details(&s.id).await?);
    }
    Ok(out)
}

/// One server with how it runs now.
#[tauri::command]
pub async fn get_mcp_server(state: State<'_, AppState>, id: String) -> IpcResult<ServerDetails> {
    Ok(state.app.mcp().details(&id).await?)
}

/// Adds a server of the person's, and puts it on the Assistant's allowlist
/// when asked (the assistant is checked first: nothing is added if that
/// would fail). Nothing connects: the UI restarts it next, so a server that
/// does not answer stays, with its error.
#[tauri::command]
pub async fn add_mcp_server(
    state: State<'_, AppState>,
    server: McpServerRequest,
    add_to_assistant: bool,
) -> IpcResult<ServerRecord> {
    if add_to_assistant {
        state.app.agents().get(ASSISTANT).await?;
    }
    let added = state
        .app
        .mcp()
        .add(NewServer {
            id: server.id,
            command: server.command,
            args: server.args,
            url: server.url,
            env: secrets(server.env),
            headers: secrets(server.headers),
            timeout_s: server.timeout_s,
        })
        .await?;
    if add_to_assistant {
        state.app.agents().allow_toolset(ASSISTANT, &added.id).await?;
    }
    Ok(added)
}

/// Removes a server the person added, its secrets and its instances.
#[tauri::command]
pub async fn remove_mcp_server(state: State<'_, AppState>, id: String) -> IpcResult<()> {
    Ok(state.app.mcp().remove(&id).await?)
}

/// Turns a server on or off (off: it stops and its tools leave the list).
#[tauri::command]
pub async fn set_mcp_server_enabled(state: State<'_, AppState>, id: String, enabled: bool) -> IpcResult<ServerRecord> {
    Ok(state.app.mcp().set_enabled(&id, enabled).await?)
}

/// Connects afresh and lists the tools; the failure, in words, if it fails
/// (it is also kept as the server's last error).
#[tauri::command]
pub async fn restart_mcp_server(state: State<'_, AppState>, id: String) -> IpcResult<ServerRecord> {
    Ok(state.app.mcp().refresh(&id).await?)
}

/// Lists the tools of a server no instance of which runs (one a toolset
/// just installed declares); a running one is left as it is.
#[tauri::command]
pub async fn list_mcp_server(state: State<'_, AppState>, id: String) -> IpcResult<ServerRecord> {
    Ok(state.app.mcp().list_if_idle(&id).await?)
}

/// What importing a config would add, and what each would run.
#[tauri::command]
pub async fn preview_mcp_config(state: State<'_, AppState>, text: String) -> IpcResult<Vec<ImportCandidate>> {
    Ok(state.app.mcp().preview_config(&text).await?)
}

/// Adds the chosen servers of a config (`only`; all that can be added when
/// none). Nothing connects: the UI restarts each next.
#[tauri::command]
pub async fn import_mcp_config(
    state: State<'_, AppState>,
    text: String,
    only: Option<Vec<String>>,
) -> IpcResult<Vec<ServerRecord>> {
    Ok(state.app.mcp().import_config(&text, only.as_deref()).await?)
}

/// Signs in to an HTTP server that wants it (OAuth): its sign-in page opens
/// in the browser (its address is also sent as [`SIGN_IN_PAGE`]) and this
/// answers once the browser came back and the server was listed, or with
/// why not (5 minutes without an answer gives up).
#[tauri::command]
pub async fn sign_in_mcp_server<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> IpcResult<ServerRecord> {
    let events = app.clone();
    let server = id.clone();
    let open: atelier_core::mcp::Opener = Box::new(move |url: &str| {
        let _ = events.emit(SIGN_IN_PAGE, serde_json::json!({ "id": server, "url": url }));
        if let Err(e) = crate::desktop::open_url(url) {
            tracing::warn!(error = %e, "could not open the browser for a sign-in");
        }
    });
    let cancel = CancellationToken::new();
    let mine = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Some((_, before)) = waiting().insert(id.clone(), (mine, cancel.clone())) {
        // A second Sign in replaces the first, which gives up.
        before.cancel();
    }
    let signed = state.app.mcp().login(&id, open, SIGN_IN_WAIT, cancel).await;
    let mut map = waiting();
    if map.get(&id).is_some_and(|(n, _)| *n == mine) {
        map.remove(&id);
    }
    drop(map);
    Ok(signed?)
}

/// The sign-ins waiting for their browser, by server (each numbered, so
/// that one ending never forgets the one that replaced it).
static WAITING: Mutex<BTreeMap<String, (u64, CancellationToken)>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(0);

fn waiting() -> MutexGuard<'static, BTreeMap<String, (u64, CancellationToken)>> {
    WAITING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Gives up the sign-in of server `id` waiting for its browser (it then
/// fails with "cancelled"); whether one was waiting.
#[tauri::command]
pub async fn cancel_mcp_sign_in(id: String) -> IpcResult<bool> {
    let waited = waiting().remove(&id);
    Ok(waited.map(|(_, c)| c.cancel()).is_some())
}
