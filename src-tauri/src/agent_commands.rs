//! The commands of Settings → Agents: list, read, create, update and delete
//! agents (a save answers the agent with what its tools' warnings are now),
//! the id a new agent's name gives, and the live preview of an unsaved
//! definition's tools (what its toolsets and patterns resolve to in the
//! current pool, under the names the model calls them by, with the
//! warnings). Like [`crate::commands`]: typed arguments, one core call,
//! `{kind, message}`.

use atelier_core::agents::preview::ToolsPreview;
use atelier_core::agents::{Agent, AgentSpec, SavedAgent};
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

/// Creates an agent (its id must be new; an empty one is the id its name
/// gives), with the warnings about its tools now.
#[tauri::command]
pub async fn create_agent(state: State<'_, AppState>, spec: AgentSpec) -> IpcResult<SavedAgent> {
    Ok(state.app.agents().save(&spec, false).await?)
}

/// Replaces an agent's definition (its id stays), with the warnings about
/// its tools now.
#[tauri::command]
pub async fn update_agent(state: State<'_, AppState>, spec: AgentSpec) -> IpcResult<SavedAgent> {
    Ok(state.app.agents().save(&spec, true).await?)
}

/// The id a new agent named `name` gets when none is typed; none when the
/// name gives none ("数据").
#[tauri::command]
pub fn agent_id_from_name(name: String) -> Option<String> {
    atelier_core::agents::id_from_name(&name)
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
