//! The commands the UI invokes. Each takes typed arguments, calls one core
//! function and maps the error; nothing here decides anything.

use std::collections::BTreeMap;
use std::path::PathBuf;

use atelier_core::Observer;
use atelier_core::model::{Chat, FileListing, WorkspaceManifest};
use atelier_core::tools::views::WorkspaceFile;
use atelier_core::tools::{Approval, Policy, RunRequest, ToolCallRecord, ToolPolicy};
use atelier_core::toolsets::ImportOptions;
use atelier_core::toolsets::live::ReloadStatus;
use atelier_core::toolsets::records::SourceType;
use atelier_core::toolsets::records::{BundleReport, ImportReport, ToolRecord, ToolsetDetails, ToolsetRecord};
use serde::Serialize;
use serde_json::{Map, Value};
use tauri::ipc::Channel;
use tauri::{Runtime, State};

use crate::error::IpcResult;
use crate::frames::SettingsView;
use crate::live_reload::Live;
use crate::run_events;
use crate::{AppState, paths};
use atelier_core::settings::FrameCheck;
use atelier_core::tools::RunEvent;

/// Progress of an import, sent over its channel.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct ImportProgress {
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub files_done: u64,
    pub files_total: u64,
    /// An installer's step (python.requirements), when there is one.
    pub step: Option<String>,
}

#[tauri::command]
pub async fn list_toolsets(state: State<'_, AppState>) -> IpcResult<Vec<ToolsetRecord>> {
    Ok(state.app.toolsets().list().await?)
}

#[tauri::command]
pub async fn get_toolset(state: State<'_, AppState>, id: String) -> IpcResult<ToolsetDetails> {
    Ok(state.app.toolsets().get(&id).await?)
}

/// The consent step: what a bundle will run, and its problems.
#[tauri::command]
pub async fn check_bundle(state: State<'_, AppState>, path: PathBuf) -> IpcResult<BundleReport> {
    let path = paths::bundle(&path)?;
    Ok(state.app.toolsets().check_bundle(&path, &Observer::default()).await?)
}

/// Installs (or upgrades) a toolset, then puts it on the allowlists of
/// `agents` (checked first: an unknown agent installs nothing). `config`:
/// plain values of its settings; `secrets`: sensitive ones (to the secret
/// store); `allow_env`: environment variables it may read.
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn import_toolset(
    state: State<'_, AppState>,
    live: State<'_, Live>,
    path: PathBuf,
    force: bool,
    agents: Vec<String>,
    config: Map<String, Value>,
    secrets: BTreeMap<String, String>,
    allow_env: Vec<String>,
    on_progress: Channel<ImportProgress>,
) -> IpcResult<ImportReport> {
    let path = paths::bundle(&path)?;
    let (bytes, steps) = (on_progress.clone(), on_progress);
    let observer = Observer::default()
        .with_progress(move |p| {
            let _ = bytes.send(ImportProgress {
                bytes_done: p.bytes_done,
                bytes_total: p.bytes_total,
                files_done: p.files_done,
                files_total: p.files_total,
                step: None,
            });
        })
        .with_steps(move |s| {
            let _ = steps.send(ImportProgress {
                step: Some(s.to_owned()),
                ..Default::default()
            });
        });
    let options = ImportOptions {
        force,
        observer,
        config,
        secrets: crate::config_commands::secrets(secrets),
        allow_env,
        ..Default::default()
    };
    // The consent step's "let Assistant use its tools": on those agents'
    // allowlists in the same step.
    let report = state.app.agents().import_toolset(&path, &options, &agents).await?;
    // A folder runs in place: edits to it reload the toolset from now on.
    if report.toolset.source_type == SourceType::Local
        && let Some(dir) = &report.toolset.source_ref
    {
        live.reloads.ensure(&report.toolset.id, PathBuf::from(dir));
    }
    Ok(report)
}

#[tauri::command]
pub async fn export_toolset(state: State<'_, AppState>, id: String, path: PathBuf) -> IpcResult<()> {
    let path = paths::export_target(&path)?;
    state.app.toolsets().export(&id, &path).await?;
    Ok(())
}

#[tauri::command]
pub async fn enable_toolset(state: State<'_, AppState>, id: String, enabled: bool) -> IpcResult<ToolsetRecord> {
    Ok(state.app.toolsets().set_enabled(&id, enabled).await?)
}

