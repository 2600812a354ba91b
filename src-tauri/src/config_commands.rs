//! The commands of a toolset's settings (`user_config`) and of the secret
//! store: the settings form, the variables a toolset may read from the
//! environment, where secrets go. Like [`crate::commands`]: typed
//! arguments, one core call, `{kind, message}`. Sensitive values arrive as
//! plain strings and become [`Secret`]s here, before anything else sees
//! them; they are never logged or sent back.

use std::collections::BTreeMap;
use std::path::PathBuf;

use atelier_core::secrets::{Secret, SecretsStatus};
use atelier_core::toolsets::config::ToolsetConfig;
use serde_json::{Map, Value};
use tauri::{Runtime, State};

use crate::AppState;
use crate::error::IpcResult;

/// Sensitive values from the webview, as the core takes them.
pub(crate) fn secrets(values: BTreeMap<String, String>) -> BTreeMap<String, Secret> {
    values.into_iter().map(|(k, v)| (k, Secret::new(v))).collect()
}

/// An installed toolset's settings, as its form shows them (sensitive ones
/// only say whether they are set).
#[tauri::command]
pub async fn toolset_config(state: State<'_, AppState>, id: String) -> IpcResult<ToolsetConfig> {
    Ok(state.app.toolsets().config(&id).await?)
}

/// Sets plain `values`, stores sensitive ones (`secrets`) and removes the
/// `unset` keys, all checked first by the core.
#[tauri::command]
pub async fn set_toolset_config(
    state: State<'_, AppState>,
    id: String,
    values: Map<String, Value>,
    secrets: BTreeMap<String, String>,
    unset: Vec<String>,
) -> IpcResult<ToolsetConfig> {
    Ok(state
        .app
        .toolsets()
        .set_config(&id, &values, &self::secrets(secrets), &unset)
        .await?)
}

/// The process environment variables a toolset may read.
#[tauri::command]
pub async fn toolset_allowed_env(state: State<'_, AppState>, id: String) -> IpcResult<Vec<String>> {
    Ok(state.app.toolsets().allowed_env(&id).await?)
}

/// Lets a toolset read a variable of the environment (or not any more);
/// the list after the change.
#[tauri::command]
pub async fn allow_toolset_env(
    state: State<'_, AppState>,
    id: String,
    var: String,
    allowed: bool,
) -> IpcResult<Vec<String>> {
    Ok(state.app.toolsets().allow_env(&id, &var, allowed).await?)
}

/// Whether a keychain answers, where a secret set now would go, how many
/// are stored.
#[tauri::command]
pub async fn secrets_status(state: State<'_, AppState>) -> IpcResult<SecretsStatus> {
    Ok(state.app.secrets().status().await?)
}

/// The person's consent (or not) to keep secrets in a file only they can
/// read where no keychain is reachable.
#[tauri::command]
pub async fn allow_file_secrets(state: State<'_, AppState>, allowed: bool) -> IpcResult<SecretsStatus> {
    Ok(state.app.secrets().allow_file_fallback(allowed).await?)
}

/// A native open dialog for a `directory` or `file` setting; none when
/// cancelled.
#[tauri::command]
pub async fn pick_setting_path<R: Runtime>(app: tauri::AppHandle<R>, directory: bool) -> IpcResult<Option<PathBuf>> {
    if directory {
        crate::dialogs::pick_folder(&app).await
    } else {
        crate::dialogs::pick_any_file(&app).await
    }
}
