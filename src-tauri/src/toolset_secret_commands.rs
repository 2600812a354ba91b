//! The values a toolset's MCP servers read (`${NAME}`) that its bundle does
//! not bring, set from the install screen or the toolset's details: what
//! `atelier secrets set toolset:<id> NAME` does, without a terminal. Like
//! [`crate::config_commands`]: typed arguments, one core call, `{kind,
//! message}`; a value arrives as a plain string, becomes a [`Secret`] here
//! and is never logged or sent back (the answer says only which are set).

use atelier_core::secrets::Secret;
use atelier_core::toolsets::config::EnvReference;
use tauri::State;

use crate::AppState;
use crate::error::IpcResult;

/// The `${NAME}`s an installed toolset's servers read, each set or not.
#[tauri::command]
pub async fn toolset_env_references(state: State<'_, AppState>, id: String) -> IpcResult<Vec<EnvReference>> {
    Ok(state.app.toolsets().env_references(&id).await?)
}

/// Stores the value of `${name}` for toolset `id`; the references after.
#[tauri::command]
pub async fn set_toolset_env_secret(
    state: State<'_, AppState>,
    id: String,
    name: String,
    value: String,
) -> IpcResult<Vec<EnvReference>> {
    Ok(state
        .app
        .toolsets()
        .set_env_secret(&id, &name, Secret::new(value))
        .await?)
}

/// Removes the stored value of `${name}` for toolset `id`; the references
/// after.
#[tauri::command]
pub async fn unset_toolset_env_secret(
    state: State<'_, AppState>,
    id: String,
    name: String,
) -> IpcResult<Vec<EnvReference>> {
    Ok(state.app.toolsets().unset_env_secret(&id, &name).await?)
}