#[tauri::command]
pub async fn uninstall_toolset(state: State<'_, AppState>, live: State<'_, Live>, id: String) -> IpcResult<()> {
    state.app.toolsets().uninstall(&id).await?;
    live.reloads.stop(&id);
    Ok(())
}

/// The last hot reload of each watched local toolset: the version it
/// installed, or why an edit was refused (the last good version still runs).
#[tauri::command]
pub fn toolset_reloads(live: State<'_, Live>) -> Vec<ReloadStatus> {
    live.reloads.status()
}

/// A native open dialog for a toolset ZIP.
#[tauri::command]
pub async fn pick_bundle<R: Runtime>(app: tauri::AppHandle<R>) -> IpcResult<Option<PathBuf>> {
    crate::dialogs::pick_file(&app, "Toolset bundle", &["zip"]).await
}

/// A native open dialog for a toolset folder.
#[tauri::command]
pub async fn pick_bundle_folder<R: Runtime>(app: tauri::AppHandle<R>) -> IpcResult<Option<PathBuf>> {
    crate::dialogs::pick_folder(&app).await
}

/// A native save dialog for an export.
#[tauri::command]
pub async fn pick_export_path<R: Runtime>(
    app: tauri::AppHandle<R>,
    suggested_name: String,
) -> IpcResult<Option<PathBuf>> {
    crate::dialogs::save_file(&app, &suggested_name).await
}

#[tauri::command]
pub async fn list_tools(state: State<'_, AppState>) -> IpcResult<Vec<ToolRecord>> {
    Ok(state.app.tools().list().await?)
}

/// The tools a chat may use: all enabled tools until agents exist.
#[tauri::command]
pub async fn get_available_tools(state: State<'_, AppState>) -> IpcResult<Vec<ToolRecord>> {
    Ok(state.app.tools().list().await?)
}

#[tauri::command]
pub async fn get_tool(state: State<'_, AppState>, tool_id: String) -> IpcResult<ToolRecord> {
    Ok(state.app.tools().tool(&tool_id).await?)
}

#[tauri::command]
pub async fn validate_tool_args(
    state: State<'_, AppState>,
    tool_id: String,
    args: Value,
) -> IpcResult<Vec<atelier_core::tools::ArgProblem>> {
    Ok(state.app.tools().validate_args(&tool_id, &args).await?)
}

#[tauri::command]
pub async fn list_chats(state: State<'_, AppState>) -> IpcResult<Vec<Chat>> {
    Ok(state.app.chats().list().await?)
}

#[tauri::command]
pub async fn create_chat(state: State<'_, AppState>, title: Option<String>) -> IpcResult<Chat> {
    Ok(state.app.chats().create(title.as_deref()).await?)
}

/// Runs a tool in a chat. A `requires_confirmation` tool waits for
/// `answer_approval` (the channel says `awaiting_approval` first); walk
/// progress and live output arrive on `on_event`.
#[tauri::command]
pub async fn run_tool(
    state: State<'_, AppState>,
    chat_id: String,
    tool_id: String,
    args: Value,
    on_event: Channel<RunEvent>,
) -> IpcResult<ToolCallRecord> {
    Ok(state
        .app
        .tools()
        .run(RunRequest {
            chat_id,
            tool_id,
            args,
            approval: Approval::Wait,
            control: run_events::control(on_event),
            ..Default::default()
        })
        .await?)
}

/// The person's answer to a call waiting for approval: true runs it, false
/// records it as denied. False back: the call was not waiting any more.
#[tauri::command]
pub fn answer_approval(state: State<'_, AppState>, call_id: String, approve: bool) -> bool {
    state.app.tools().answer_approval(&call_id, approve)
}

/// "Allow for this chat": runs the waiting call and lets its tool run
/// without a question in its chat from now on. False: it was not waiting.
#[tauri::command]
pub async fn answer_approval_for_chat(state: State<'_, AppState>, call_id: String) -> IpcResult<bool> {
    Ok(state.app.tools().answer_approval_for_chat(&call_id).await?)
}

/// A tool's confirmation policy.
#[tauri::command]
pub async fn tool_policy(state: State<'_, AppState>, tool_id: String) -> IpcResult<ToolPolicy> {
    Ok(state.app.tools().policy(&tool_id).await?)
}

