//! Native dialogs (tauri-plugin-dialog), called from Rust so that paths
//! stay on this side; the UI only learns what the person chose.

use std::path::PathBuf;

use tauri::{Manager, Runtime};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};

use crate::error::{IpcError, IpcResult};

fn to_path(p: Option<FilePath>) -> IpcResult<Option<PathBuf>> {
    p.map(|f| {
        f.into_path().map_err(|_| atelier_core::Error::UnusablePath {
            path: PathBuf::new(),
            reason: "the dialog chose something that is not a local file",
        })
    })
    .transpose()
    .map_err(IpcError::from)
}

/// Where dialogs open: the Downloads folder (where bundles arrive and
/// exports are looked for), else home — never the app's working directory.
fn starting_at<R: Runtime>(app: &tauri::AppHandle<R>, dialog: FileDialogBuilder<R>) -> FileDialogBuilder<R> {
    let paths = app.path();
    match paths
        .download_dir()
        .ok()
        .filter(|d| d.is_dir())
        .or_else(|| paths.home_dir().ok())
    {
        Some(dir) => dialog.set_directory(dir),
        None => dialog,
    }
}

async fn answer(rx: tokio::sync::oneshot::Receiver<Option<FilePath>>) -> IpcResult<Option<PathBuf>> {
    to_path(rx.await.unwrap_or(None))
}

pub(crate) async fn pick_file<R: Runtime>(
    app: &tauri::AppHandle<R>,
    what: &str,
    extensions: &[&str],
) -> IpcResult<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    starting_at(app, app.dialog().file())
        .add_filter(what, extensions)
        .pick_file(move |p| {
            let _ = tx.send(p);
        });
    answer(rx).await
}

/// An open dialog for any one file (a toolset setting's `file`).
pub(crate) async fn pick_any_file<R: Runtime>(app: &tauri::AppHandle<R>) -> IpcResult<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    starting_at(app, app.dialog().file()).pick_file(move |p| {
        let _ = tx.send(p);
    });
    answer(rx).await
}

pub(crate) async fn pick_folder<R: Runtime>(app: &tauri::AppHandle<R>) -> IpcResult<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    starting_at(app, app.dialog().file()).pick_folder(move |p| {
        let _ = tx.send(p);
    });
    answer(rx).await
}

pub(crate) async fn save_file<R: Runtime>(app: &tauri::AppHandle<R>, suggested: &str) -> IpcResult<Option<PathBuf>> {
    save_as(app, suggested, Some(("Toolset bundle", &["zip"]))).await
}

/// A save dialog, with a file-type filter or none (a new folder's name).
pub(crate) async fn save_as<R: Runtime>(
    app: &tauri::AppHandle<R>,
    suggested: &str,
    filter: Option<(&str, &[&str])>,
) -> IpcResult<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut dialog = starting_at(app, app.dialog().file()).set_file_name(suggested);
    if let Some((what, extensions)) = filter {
        dialog = dialog.add_filter(what, extensions);
    }
    dialog.save_file(move |p| {
        let _ = tx.send(p);
    });
    answer(rx).await
}
