//! The commands of the chat and workspace views: the message tree, branch
//! switches, diffs, editor saves, restores, dropped files and exports. Like
//! [`crate::commands`]: typed arguments, one core call, `{kind, message}`.

use std::path::PathBuf;

use atelier_core::Progress;
use atelier_core::model::{Chat, MessageNode, SnapshotOutcome, WorkspaceDiff};
use atelier_core::workspace::diff::TextChange;
use atelier_core::workspace::edits::FileChange;
use atelier_core::workspace::export::WorkspaceExport;
use tauri::ipc::Channel;
use tauri::{Runtime, State};

use crate::error::IpcResult;
use crate::run_events::reporting;
use crate::{AppState, paths};

#[tauri::command]
pub async fn chat_tree(state: State<'_, AppState>, chat_id: String) -> IpcResult<Vec<MessageNode>> {
    Ok(state.app.chats().tree(&chat_id).await?)
}

/// Makes a message the active leaf; the workspace follows.
#[tauri::command]
pub async fn checkout(
    state: State<'_, AppState>,
    chat_id: String,
    message_id: String,
    on_progress: Channel<Progress>,
) -> IpcResult<Chat> {
    Ok(state
        .app
        .workspace()
        .checkout_with(&chat_id, &message_id, &reporting(on_progress))
        .await?)
}

/// Switches to the branch through a message (sibling arrows, the tree
/// map): its newest leaf becomes active; the workspace follows.
#[tauri::command]
pub async fn switch_branch(
    state: State<'_, AppState>,
    chat_id: String,
    message_id: String,
    on_progress: Channel<Progress>,
) -> IpcResult<Chat> {
    Ok(state
        .app
        .workspace()
        .switch_branch(&chat_id, &message_id, &reporting(on_progress))
        .await?)
}

#[tauri::command]
pub async fn rename_chat(state: State<'_, AppState>, chat_id: String, title: String) -> IpcResult<Chat> {
    Ok(state.app.chats().rename(&chat_id, &title).await?)
}

#[tauri::command]
pub async fn delete_chat(state: State<'_, AppState>, chat_id: String) -> IpcResult<()> {
    Ok(state.app.chats().delete(&chat_id).await?)
}

/// What changed between two nodes (messages or manifests).
#[tauri::command]
pub async fn diff_nodes(
    state: State<'_, AppState>,
    chat_id: String,
    from: String,
    to: String,
) -> IpcResult<WorkspaceDiff> {
    Ok(state.app.workspace().diff(&chat_id, &from, &to).await?)
}

/// An editor's save, as an `edit` node under `at` (default: the active leaf).
#[tauri::command]
pub async fn save_edit(
    state: State<'_, AppState>,
    chat_id: String,
    at: Option<String>,
    changes: Vec<FileChange>,
) -> IpcResult<SnapshotOutcome> {
    Ok(state
        .app
        .workspace()
        .save_edit(&chat_id, at.as_deref(), changes)
        .await?)
}

#[tauri::command]
pub async fn restore_file(
    state: State<'_, AppState>,
    chat_id: String,
    path: String,
    from: String,
) -> IpcResult<SnapshotOutcome> {
    Ok(state.app.workspace().restore_file(&chat_id, &path, &from).await?)
}

/// Files and folders dropped onto the workspace (a `user_upload` node).
#[tauri::command]
pub async fn upload_files(
    state: State<'_, AppState>,
    chat_id: String,
    paths: Vec<PathBuf>,
    dest: String,
    on_progress: Channel<Progress>,
) -> IpcResult<SnapshotOutcome> {
    let sources = paths
        .iter()
        .map(|p| paths::upload_source(p))
        .collect::<atelier_core::Result<Vec<_>>>()?;
    Ok(state
        .app
        .workspace()
        .upload_files(&chat_id, sources, &dest, &reporting(on_progress))
        .await?)
}

/// A node's workspace as a ZIP (`path` ends in `.zip`) or a new folder.
#[tauri::command]
pub async fn export_workspace(
    state: State<'_, AppState>,
    chat_id: String,
    node: Option<String>,
    path: PathBuf,
    on_progress: Channel<Progress>,
) -> IpcResult<WorkspaceExport> {
    let path = paths::workspace_export_target(&path)?;
    Ok(state
        .app
        .workspace()
        .export(&chat_id, node.as_deref(), &path, &reporting(on_progress))
        .await?)
}

/// A native save dialog for a workspace export (a ZIP, or a new folder's name).
#[tauri::command]
pub async fn pick_workspace_export_path<R: Runtime>(
    app: tauri::AppHandle<R>,
    suggested_name: String,
    zip: bool,
) -> IpcResult<Option<PathBuf>> {
    crate::dialogs::save_as(&app, &suggested_name, zip.then_some(("ZIP archive", &["zip"][..]))).await
}

/// Save as…: asks where (a native save dialog named after the file), then
/// writes that file version there. None: the person cancelled.
#[tauri::command]
pub async fn export_workspace_file<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    chat_id: String,
    manifest_id: Option<String>,
    path: String,
) -> IpcResult<Option<String>> {
    let name = path.rsplit('/').next().unwrap_or("file");
    let Some(dest) = crate::dialogs::save_as(&app, name, None).await? else {
        return Ok(None);
    };
    let dest = paths::workspace_export_target(&dest)?;
    let saved = state
        .app
        .workspace()
        .export_file(&chat_id, &path, manifest_id.as_deref(), &dest)
        .await?;
    Ok(Some(saved.path))
}

/// Opens the chat's workspace folder in the system file manager.
#[tauri::command]
pub async fn open_workspace_folder(state: State<'_, AppState>, chat_id: String) -> IpcResult<()> {
    let chat = state.app.chats().get(&chat_id).await?;
    let dir = state.app.workspace_dir(&chat.id);
    Ok(crate::desktop::reveal(&dir).map_err(atelier_core::Error::io("open", &dir))?)
}

/// The diff of an edit before it is saved (the same diff as Compare).
#[tauri::command]
pub async fn diff_text(path: String, before: String, after: String) -> IpcResult<TextChange> {
    Ok(atelier_core::workspace::diff::diff_text(path, before, after).await?)
}