/// Sets whether a tool asks before it runs (`default`: its author's choice).
#[tauri::command]
pub async fn set_tool_policy(state: State<'_, AppState>, tool_id: String, policy: Policy) -> IpcResult<ToolPolicy> {
    Ok(state.app.tools().set_policy(&tool_id, policy).await?)
}

/// Cancels a running call (its worker is stopped; the call is recorded as
/// `cancelled` with what it printed and wrote). False: it is not running.
#[tauri::command]
pub fn cancel_tool_call(state: State<'_, AppState>, call_id: String) -> bool {
    state.app.tools().cancel(&call_id)
}

#[tauri::command]
pub async fn list_tool_calls(state: State<'_, AppState>, chat_id: String) -> IpcResult<Vec<ToolCallRecord>> {
    Ok(state.app.tools().calls(&chat_id).await?)
}

#[tauri::command]
pub async fn get_workspace_files(
    state: State<'_, AppState>,
    chat_id: String,
    manifest_id: Option<String>,
) -> IpcResult<Vec<FileListing>> {
    Ok(state
        .app
        .workspace()
        .list_files(&chat_id, manifest_id.as_deref())
        .await?)
}

#[tauri::command]
pub async fn get_workspace_file(
    state: State<'_, AppState>,
    chat_id: String,
    path: String,
    manifest_id: Option<String>,
) -> IpcResult<WorkspaceFile> {
    Ok(state
        .app
        .tools()
        .workspace_file(&chat_id, &path, manifest_id.as_deref())
        .await?)
}

#[tauri::command]
pub async fn get_workspace_manifest(
    state: State<'_, AppState>,
    chat_id: String,
    manifest_id: Option<String>,
) -> IpcResult<WorkspaceManifest> {
    Ok(state.app.workspace().manifest(&chat_id, manifest_id.as_deref()).await?)
}

/// A URL under the render scheme, with a fresh unguessable token, that
/// serves the complete document of a call's html plan.
#[tauri::command]
pub async fn render_url(state: State<'_, AppState>, call_id: String) -> IpcResult<String> {
    state.app.tools().html_plan(&call_id).await?;
    Ok(state.renders.issue(&call_id))
}

/// A URL under the render scheme, with a fresh unguessable token, that
/// serves one workspace file version (images the UI shows).
#[tauri::command]
pub async fn workspace_file_url(
    state: State<'_, AppState>,
    chat_id: String,
    path: String,
    manifest_id: Option<String>,
) -> IpcResult<String> {
    let file = state
        .app
        .tools()
        .file_ref(&chat_id, &path, manifest_id.as_deref())
        .await?;
    Ok(state.renders.issue_file(file))
}

fn settings_view(state: &AppState, saved: atelier_core::settings::Settings) -> SettingsView {
    SettingsView {
        saved,
        frame_origins_in_effect: state.frame_origins_in_effect.clone(),
    }
}

#[tauri::command]
pub async fn get_settings(state: State<'_, AppState>) -> IpcResult<SettingsView> {
    Ok(settings_view(&state, state.app.settings().get().await?))
}

/// Lets frame renderers show pages from an origin (from the next start on).
#[tauri::command]
pub async fn allow_frame_origin(state: State<'_, AppState>, origin: String) -> IpcResult<SettingsView> {
    Ok(settings_view(
        &state,
        state.app.settings().allow_frame_origin(&origin).await?,
    ))
}

#[tauri::command]
pub async fn forbid_frame_origin(state: State<'_, AppState>, origin: String) -> IpcResult<SettingsView> {
    Ok(settings_view(
        &state,
        state.app.settings().forbid_frame_origin(&origin).await?,
    ))
}

/// What a frame renderer may do with a page (the core decides; the UI
/// shows the page, the notice to allow its origin, or the restart hint).
#[tauri::command]
pub async fn check_frame(state: State<'_, AppState>, url: String) -> IpcResult<FrameCheck> {
    let saved = state.app.settings().get().await?;
    Ok(atelier_core::settings::frame_access(
        &url,
        &saved,
        &state.frame_origins_in_effect,
    ))
}

/// Restarts the app so saved frame origins take effect.
#[tauri::command]
pub fn restart_app<R: Runtime>(app: tauri::AppHandle<R>) {
    app.restart();
}
