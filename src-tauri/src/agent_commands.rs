//! The commands of Settings → Agents: list, read, create, update and delete
//! agents, and the live preview of an unsaved definition's tools (what its
//! toolsets and patterns resolve to in the current pool, under the names
//! the model calls them by, with the warnings). Like
//! [`crate::commands`]: typed arguments, one core call, `{kind, message}`.

use atelier_core::agents::preview::ToolsPreview;
use atelier_core::agents::{Agent, AgentSpec};
use tauri::State;

use crate::AppState;
use crate::error::IpcResult;

/// Every agent, by id.
#[tauri::command]
pub async fn list_agents(state: State<'_, AppState>) -> IpcResult<Vec<Agent>> {
    Ok(state.app.agents().list().await?)
}

/// One agent.
#[tauri::command]
pub async fn get_agent(state: State<'_, AppState>, id: String) -> IpcResult<Agent> {
    Ok(state.app.agents().get(&id).await?)
}

/// Creates an agent (its id must be new).
#[tauri::command]
pub async fn create_agent(state: State<'_, AppState>, spec: AgentSpec) -> IpcResult<Agent> {
    Ok(state.app.agents().create(&spec).await?)
}

/// Replaces an agent's definition (its id stays).
#[tauri::command]
pub async fn update_agent(state: State<'_, AppState>, spec: AgentSpec) -> IpcResult<Agent> {
    Ok(state.app.agents().update(&spec).await?)
}

/// Deletes an agent (never the Assistant); its chats keep their history.
#[tauri::command]
pub async fn delete_agent(state: State<'_, AppState>, id: String) -> IpcResult<()> {
    Ok(state.app.agents().delete(&id).await?)
}

/// The tools an unsaved definition would get now, and the warnings.
#[tauri::command]
pub async fn preview_agent_tools(state: State<'_, AppState>, spec: AgentSpec) -> IpcResult<ToolsPreview> {
    Ok(state.app.agents().preview(&spec).await?)
}
